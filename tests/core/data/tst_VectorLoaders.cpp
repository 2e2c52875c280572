// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/Csv.h"
#include "core/data/Dataset.h"
#include "core/data/VectorLoaders.h"
#include "tests/core/data/AllocationCap.h"

#include <QtTest>

#include <bit>
#include <cfloat>
#include <clocale>
#include <cmath>
#include <cstdio>
#include <limits>
#include <cstring>
#include <fstream>
#include <optional>

using namespace setscope::data;

namespace {

/// A .npy file assembled by hand from the NumPy format spec (not with writeNpy).
void writeNpyBytes(const QString& path, const std::string& descr, bool fortran, const std::string& shape,
                   const std::vector<unsigned char>& data, int version = 1)
{
    std::string header = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
                         ", 'shape': " + shape + ", }";
    const std::size_t pre = version == 1 ? 10 : 12;
    header.append((64 - (pre + header.size() + 1) % 64) % 64, ' ');
    header += '\n';
    std::ofstream f(path.toStdString(), std::ios::binary);
    f.write("\x93NUMPY", 6);
    const char ver[2] = {char(version), 0};
    f.write(ver, 2);
    const std::uint32_t n = std::uint32_t(header.size());
    const char len[4] = {char(n & 0xff), char((n >> 8) & 0xff), char((n >> 16) & 0xff), char(n >> 24)};
    f.write(len, version == 1 ? 2 : 4);
    f.write(header.data(), std::streamsize(header.size()));
    f.write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()));
}

template <class T>
std::vector<unsigned char> bytesOf(const std::vector<T>& v, bool bigEndian = false)
{
    std::vector<unsigned char> out;
    for (T x : v) {
        unsigned char b[sizeof(T)];
        std::memcpy(b, &x, sizeof(T));
        if (bigEndian)
            std::reverse(b, b + sizeof(T));
        out.insert(out.end(), b, b + sizeof(T));
    }
    return out;
}

void writeText(const QString& path, const char* text)
{
    std::ofstream f(path.toStdString(), std::ios::binary);
    f << text;
}

Dataset loadWith(void (*fn)(const std::string&, setscope::sdk::DatasetSink&), const QString& path)
{
    DatasetBuilder b(path.toStdString());
    fn(path.toStdString(), b);
    return b.finish();
}

QString errorOf(void (*fn)(const std::string&, setscope::sdk::DatasetSink&), const QString& path)
{
    try {
        loadWith(fn, path);
    } catch (const InputError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace

class TestVectorLoaders : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() { QVERIFY(m_dir.isValid()); }
    void npyDtypesAndOrders_data();
    void npyDtypesAndOrders();
    void npySetsAndMetadata();
    void npyBadFiles_data();
    void npyBadFiles();
    void npyCraftedHeaders_data();
    void npyCraftedHeaders();
    void writeNpyRoundTrip();
    void csvVectors();
    void csvQuotingAndCrlf();
    void csvBadFiles_data();
    void csvBadFiles();
    void valuesBeyondFloatRange_data();
    void valuesBeyondFloatRange();
    void csvNumbersFloatCannotHold();

private:
    QTemporaryDir m_dir;
};

void TestVectorLoaders::npyDtypesAndOrders_data()
{
    QTest::addColumn<QString>("descr");
    QTest::addColumn<bool>("fortran");
    QTest::addColumn<int>("version");
    QTest::newRow("<f4 C") << "<f4" << false << 1;
    QTest::newRow("<f8 C") << "<f8" << false << 1;
    QTest::newRow(">f8 C") << ">f8" << false << 1;
    QTest::newRow("<f4 Fortran") << "<f4" << true << 1;
    QTest::newRow("|u1 C") << "|u1" << false << 1;
    QTest::newRow("<i8 C v2") << "<i8" << false << 2;
}

void TestVectorLoaders::npyDtypesAndOrders()
{
    QFETCH(QString, descr);
    QFETCH(bool, fortran);
    QFETCH(int, version);
    // The 2 x 3 matrix [[1 2 3] [4 5 6]].
    const std::vector<double> c{1, 2, 3, 4, 5, 6};
    const std::vector<double> f{1, 4, 2, 5, 3, 6}; // column-major
    const std::vector<double>& v = fortran ? f : c;
    std::vector<unsigned char> bytes;
    const std::string d = descr.toStdString();
    if (d == "<f4")
        bytes = bytesOf(std::vector<float>(v.begin(), v.end()));
    else if (d == "<f8")
        bytes = bytesOf(v);
    else if (d == ">f8")
        bytes = bytesOf(v, true);
    else if (d == "|u1")
        bytes = bytesOf(std::vector<std::uint8_t>(v.begin(), v.end()));
    else
        bytes = bytesOf(std::vector<std::int64_t>(v.begin(), v.end()));
    const QString path = m_dir.filePath("m.npy");
    writeNpyBytes(path, d, fortran, "(2, 3)", bytes, version);
    const NpyArray a = readNpy(path.toStdString());
    QCOMPARE(a.shape, (std::vector<std::uint64_t>{2, 3}));
    QCOMPARE(a.data, (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

void TestVectorLoaders::npySetsAndMetadata()
{
    // 3 sets of 2 elements in 2-D, with a metadata table beside the file.
    const std::vector<float> v{0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5};
    const QString path = m_dir.filePath("sets.npy");
    writeNpyBytes(path, "<f4", false, "(3, 2, 2)", bytesOf(v));
    writeText(m_dir.filePath("sets.csv"), "label,coarse,split\ncat,animal,train\ndog,animal,test\n,plant,val\n");
    const Dataset ds = loadWith(loadNpy, path);
    QCOMPARE(ds.size(), std::size_t(3));
    QCOMPARE(ds.setSize(1), std::size_t(2));
    QCOMPARE(ds.item(1).element(1)[0], 3.0f);
    const LabelSet& fine = ds.requireLabelSet("fine");
    QCOMPARE(fine.classNames, (std::vector<std::string>{"cat", "dog"}));
    QCOMPARE(fine.labels, (std::vector<std::int32_t>{0, 1, -1}));
    QCOMPARE(ds.requireLabelSet("coarse").labels, (std::vector<std::int32_t>{0, 0, 1}));
    QCOMPARE(ds.split(1), Split::Test);
    QCOMPARE(ds.split(2), Split::Val);
}

void TestVectorLoaders::npyBadFiles_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("expect");
    QTest::newRow("magic") << 0 << "not a .npy file";
    QTest::newRow("truncated data") << 1 << "truncated";
    QTest::newRow("1-d") << 2 << "expected a 2-D";
    QTest::newRow("complex dtype") << 3 << "not supported";
    QTest::newRow("nan") << 4 << "NaN";
    QTest::newRow("metadata rows") << 5 << "has 1 rows but";
    QTest::newRow("trailing") << 6 << "trailing bytes";
}

void TestVectorLoaders::npyBadFiles()
{
    QFETCH(int, kind);
    QFETCH(QString, expect);
    const QString path = m_dir.filePath(QString("bad%1.npy").arg(kind));
    const std::vector<float> ok{1, 2, 3, 4};
    switch (kind) {
    case 0: writeText(path, "PK\x03\x04 definitely not numpy"); break;
    case 1: {
        auto b = bytesOf(ok);
        b.resize(10);
        writeNpyBytes(path, "<f4", false, "(2, 2)", b);
        break;
    }
    case 2: writeNpyBytes(path, "<f4", false, "(4,)", bytesOf(ok)); break;
    case 3: writeNpyBytes(path, "<c8", false, "(2, 1)", bytesOf(ok)); break;
    case 4: writeNpyBytes(path, "<f4", false, "(2, 2)", bytesOf(std::vector<float>{1, 2, std::nanf(""), 4})); break;
    case 5:
        writeNpyBytes(path, "<f4", false, "(2, 2)", bytesOf(ok));
        writeText(m_dir.filePath("bad5.csv"), "label\na\n");
        break;
    case 6: {
        auto b = bytesOf(ok);
        b.push_back(0);
        writeNpyBytes(path, "<f4", false, "(2, 2)", b);
        break;
    }
    }
    const QString msg = errorOf(loadNpy, path);
    QVERIFY2(msg.contains(expect), qPrintable(msg));
    if (kind == 4)
        QVERIFY2(msg.contains("record 1"), qPrintable(msg)); // the second row holds the NaN
    if (kind != 5)
        QVERIFY2(msg.startsWith(path), qPrintable(msg));
}

void TestVectorLoaders::npyCraftedHeaders_data()
{
    QTest::addColumn<QString>("descr");
    QTest::addColumn<QString>("shape");
    QTest::addColumn<int>("dataBytes");
    QTest::addColumn<QString>("expect");
    // The review's case: 2 * 2048 * (2^52 + 1) = 2^64 + 4096 wraps to 4096 elements, which
    // 16 KB of float32 data satisfied; the third dimension was then truncated to int (1) and
    // the file was accepted as 2 x 2048 x 1.
    QTest::newRow("shape product wraps 2^64")
        << "<f4" << "(2, 2048, 4503599627370497)" << 16384
        << "header: shape (2, 2048, 4503599627370497) has more elements than fit in 64 bits";
    // (2^62 + 1) elements of 4 bytes = 2^64 + 4 bytes: wrapped to 4, then resize(2^62 + 1).
    QTest::newRow("byte size wraps 2^64") << "<f4" << "(4611686018427387905, 1)" << 4
                                          << "needs more bytes than fit in 64 bits";
    QTest::newRow("dimension beyond 64 bits") << "<f4" << "(2, 99999999999999999999999)" << 8
                                              << "has a dimension that does not fit in 64 bits";
    QTest::newRow("negative dimension") << "<f4" << "(2, -2)" << 16 << "holds '-2', not a non-negative integer";
    QTest::newRow("dtype size beyond int") << "<f99999999999" << "(2, 2)" << 16 << "dtype 'f99999999999' is not supported";
    // 10^10 float32 promised by a 16-byte payload: refused before any allocation.
    QTest::newRow("payload larger than the file") << "<f4" << "(100000, 100000)" << 16
                                                  << "truncated: shape needs 40000000000 data bytes, file has 16";
}

void TestVectorLoaders::npyCraftedHeaders()
{
    QFETCH(QString, descr);
    QFETCH(QString, shape);
    QFETCH(int, dataBytes);
    QFETCH(QString, expect);
    const QString path = m_dir.filePath("crafted.npy");
    writeNpyBytes(path, descr.toStdString(), false, shape.toStdString(),
                  std::vector<unsigned char>(static_cast<std::size_t>(dataBytes), 0));
    const setscope::testing::AllocationCap cap; // what the header claims must not be allocated
    QVERIFY(cap.active());
    QString msg;
    try {
        const NpyArray a = readNpy(path.toStdString());
        msg = "accepted with shape of " + QString::number(a.shape.size()) + " dimensions and " +
              QString::number(a.data.size()) + " values";
    } catch (const InputError& e) {
        msg = QString::fromStdString(e.what());
        QVERIFY2(!e.location().empty(), qPrintable(msg));
    }
    QVERIFY2(msg.contains(expect), qPrintable(msg));
    QVERIFY2(msg.startsWith(path + " (byte offset "), qPrintable(msg)); // names the file and where
    // The loader refuses it too (it reads through readNpy).
    QVERIFY(!errorOf(loadNpy, path).isEmpty());
}

void TestVectorLoaders::writeNpyRoundTrip()
{
    const std::vector<float> v{0.5f, -1.25f, 3e7f, 7, 8, 9};
    const QString path = m_dir.filePath("rt.npy");
    writeNpy(path.toStdString(), v.data(), {3, 2});
    // The header must be 64-byte aligned per the format spec.
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray all = f.readAll();
    const int hlen = static_cast<unsigned char>(all[8]) | (static_cast<unsigned char>(all[9]) << 8);
    QCOMPARE((10 + hlen) % 64, 0);
    QCOMPARE(all.size(), 10 + hlen + 6 * 4);
    const NpyArray a = readNpy(path.toStdString());
    QCOMPARE(a.shape, (std::vector<std::uint64_t>{3, 2}));
    QCOMPARE(a.data, v);
}

void TestVectorLoaders::csvVectors()
{
    const QString path = m_dir.filePath("v.csv");
    writeText(path, "x,y,label,split,id\n1.5,2,b,train,10\n-3,4e2,a,test,11\n0,0,b,train,12\n");
    const Dataset ds = loadWith(loadCsvVectors, path);
    QCOMPARE(ds.dim(), 2);
    QCOMPARE(ds.size(), std::size_t(3));
    QCOMPARE(ds.item(1).values[1], 400.0f);
    const LabelSet& fine = ds.requireLabelSet("fine");
    QCOMPARE(fine.classNames, (std::vector<std::string>{"a", "b"}));
    QCOMPARE(fine.labels, (std::vector<std::int32_t>{1, 0, 1}));
    QCOMPARE(ds.split(1), Split::Test);
}

void TestVectorLoaders::csvQuotingAndCrlf()
{
    const QString path = m_dir.filePath("q.csv");
    writeText(path, "f1,label\r\n1,\"a, \"\"quoted\"\"\"\r\n2,\"multi\nline\"\r\n");
    const CsvTable t = readCsv(path.toStdString());
    QCOMPARE(t.rows.size(), std::size_t(2));
    QCOMPARE(t.rows[0][1], std::string("a, \"quoted\""));
    QCOMPARE(t.rows[1][1], std::string("multi\nline"));
    QCOMPARE(t.rowLines[1], std::uint64_t(3));
    // numeric class names sort numerically (2 < 10), not as text
    const QString num = m_dir.filePath("n.csv");
    writeText(num, "f,label\n1,10\n2,2\n3,10\n");
    const Dataset ds = loadWith(loadCsvVectors, num);
    QCOMPARE(ds.requireLabelSet("fine").classNames, (std::vector<std::string>{"2", "10"}));
}

void TestVectorLoaders::csvBadFiles_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expect");
    QTest::newRow("not a number") << "a,label\n1,x\nfoo,y\n" << "line 3";
    QTest::newRow("nan cell") << "a,label\n1,x\nnan,y\n" << "NaN";
    QTest::newRow("field count") << "a,b\n1,2\n3\n" << "has 1 fields";
    QTest::newRow("unterminated quote") << "a,label\n1,\"x\n" << "unterminated";
    QTest::newRow("no features") << "label,split\nx,train\n" << "no feature columns";
    QTest::newRow("bad split") << "a,split\n1,holdout\n" << "not train, val or test";
    QTest::newRow("empty") << "" << "empty file";
    QTest::newRow("header only") << "a,b\n" << "no data rows";
}

void TestVectorLoaders::csvBadFiles()
{
    QFETCH(QString, text);
    QFETCH(QString, expect);
    const QString path = m_dir.filePath("bad.csv");
    writeText(path, text.toUtf8().constData());
    const QString msg = errorOf(loadCsvVectors, path);
    QVERIFY2(msg.contains(expect), qPrintable(msg));
    QVERIFY2(msg.startsWith(path), qPrintable(msg));
}

// Issue 29 §2: a 200 x 2 array whose row 17 holds one extreme value, as .npy (float32 and
// float64) and as CSV. Values whose squared distances overflow float (here beyond
// sqrt(FLT_MAX / 8) = 6.52e18 for 2-d data), infinities and NaN are refused at load time with
// the file and the row; subnormal and merely large values load unchanged.
void TestVectorLoaders::valuesBeyondFloatRange_data()
{
    QTest::addColumn<double>("value");
    QTest::addColumn<QString>("expect"); // "" = loads, the value kept
    const QString beyond = "record 17): element 0, component 1 is %1, beyond \u00b16.52e+18";
    QTest::newRow("1e20") << 1e20 << beyond.arg("1e+20");
    QTest::newRow("FLT_MAX") << double(FLT_MAX) << beyond.arg("3.40282e+38");
    QTest::newRow("-FLT_MAX") << -double(FLT_MAX) << beyond.arg("-3.40282e+38");
    QTest::newRow("7e18, just beyond") << 7e18 << beyond.arg("7e+18");
    QTest::newRow("+inf") << double(INFINITY) << "record 17): element 0, component 1 is infinite";
    QTest::newRow("-inf") << -double(INFINITY) << "record 17): element 0, component 1 is infinite";
    QTest::newRow("NaN") << double(NAN) << "record 17): element 0, component 1 is NaN";
    QTest::newRow("6e18, within") << 6e18 << "";
    QTest::newRow("subnormal 1e-40") << 1e-40 << "";
    QTest::newRow("smallest subnormal") << double(std::numeric_limits<float>::denorm_min()) << "";
}

void TestVectorLoaders::valuesBeyondFloatRange()
{
    QFETCH(double, value);
    QFETCH(QString, expect);
    std::vector<float> f(400);
    std::vector<double> d(400);
    for (int i = 0; i < 400; ++i)
        d[std::size_t(i)] = f[std::size_t(i)] = static_cast<float>(i % 7) - 3.0f;
    f[35] = static_cast<float>(value); // row 17, column 1
    d[35] = value;
    const QString npy4 = m_dir.filePath("big4.npy"), npy8 = m_dir.filePath("big8.npy"), csv = m_dir.filePath("big.csv");
    writeNpyBytes(npy4, "<f4", false, "(200, 2)", bytesOf(f));
    writeNpyBytes(npy8, "<f8", false, "(200, 2)", bytesOf(d));
    {
        std::ofstream out(csv.toStdString());
        out << "a,b\n";
        char buf[64];
        for (int i = 0; i < 200; ++i) {
            std::snprintf(buf, sizeof buf, "%.9g,%.9g\n", d[std::size_t(2 * i)], d[std::size_t(2 * i + 1)]);
            out << buf;
        }
    }
    for (const QString& path : {npy4, npy8}) {
        const QString msg = errorOf(loadNpy, path);
        if (expect.isEmpty()) {
            QCOMPARE(msg, QString());
            const Dataset ds = loadWith(loadNpy, path);
            QCOMPARE(ds.item(17).values[1], static_cast<float>(value));
        } else {
            QVERIFY2(msg.startsWith(path + " (" + expect) || (msg.startsWith(path) && msg.contains(expect)),
                     qPrintable(msg));
        }
    }
    // CSV: the line of the row (the header is line 1).
    const QString msg = errorOf(loadCsvVectors, csv);
    if (expect.isEmpty()) {
        QCOMPARE(msg, QString());
    } else {
        QVERIFY2(msg.startsWith(csv + " (line 19): column 'b' is "), qPrintable(msg));
        QVERIFY2(msg.contains(expect.mid(expect.indexOf(" is ") + 4)), qPrintable(msg));
    }
}

// A CSV number beyond float's range is infinite (refused with its line), one below it rounds to
// zero, a subnormal one is kept: whatever the process's locale (the test sets a comma one when the
// machine has it, as a desktop in Germany would).
void TestVectorLoaders::csvNumbersFloatCannotHold()
{
    const char* previous = std::setlocale(LC_NUMERIC, nullptr);
    const std::string saved = previous ? previous : "C";
    const bool comma = std::setlocale(LC_NUMERIC, "de_DE.UTF-8") != nullptr;
    qInfo("LC_NUMERIC %s", comma ? "de_DE.UTF-8" : "C (de_DE.UTF-8 is not installed)");
    const QString ok = m_dir.filePath("tiny.csv"), big = m_dir.filePath("huge.csv");
    {
        std::ofstream out(ok.toStdString());
        out << "a,b\n1,1.5e-50\n2,-1e-50\n3,1e-40\n";
    }
    {
        std::ofstream out(big.toStdString());
        out << "a,b\n1,2\n3,-1.5e40\n";
    }
    const QString okError = errorOf(loadCsvVectors, ok);
    const QString bigError = errorOf(loadCsvVectors, big);
    std::optional<Dataset> ds;
    if (okError.isEmpty())
        ds.emplace(loadWith(loadCsvVectors, ok));
    std::setlocale(LC_NUMERIC, saved.c_str());
    QCOMPARE(okError, QString());
    QCOMPARE(ds->item(0).values[1], 0.0f);
    QCOMPARE(ds->item(1).values[1], 0.0f);
    QVERIFY(std::signbit(ds->item(1).values[1]));
    QCOMPARE(ds->item(2).values[1], 1e-40f);
    QVERIFY2(bigError.startsWith(big + " (line 3): column 'b' is infinite"), qPrintable(bigError));
}

QTEST_GUILESS_MAIN(TestVectorLoaders)
#include "tst_VectorLoaders.moc"
