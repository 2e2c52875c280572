// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/builtins/Builtins.h"
#include "core/catalog/DatasetCatalog.h"
#include "core/data/KusnerMat.h"
#include "core/data/MatV5Check.h"
#include "tests/core/data/AllocationCap.h"
#include "core/plugin/Registry.h"

#include <QtTest>

#include <matio.h>
#include <zlib.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>

using namespace setscope::data;
namespace catalog = setscope::catalog;

namespace {

// ---------------------------------------------------------------------------------------
// A small hand-made corpus, written through matio in Kusner's layout.
//
// D = 3. Six documents (1-based as in MATLAB):
//   1: label  2, words apple (1,2,3) x2, pie (4,5,6) x1        -> weights 2/3, 1/3
//   2: label -1, word  café (0.5,-1,7) x4                       -> weight 1
//   3: label 10, empty                                          -> dropped
//   4: label  2, words a (1,0,0) x1, b (0,1,0) x1, c (0,0,1) x2 -> weights 1/4, 1/4, 1/2
//   5: label 10, word  zed (-2,-2,-2) x3                        -> weight 1
//   6: label -1, word  solo (9,8,7) x1; in neither TR nor TE     -> Val
// TR = [1 4; 2 5], TE = [2 5 3; 1 4 3]:
//   split 1: train 1, 4; test 2, 5 (3 dropped); split 2: train 2, 5; test 1, 4.
// ---------------------------------------------------------------------------------------

struct Doc {
    int dim = 3;
    std::vector<double> x; ///< column-major dim x n: word j's vector is x[j*dim .. j*dim+dim)
    std::vector<double> counts;
    std::vector<std::string> words;
    double label = 0;
};

struct Corpus {
    std::vector<Doc> docs;
    std::vector<std::vector<double>> tr, te; ///< rows = splits; empty = no TR / TE
};

Corpus handCorpus()
{
    Corpus c;
    c.docs = {
        {3, {1, 2, 3, 4, 5, 6}, {2, 1}, {"apple", "pie"}, 2},
        {3, {0.5, -1, 7}, {4}, {"café"}, -1},
        {3, {}, {}, {}, 10},
        {3, {1, 0, 0, 0, 1, 0, 0, 0, 1}, {1, 1, 2}, {"a", "b", "c"}, 2},
        {3, {-2, -2, -2}, {3}, {"zed"}, 10},
        {3, {9, 8, 7}, {1}, {"solo"}, -1},
    };
    c.tr = {{1, 4}, {2, 5}};
    c.te = {{2, 5, 3}, {1, 4, 3}};
    return c;
}

matvar_t* numeric(const char* name, std::size_t rows, std::size_t cols, const std::vector<double>& colMajor)
{
    size_t dims[2] = {rows, cols};
    return Mat_VarCreate(name, MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims,
                         colMajor.empty() ? nullptr : const_cast<double*>(colMajor.data()), 0);
}

matvar_t* int32Column(const char* name, const std::vector<std::int32_t>& v)
{
    size_t dims[2] = {v.size(), 1};
    return Mat_VarCreate(name, MAT_C_INT32, MAT_T_INT32, 2, dims, const_cast<std::int32_t*>(v.data()), 0);
}

matvar_t* utf8String(const std::string& s)
{
    size_t dims[2] = {1, s.size()};
    return Mat_VarCreate(nullptr, MAT_C_CHAR, MAT_T_UTF8, 2, dims, const_cast<char*>(s.data()), 0);
}

/// How MATLAB stores text: UTF-16 code units.
matvar_t* utf16String(const std::vector<std::uint16_t>& units)
{
    size_t dims[2] = {1, units.size()};
    return Mat_VarCreate(nullptr, MAT_C_CHAR, MAT_T_UINT16, 2, dims, const_cast<std::uint16_t*>(units.data()), 0);
}

matvar_t* cellRow(const char* name, const std::vector<matvar_t*>& entries)
{
    size_t dims[2] = {1, entries.size()};
    matvar_t* c = Mat_VarCreate(name, MAT_C_CELL, MAT_T_CELL, 2, dims, nullptr, 0);
    for (std::size_t i = 0; i < entries.size(); ++i)
        Mat_VarSetCell(c, static_cast<int>(i), entries[i]);
    return c;
}

matvar_t* docMatrix(const Doc& d)
{
    const std::size_t rows = d.x.empty() ? 0 : static_cast<std::size_t>(d.dim);
    return numeric(nullptr, rows, rows ? d.x.size() / rows : 0, d.x);
}

matvar_t* wordsCell(const Doc& d)
{
    std::vector<matvar_t*> w;
    for (const std::string& s : d.words)
        w.push_back(utf8String(s));
    return cellRow(nullptr, w);
}

matvar_t* splitMatrix(const char* name, const std::vector<std::vector<double>>& rows)
{
    const std::size_t r = rows.size(), c = rows.empty() ? 0 : rows[0].size();
    std::vector<double> cm(r * c);
    for (std::size_t i = 0; i < r; ++i)
        for (std::size_t j = 0; j < c; ++j)
            cm[i + j * r] = rows[i][j];
    return numeric(name, r, c, cm);
}

using Vars = std::vector<std::pair<std::string, matvar_t*>>;

/// The X-family variables of `c` ("words" under the name `wordsName`, none when "").
Vars xFamily(const Corpus& c, const std::string& wordsName = "words")
{
    std::vector<matvar_t*> x, bow, words;
    std::vector<double> y;
    for (const Doc& d : c.docs) {
        x.push_back(docMatrix(d));
        bow.push_back(numeric(nullptr, d.counts.empty() ? 0 : 1, d.counts.size(), d.counts));
        words.push_back(wordsCell(d));
        y.push_back(d.label);
    }
    Vars v{{"X", cellRow("X", x)}, {"BOW_X", cellRow("BOW_X", bow)}, {"Y", numeric("Y", 1, y.size(), y)}};
    if (!wordsName.empty())
        v.push_back({wordsName, cellRow(wordsName.c_str(), words)});
    else
        for (matvar_t* w : words)
            Mat_VarFree(w);
    if (!c.tr.empty()) {
        v.push_back({"TR", splitMatrix("TR", c.tr)});
        v.push_back({"TE", splitMatrix("TE", c.te)});
    }
    return v;
}

void replace(Vars& vars, const std::string& name, matvar_t* with)
{
    for (auto& [n, v] : vars)
        if (n == name) {
            Mat_VarFree(v);
            v = with;
            return;
        }
    vars.push_back({name, with});
}

void remove(Vars& vars, const std::string& name)
{
    for (auto it = vars.begin(); it != vars.end(); ++it)
        if (it->first == name) {
            Mat_VarFree(it->second);
            vars.erase(it);
            return;
        }
}

/// A MAT v5 file holding one double matrix `name` with the given dimensions and 16 bytes
/// of data, written byte by byte from the format description (matio would not write it).
std::string craftedV5(const std::string& name, const std::vector<std::int32_t>& dims)
{
    auto u32 = [](std::string& b, std::uint32_t v) { b.append(reinterpret_cast<const char*>(&v), 4); };
    auto element = [&](std::string& b, std::uint32_t type, const std::string& data) {
        u32(b, type);
        u32(b, static_cast<std::uint32_t>(data.size()));
        b += data;
        b.append((8 - data.size() % 8) % 8, '\0');
    };
    std::string flags, dimBytes, body;
    u32(flags, 6); // mxDOUBLE_CLASS
    u32(flags, 0);
    for (std::int32_t d : dims)
        dimBytes.append(reinterpret_cast<const char*>(&d), 4);
    element(body, 6, flags);     // miUINT32 array flags
    element(body, 5, dimBytes);  // miINT32 dimensions
    element(body, 1, name);      // miINT8 name
    element(body, 9, std::string(16, '\0')); // miDOUBLE real part
    std::string file = "MATLAB 5.0 MAT-file, crafted by tst_KusnerMat";
    file.resize(116, ' ');
    file.append(8, '\0');
    file += std::string("\x00\x01", 2) + "IM"; // version 0x0100, little-endian mark
    u32(file, 14); // miMATRIX
    u32(file, static_cast<std::uint32_t>(body.size()));
    return file + body;
}

// Builders of crafted v5 files for the size-claim tests (MATLAB's "MAT-File Format":
// 8-byte tags, sub-elements padded to 8 bytes, little-endian).
void put32(std::string& b, std::uint32_t v) { b.append(reinterpret_cast<const char*>(&v), 4); }

std::string element(std::uint32_t type, const std::string& data)
{
    std::string b;
    put32(b, type);
    put32(b, static_cast<std::uint32_t>(data.size()));
    b += data;
    b.append((8 - data.size() % 8) % 8, '\0');
    return b;
}

/// An miMATRIX element of class `cls` (1 cell, 6 double) with these dimensions and name,
/// followed by `contents` (the data sub-elements or the cells, already encoded).
std::string arrayElement(std::uint32_t cls, const std::vector<std::int32_t>& dims, const std::string& name,
                         const std::string& contents)
{
    std::string flags, dimBytes;
    put32(flags, cls);
    put32(flags, 0);
    for (std::int32_t d : dims)
        dimBytes.append(reinterpret_cast<const char*>(&d), 4);
    return element(14, element(6, flags) + element(5, dimBytes) + element(1, name) + contents);
}

std::string doubles(std::size_t n) { return element(9, std::string(8 * n, '\0')); }

std::string matFile(const std::vector<std::string>& variables)
{
    std::string file = "MATLAB 5.0 MAT-file, crafted by tst_KusnerMat";
    file.resize(116, ' ');
    file.append(8, '\0');
    file += std::string("\x00\x01", 2) + "IM";
    for (const std::string& v : variables)
        file += v;
    return file;
}

/// `variable` (an encoded miMATRIX element) as a v7 compressed variable.
std::string compressed(const std::string& variable)
{
    uLongf size = compressBound(static_cast<uLong>(variable.size()));
    std::string z(size, '\0');
    compress2(reinterpret_cast<Bytef*>(z.data()), &size, reinterpret_cast<const Bytef*>(variable.data()),
              static_cast<uLong>(variable.size()), 6);
    z.resize(size);
    std::string b;
    put32(b, 15);
    put32(b, static_cast<std::uint32_t>(z.size()));
    return b + z;
}

/// Counts what a file holds by reading it with matio (an independent parser): every array
/// header (top-level variables and nested cells) and the elements of numeric and character
/// arrays.
void countWithMatio(const QString& path, std::uint64_t& variables, std::uint64_t& arrays, std::uint64_t& elements)
{
    variables = arrays = elements = 0;
    mat_t* m = Mat_Open(path.toStdString().c_str(), MAT_ACC_RDONLY);
    QVERIFY(m);
    std::function<void(const matvar_t*)> visit = [&](const matvar_t* v) {
        ++arrays;
        std::size_t n = 1;
        for (int k = 0; k < v->rank; ++k)
            n *= v->dims[k];
        if (v->class_type == MAT_C_CELL) {
            for (std::size_t i = 0; i < n; ++i)
                visit(Mat_VarGetCell(const_cast<matvar_t*>(v), static_cast<int>(i)));
        } else if (v->class_type != MAT_C_STRUCT && v->class_type != MAT_C_SPARSE) {
            elements += n;
        }
    };
    while (matvar_t* v = Mat_VarReadNext(m)) {
        ++variables;
        visit(v);
        Mat_VarFree(v);
    }
    Mat_Close(m);
}

enum class Format { V5, V5Zlib, V73 };

/// Writes and frees `vars`.
void writeMat(const QString& path, Vars vars, Format f = Format::V5)
{
    mat_t* m = Mat_CreateVer(path.toStdString().c_str(), nullptr, f == Format::V73 ? MAT_FT_MAT73 : MAT_FT_MAT5);
    QVERIFY2(m, "matio cannot create the file");
    for (auto& [name, v] : vars) {
        QCOMPARE(Mat_VarWrite(m, v, f == Format::V5Zlib ? MAT_COMPRESSION_ZLIB : MAT_COMPRESSION_NONE), 0);
        Mat_VarFree(v);
    }
    Mat_Close(m);
}

Dataset load(const QString& path, KusnerMatOptions opt = {})
{
    DatasetBuilder b(path.toStdString());
    loadKusnerMat(path.toStdString(), b, opt);
    return b.finish();
}

QString errorOf(const QString& path, KusnerMatOptions opt = {})
{
    try {
        load(path, opt);
    } catch (const InputError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

std::vector<float> elementOf(const Dataset& ds, std::size_t item, std::size_t e)
{
    const auto s = ds.item(item).element(e);
    return {s.begin(), s.end()};
}

std::vector<std::string> textOf(const Dataset& ds, std::size_t item)
{
    std::vector<std::string> t;
    for (std::size_t e = 0; e < ds.setSize(item); ++e)
        t.push_back(ds.elementText(static_cast<std::size_t>(ds.offsets()[item]) + e));
    return t;
}

std::vector<float> weightsOf(const Dataset& ds, std::size_t item)
{
    const ItemView v = ds.item(item);
    return {v.weights, v.weights + v.count};
}

bool joinedNotesContain(const Dataset& ds, const QString& what)
{
    for (const std::string& n : ds.notes())
        if (QString::fromStdString(n).contains(what))
            return true;
    return false;
}

QString notesOf(const Dataset& ds)
{
    QString s;
    for (const std::string& n : ds.notes())
        s += QString::fromStdString(n) + " | ";
    return s;
}

} // namespace

class TestKusnerMat : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() { QVERIFY(m_dir.isValid()); }
    void readsDocuments_data();
    void readsDocuments();
    void secondSplit();
    void termFrequencyFeature();
    void theWordsAndOtherLayouts_data();
    void theWordsAndOtherLayouts();
    void noSplitsNoWords();
    void utf16Words();
    void trainTestFamily_data();
    void trainTestFamily();
    void registeredLoader();
    void badFiles_data();
    void badFiles();
    void truncatedFiles_data();
    void truncatedFiles();
    void claimsOfWrittenFiles_data();
    void claimsOfWrittenFiles();
    void craftedClaims_data();
    void craftedClaims();

private:
    QString path(const QString& name) const { return m_dir.filePath(name); }
    QTemporaryDir m_dir;
};

void TestKusnerMat::readsDocuments_data()
{
    QTest::addColumn<int>("format");
    QTest::newRow("v5") << int(Format::V5);
    QTest::newRow("v5-zlib") << int(Format::V5Zlib);
    QTest::newRow("v7.3-hdf5") << int(Format::V73);
}

void TestKusnerMat::readsDocuments()
{
    QFETCH(int, format);
    const QString file = path(QString("bbcsport-emd_tr_te_split-%1.mat").arg(format));
    writeMat(file, xFamily(handCorpus()), Format(format));
    const Dataset ds = load(file);

    QCOMPARE(ds.size(), std::size_t(5)); // document 3 is empty and dropped
    QCOMPARE(ds.dim(), 3);
    QCOMPARE(ds.elementCount(), std::size_t(2 + 1 + 3 + 1 + 1));
    // Column j of X{i} is word j's vector.
    QCOMPARE(elementOf(ds, 0, 0), (std::vector<float>{1, 2, 3}));
    QCOMPARE(elementOf(ds, 0, 1), (std::vector<float>{4, 5, 6}));
    QCOMPARE(elementOf(ds, 1, 0), (std::vector<float>{0.5f, -1, 7}));
    QCOMPARE(elementOf(ds, 2, 2), (std::vector<float>{0, 0, 1}));
    QCOMPARE(elementOf(ds, 3, 0), (std::vector<float>{-2, -2, -2}));
    QCOMPARE(elementOf(ds, 4, 0), (std::vector<float>{9, 8, 7}));
    // Counts normalised to sum 1.
    QCOMPARE(weightsOf(ds, 0), (std::vector<float>{2.0f / 3.0f, 1.0f / 3.0f}));
    QCOMPARE(weightsOf(ds, 1), (std::vector<float>{1.0f}));
    QCOMPARE(weightsOf(ds, 2), (std::vector<float>{0.25f, 0.25f, 0.5f}));
    // Words, including a non-ASCII one.
    QVERIFY(ds.hasElementText());
    QCOMPARE(textOf(ds, 0), (std::vector<std::string>{"apple", "pie"}));
    QCOMPARE(textOf(ds, 1), (std::vector<std::string>{"café"}));
    QCOMPARE(textOf(ds, 2), (std::vector<std::string>{"a", "b", "c"}));
    QCOMPARE(textOf(ds, 4), (std::vector<std::string>{"solo"}));
    // Classes named by the label values, sorted numerically (-1 < 2 < 10, not "10" < "2").
    const LabelSet& fine = ds.requireLabelSet("fine");
    QCOMPARE(fine.classNames, (std::vector<std::string>{"-1", "2", "10"}));
    QCOMPARE(fine.labels, (std::vector<std::int32_t>{1, 0, 1, 2, 0}));
    // Split 1: TR row 1 = {1, 4}, TE row 1 = {2, 5, 3}; document 6 in neither.
    QCOMPARE(ds.splits(), (std::vector<Split>{Split::Train, Split::Test, Split::Train, Split::Test, Split::Val}));
    QVERIFY2(joinedNotesContain(ds, "dropped 1 empty document(s) of X (no words): X{3} (0 train, 1 test, 0 val)"),
             qPrintable(notesOf(ds)));
    QVERIFY2(joinedNotesContain(ds, "1 document(s) are in neither TR nor TE row 1; they are kept as Val"),
             qPrintable(notesOf(ds)));
    QCOMPARE(ds.name(), std::string("bbcsport-emd_tr_te_split-") + std::to_string(format)); // suffix not at the end
    QCOMPARE(ds.sourceFiles(), (std::vector<std::string>{file.toStdString()}));
    QCOMPARE(joinedNotesContain(ds, "MATLAB v7.3 (HDF5) file"), Format(format) == Format::V73);
}

void TestKusnerMat::secondSplit()
{
    const QString file = path("twitter-emd_tr_te_split.mat");
    writeMat(file, xFamily(handCorpus()));
    KusnerMatOptions opt;
    opt.split = 2;
    const Dataset ds = load(file, opt);
    QCOMPARE(ds.name(), std::string("twitter"));
    // TR row 2 = {2, 5}, TE row 2 = {1, 4, 3}.
    QCOMPARE(ds.splits(), (std::vector<Split>{Split::Test, Split::Train, Split::Test, Split::Train, Split::Val}));
    QCOMPARE(ds.count(Split::Train), std::size_t(2));
    QVERIFY2(joinedNotesContain(ds, "(0 train, 1 test, 0 val)"), qPrintable(notesOf(ds)));

    for (int bad : {0, 3, -1}) {
        opt.split = bad;
        const QString msg = errorOf(file, opt);
        QVERIFY2(msg.startsWith(file), qPrintable(msg));
        QVERIFY2(msg.contains("split " + QString::number(bad) + " was asked for; the file holds 2 train/test split(s)"),
                 qPrintable(msg));
    }
}

void TestKusnerMat::termFrequencyFeature()
{
    const QString file = path("recipe2-emd_tr_te_split.mat");
    writeMat(file, xFamily(handCorpus()), Format::V5Zlib);
    KusnerMatOptions opt;
    opt.appendTermFrequency = true;
    const Dataset ds = load(file, opt);
    QCOMPARE(ds.dim(), 4); // the papers' 300 + 1, here 3 + 1
    QCOMPARE(elementOf(ds, 0, 0), (std::vector<float>{1, 2, 3, 2.0f / 3.0f}));
    QCOMPARE(elementOf(ds, 0, 1), (std::vector<float>{4, 5, 6, 1.0f / 3.0f}));
    QCOMPARE(elementOf(ds, 2, 2), (std::vector<float>{0, 0, 1, 0.5f}));
    QCOMPARE(elementOf(ds, 1, 0), (std::vector<float>{0.5f, -1, 7, 1.0f}));
    QCOMPARE(weightsOf(ds, 2), (std::vector<float>{0.25f, 0.25f, 0.5f}));
    QVERIFY2(joinedNotesContain(ds, "feature 4 is the word's normalised term frequency"), qPrintable(notesOf(ds)));
}

void TestKusnerMat::theWordsAndOtherLayouts_data()
{
    QTest::addColumn<int>("format");
    QTest::newRow("v5") << int(Format::V5);
    QTest::newRow("v7.3-hdf5") << int(Format::V73);
}

void TestKusnerMat::theWordsAndOtherLayouts()
{
    // `the_words` instead of `words`, Y as an N x 1 int32 column, one split stored as row
    // vectors of int32 (TR) and a column (TE), X{i} in single precision.
    QFETCH(int, format);
    Corpus c = handCorpus();
    c.tr.clear();
    Vars v = xFamily(c, "the_words");
    replace(v, "Y", int32Column("Y", {2, -1, 10, 2, 10, -1}));
    {
        const std::vector<std::int32_t> tr{6, 1}, te{5, 2, 4};
        size_t dtr[2] = {1, 2}, dte[2] = {3, 1};
        v.push_back({"TR", Mat_VarCreate("TR", MAT_C_INT32, MAT_T_INT32, 2, dtr, const_cast<std::int32_t*>(tr.data()), 0)});
        v.push_back({"TE", Mat_VarCreate("TE", MAT_C_INT32, MAT_T_INT32, 2, dte, const_cast<std::int32_t*>(te.data()), 0)});
    }
    {
        std::vector<matvar_t*> x;
        for (const Doc& d : c.docs) {
            std::vector<float> f(d.x.begin(), d.x.end());
            size_t dims[2] = {f.empty() ? 0u : 3u, f.size() / 3};
            x.push_back(Mat_VarCreate(nullptr, MAT_C_SINGLE, MAT_T_SINGLE, 2, dims, f.empty() ? nullptr : f.data(), 0));
        }
        replace(v, "X", cellRow("X", x));
    }
    const QString file = path(QString("layouts-%1.mat").arg(format));
    writeMat(file, std::move(v), Format(format));
    const Dataset ds = load(file);
    QCOMPARE(ds.size(), std::size_t(5));
    QCOMPARE(textOf(ds, 0), (std::vector<std::string>{"apple", "pie"}));
    QCOMPARE(elementOf(ds, 1, 0), (std::vector<float>{0.5f, -1, 7}));
    QCOMPARE(ds.requireLabelSet("fine").labels, (std::vector<std::int32_t>{1, 0, 1, 2, 0}));
    // TR = {6, 1}, TE = {5, 2, 4}: documents 1..6 minus the empty 3.
    QCOMPARE(ds.splits(), (std::vector<Split>{Split::Train, Split::Test, Split::Test, Split::Test, Split::Train}));
    QVERIFY2(joinedNotesContain(ds, "split 1 of 1"), qPrintable(notesOf(ds)));
    QVERIFY2(joinedNotesContain(ds, "(0 train, 0 test, 1 val)"), qPrintable(notesOf(ds)));

    KusnerMatOptions opt;
    opt.split = 2;
    QVERIFY(errorOf(file, opt).contains("the file holds 1 train/test split(s)"));
}

void TestKusnerMat::noSplitsNoWords()
{
    Corpus c = handCorpus();
    c.tr.clear();
    const QString file = path("plain.mat");
    writeMat(file, xFamily(c, ""));
    const Dataset ds = load(file);
    QCOMPARE(ds.size(), std::size_t(5));
    QCOMPARE(ds.count(Split::Train), std::size_t(5));
    QVERIFY(!ds.hasElementText());
    QVERIFY2(joinedNotesContain(ds, "no TR / TE split: every document is Train"), qPrintable(notesOf(ds)));
    QVERIFY2(joinedNotesContain(ds, "no words field"), qPrintable(notesOf(ds)));
}

void TestKusnerMat::utf16Words()
{
    // MATLAB writes char data as UTF-16: "naïve" (U+00EF) and a surrogate pair, U+1D11E (𝄞).
    Corpus c;
    c.docs = {{3, {1, 1, 1, 2, 2, 2}, {1, 1}, {}, 1}};
    Vars v = xFamily(c);
    std::vector<matvar_t*> words{utf16String({'n', 'a', 0x00EF, 'v', 'e'}), utf16String({0xD834, 0xDD1E, '!'})};
    replace(v, "words", cellRow("words", {cellRow(nullptr, words)}));
    const QString file = path("utf16.mat");
    writeMat(file, std::move(v), Format::V5);
    const Dataset ds = load(file);
    QCOMPARE(textOf(ds, 0), (std::vector<std::string>{"na\xC3\xAFve", "\xF0\x9D\x84\x9E!"}));
}

void TestKusnerMat::trainTestFamily_data()
{
    QTest::addColumn<int>("format");
    QTest::newRow("v5-zlib") << int(Format::V5Zlib);
    QTest::newRow("v7.3-hdf5") << int(Format::V73);
}

void TestKusnerMat::trainTestFamily()
{
    // ohsumed / r8 / 20news layout: xtr, xte, BOW_xtr, BOW_xte, ytr, yte, words_tr, words_te.
    QFETCH(int, format);
    const Doc tr1{2, {1, 2, 3, 4}, {1, 3}, {"x", "y"}, 7};
    const Doc tr2{2, {5, 6}, {2}, {"z"}, 3};
    const Doc te1{2, {-1, -2}, {5}, {"w"}, 7};
    const Doc empty{2, {}, {}, {}, 3};
    auto half = [](const std::vector<Doc>& docs, const std::string& s, Vars& out) {
        std::vector<matvar_t*> x, bow, words;
        std::vector<double> y;
        for (const Doc& d : docs) {
            x.push_back(docMatrix(d));
            bow.push_back(numeric(nullptr, d.counts.empty() ? 0 : 1, d.counts.size(), d.counts));
            words.push_back(wordsCell(d));
            y.push_back(d.label);
        }
        out.push_back({"x" + s, cellRow(("x" + s).c_str(), x)});
        out.push_back({"BOW_x" + s, cellRow(("BOW_x" + s).c_str(), bow)});
        out.push_back({"y" + s, numeric(("y" + s).c_str(), 1, y.size(), y)});
        out.push_back({"words_" + s, cellRow(("words_" + s).c_str(), words)});
    };
    Vars v;
    half({tr1, tr2}, "tr", v);
    half({empty, te1}, "te", v);
    const QString file = path(QString("ohsumed_tr_te-%1.mat").arg(format));
    writeMat(file, std::move(v), Format(format));
    const Dataset ds = load(file);
    QCOMPARE(ds.size(), std::size_t(3));
    QCOMPARE(ds.dim(), 2);
    QCOMPARE(ds.splits(), (std::vector<Split>{Split::Train, Split::Train, Split::Test}));
    QCOMPARE(elementOf(ds, 0, 1), (std::vector<float>{3, 4}));
    QCOMPARE(elementOf(ds, 2, 0), (std::vector<float>{-1, -2}));
    QCOMPARE(weightsOf(ds, 0), (std::vector<float>{0.25f, 0.75f}));
    QCOMPARE(textOf(ds, 0), (std::vector<std::string>{"x", "y"}));
    QCOMPARE(textOf(ds, 2), (std::vector<std::string>{"w"}));
    const LabelSet& fine = ds.requireLabelSet("fine");
    QCOMPARE(fine.classNames, (std::vector<std::string>{"3", "7"}));
    QCOMPARE(fine.labels, (std::vector<std::int32_t>{1, 0, 1}));
    QVERIFY2(joinedNotesContain(ds, "dropped 1 empty document(s) of xte (no words): xte{1} (0 train, 1 test, 0 val)"),
             qPrintable(notesOf(ds)));
}

void TestKusnerMat::registeredLoader()
{
    const QString file = path("classic-emd_tr_te_split.mat");
    writeMat(file, xFamily(handCorpus()));
    setscope::plugin::Registry r;
    setscope::builtins::registerBuiltins(r);
    QCOMPARE(r.loaderFor(file.toStdString()).name, std::string("wmd-mat"));
    const Dataset ds = catalog::openDataset(file.toStdString(), r);
    QCOMPARE(ds.size(), std::size_t(5));
    QCOMPARE(ds.name(), std::string("classic"));
    // Options after the path: the 301st-style frequency feature, the split row, typos refused.
    const Dataset tf = catalog::openDataset(file.toStdString() + "?tf=1,split=1", r);
    QCOMPARE(tf.dim(), ds.dim() + 1);
    QCOMPARE(tf.item(0).element(0)[ds.dim()], tf.item(0).weights[0]);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, catalog::openDataset(file.toStdString() + "?splitt=2", r));
    // split=2 reaches the loader: TR row 2 = {2, 5}, TE row 2 = {1, 4, 3} (3 dropped: empty).
    const Dataset second = catalog::openDataset(file.toStdString() + "?split=2", r);
    QCOMPARE(second.splits(), (std::vector<Split>{Split::Test, Split::Train, Split::Test, Split::Train, Split::Val}));
    // The declared defaults are split 1 and no tf: the same dataset as without options.
    QCOMPARE(catalog::openDataset(file.toStdString() + "?split=1,tf=0", r).values(), ds.values());
    QCOMPARE(ds.splits(), (std::vector<Split>{Split::Train, Split::Test, Split::Train, Split::Test, Split::Val}));
    auto error = [&](const std::string& options) {
        try {
            catalog::openDataset(file.toStdString() + "?" + options, r);
        } catch (const std::invalid_argument& e) {
            return QString(e.what());
        }
        return QString("no error");
    };
    QVERIFY2(error("split=0").endsWith("loader wmd-mat: option split=0: outside [1, 1000]"), qPrintable(error("split=0")));
    QVERIFY2(error("splitt=2").endsWith("loader wmd-mat has no option 'splitt' (it has: split, tf)"),
             qPrintable(error("splitt=2")));
    QVERIFY2(error("tf=2").contains("option tf=2: not a flag"), qPrintable(error("tf=2")));
}

void TestKusnerMat::badFiles_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("expect");
    auto row = [](const char* kind, const char* expect) { QTest::newRow(kind) << QString(kind) << QString(expect); };
    row("missing BOW_X", "missing field(s) BOW_X of a Kusner WMD file");
    row("missing Y", "the file holds: X, BOW_X, words, TR, TE");
    row("no known field", "not a Kusner WMD document file: expected fields X, BOW_X, Y");
    row("missing xte", "missing field(s) xte, BOW_xte, yte");
    row("TR without TE", "has TR but no TE");
    row("X and Y lengths", "(field Y): holds 5 labels but X holds 6 documents");
    row("BOW_X documents", "(field BOW_X): holds 5 documents but X holds 6");
    row("words documents", "(field words): holds 7 documents but X holds 6");
    row("columns vs counts", "(BOW_X{4}): holds 2 counts but X{4} has 3 word columns of document 4");
    row("counts without words", "(BOW_X{3}): holds 1 counts but X{3} has no words");
    row("words count", "(words{1}): holds 1 words but X{1} has 2 word columns of document 1");
    row("word not a string", "(words{4}{2}): is a numeric matrix, expected a string");
    row("index 0", "(TR(1,1)): document index 0 is outside 1..6 (indices are 1-based");
    row("index above N", "(TE(1,2)): document index 7 is outside 1..6");
    row("non-integer index", "(TR(1,2)): 1.5 is not an integer document index");
    row("NaN index", "(TE(1,1)): nan is not an integer document index");
    row("index in both", "(TE(1,1)): document 1 is in both TR and TE (row 1)");
    row("duplicate index", "(TR(1,2)): document 1 appears twice in row 1 of TR");
    row("split rows differ", "(field TE): holds 1 splits (rows) but TR holds 2");
    row("NaN in X", "(X{4}): value nan at row 2, column 3 (word 3 of document 4)");
    row("inf in X", "(X{1}): value inf at row 1, column 1");
    row("1e20 in X", "(X{1}): value 1e+20, beyond \u00b15.33e+18 (in 3-d data a squared distance would overflow float) at row 1");
    row("inf count", "(BOW_X{2}): count 1 of document 2 is inf");
    row("negative count", "(BOW_X{1}): count 2 of document 1 is -1; counts must be finite and non-negative");
    row("zero counts", "(BOW_X{5}): the counts of document 5 sum to 0");
    row("non-integer label", "(Y(2)): label 1.5 of document 2 is not an integer");
    row("NaN label", "(Y(6)): label nan of document 6 is not an integer");
    row("wrong dimension", "(X{4}): has word vectors of dimension 2 (rows) but X{1} has 3");
    row("X not a cell", "(field X): is a numeric matrix, expected a cell array with one entry per document");
    row("X entry is text", "(X{2}): is a char array, expected a matrix of double word vectors");
    row("all empty", "every document is empty");
    row("not a mat file", "(byte offset 126): not a MATLAB v5/v7/v7.3 MAT-file");
    row("empty file", "(byte offset 0): too short for a MAT-file");
    row("no such file", "no such file");
    // Crafted dimensions (2^31 - 1)^3 x 8: refused by the size-claim walk (MatV5Check)
    // before matio reads the file (matio 1.5.23 would refuse the product too), as an input
    // error naming the file, the variable and the offset (not std::bad_alloc).
    row("dimensions overflow 64 bits", "(variable 1 (byte offset 176)): dimensions 2147483647 x 2147483647 x 2147483647 x 8 overflow 64 bits");
}

void TestKusnerMat::badFiles()
{
    QFETCH(QString, kind);
    QFETCH(QString, expect);
    const QString file = path("bad-" + QString(kind).replace(' ', '_') + ".mat");
    Corpus c = handCorpus();
    // Rows of single-row TR / TE keep the index cases simple: TR = {1, 4}, TE = {2, 5, 3}.
    c.tr.resize(1);
    c.te.resize(1);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    std::function<void(Vars&)> edit;
    bool raw = false;
    if (kind == "missing BOW_X")
        edit = [](Vars& v) { remove(v, "BOW_X"); };
    else if (kind == "missing Y")
        edit = [](Vars& v) { remove(v, "Y"); };
    else if (kind == "no known field")
        edit = [](Vars& v) { remove(v, "X"); };
    else if (kind == "missing xte")
        edit = [](Vars& v) {
            remove(v, "X");
            replace(v, "xtr", cellRow("xtr", {numeric(nullptr, 1, 1, {1})}));
            replace(v, "BOW_xtr", cellRow("BOW_xtr", {numeric(nullptr, 1, 1, {1})}));
            replace(v, "ytr", numeric("ytr", 1, 1, {1}));
        };
    else if (kind == "TR without TE")
        edit = [](Vars& v) { remove(v, "TE"); };
    else if (kind == "X and Y lengths")
        edit = [](Vars& v) { replace(v, "Y", numeric("Y", 1, 5, {1, 2, 3, 4, 5})); };
    else if (kind == "BOW_X documents")
        edit = [](Vars& v) {
            std::vector<matvar_t*> b;
            for (int i = 0; i < 5; ++i)
                b.push_back(numeric(nullptr, 1, 1, {1}));
            replace(v, "BOW_X", cellRow("BOW_X", b));
        };
    else if (kind == "words documents")
        edit = [](Vars& v) {
            std::vector<matvar_t*> w;
            for (int i = 0; i < 7; ++i)
                w.push_back(cellRow(nullptr, {utf8String("w")}));
            replace(v, "words", cellRow("words", w));
        };
    else if (kind == "columns vs counts")
        c.docs[3].counts = {1, 1};
    else if (kind == "counts without words")
        c.docs[2].counts = {1};
    else if (kind == "words count")
        c.docs[0].words = {"apple"};
    else if (kind == "word not a string")
        edit = [](Vars& v) {
            std::vector<matvar_t*> all;
            const Corpus h = handCorpus();
            for (std::size_t i = 0; i < h.docs.size(); ++i)
                all.push_back(i == 3 ? cellRow(nullptr, {utf8String("a"), numeric(nullptr, 1, 1, {5}), utf8String("c")})
                                     : wordsCell(h.docs[i]));
            replace(v, "words", cellRow("words", all));
        };
    else if (kind == "index 0")
        c.tr[0][0] = 0;
    else if (kind == "index above N")
        c.te[0][1] = 7;
    else if (kind == "non-integer index")
        c.tr[0][1] = 1.5;
    else if (kind == "NaN index")
        c.te[0][0] = nan;
    else if (kind == "index in both")
        c.te[0][0] = 1;
    else if (kind == "duplicate index")
        c.tr[0][1] = 1;
    else if (kind == "split rows differ")
        c.tr = handCorpus().tr;
    else if (kind == "NaN in X")
        c.docs[3].x[7] = nan; // column 3 (word c), row 2
    else if (kind == "inf in X")
        c.docs[0].x[0] = inf;
    else if (kind == "1e20 in X")
        c.docs[0].x[0] = 1e20;
    else if (kind == "inf count")
        c.docs[1].counts[0] = inf;
    else if (kind == "negative count")
        c.docs[0].counts[1] = -1;
    else if (kind == "zero counts")
        c.docs[4].counts[0] = 0;
    else if (kind == "non-integer label")
        c.docs[1].label = 1.5;
    else if (kind == "NaN label")
        c.docs[5].label = nan;
    else if (kind == "wrong dimension")
        c.docs[3] = {2, {1, 0, 0, 1, 1, 1}, {1, 1, 2}, {"a", "b", "c"}, 2};
    else if (kind == "X not a cell")
        edit = [](Vars& v) { replace(v, "X", numeric("X", 3, 2, {1, 2, 3, 4, 5, 6})); };
    else if (kind == "X entry is text")
        edit = [](Vars& v) {
            std::vector<matvar_t*> x;
            const Corpus h = handCorpus();
            for (std::size_t i = 0; i < h.docs.size(); ++i)
                x.push_back(i == 1 ? utf8String("abc") : docMatrix(h.docs[i]));
            replace(v, "X", cellRow("X", x));
        };
    else if (kind == "all empty")
        for (Doc& d : c.docs)
            d = {3, {}, {}, {}, 1};
    else
        raw = true;

    if (raw) {
        std::ofstream f(file.toStdString(), std::ios::binary);
        if (kind == "not a mat file")
            f << std::string(300, 'x') << "\n";
        else if (kind == "no such file")
            std::filesystem::remove(file.toStdString());
        else if (kind == "dimensions overflow 64 bits")
            f << craftedV5("Y", {2147483647, 2147483647, 2147483647, 8});
    } else {
        Vars v = xFamily(c);
        if (edit)
            edit(v);
        writeMat(file, std::move(v));
    }
    const QString msg = errorOf(file);
    QVERIFY2(!msg.isEmpty(), "bad file accepted");
    QVERIFY2(msg.startsWith(file), qPrintable(msg)); // names the file
    QVERIFY2(msg.contains(expect), qPrintable(msg));
}

void TestKusnerMat::truncatedFiles_data()
{
    QTest::addColumn<int>("format");
    QTest::addColumn<double>("keep");
    QTest::addColumn<bool>("overwrite"); ///< false: cut the file there; true: overwrite 64 bytes there
    for (Format f : {Format::V5, Format::V5Zlib, Format::V73}) {
        const char* name = f == Format::V5 ? "v5" : f == Format::V5Zlib ? "v5-zlib" : "v7.3";
        for (double keep : {0.3, 0.6, 0.9, 0.99})
            QTest::newRow(qPrintable(QString("%1 cut at %2").arg(name).arg(keep))) << int(f) << keep << false;
    }
    // Damaged, not short: garbage inside the compressed stream of X.
    QTest::newRow("v5-zlib garbage at 0.3") << int(Format::V5Zlib) << 0.3 << true;
}

void TestKusnerMat::truncatedFiles()
{
    QFETCH(int, format);
    QFETCH(double, keep);
    QFETCH(bool, overwrite);
    // Enough documents that every field spans many bytes (v7.3 files start with a large
    // HDF5 superblock and B-trees).
    Corpus c;
    for (int i = 0; i < 40; ++i) {
        Doc d{3, {}, {}, {}, double(i % 3)};
        for (int w = 0; w < 1 + i % 5; ++w) {
            d.x.insert(d.x.end(), {double(i), double(w), 1.0});
            d.counts.push_back(1 + w);
            d.words.push_back(std::string("w").append(std::to_string(i)).append("_").append(std::to_string(w)));
        }
        c.docs.push_back(d);
    }
    c.tr = {{1, 2, 3}};
    c.te = {{4, 5, 6}};
    const QString full = path(QString("full-%1.mat").arg(format));
    writeMat(full, xFamily(c), Format(format));
    QVERIFY(load(full).size() == 40); // the untruncated file is fine

    QFile f(full);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QByteArray bytes = f.readAll();
    const auto at = static_cast<qsizetype>(bytes.size() * keep);
    if (overwrite)
        bytes.replace(at, 64, QByteArray(64, '\xA5'));
    else
        bytes.truncate(at);
    const QString cut = path(QString("cut-%1-%2.mat").arg(format).arg(keep));
    QFile out(cut);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(bytes);
    out.close();
    const QString msg = errorOf(cut);
    QVERIFY2(!msg.isEmpty(), "damaged file accepted");
    QVERIFY2(msg.startsWith(cut), qPrintable(msg));
    QVERIFY2(msg.contains("truncated or damaged"), qPrintable(msg));
}

void TestKusnerMat::claimsOfWrittenFiles_data()
{
    QTest::addColumn<int>("format");
    QTest::newRow("v5") << int(Format::V5);
    QTest::newRow("v5-zlib") << int(Format::V5Zlib);
}

/// The walk accepts what matio writes (strings, empty cells, nested cells, compressed
/// variables) and counts the same variables, arrays and elements as matio's own reading.
void TestKusnerMat::claimsOfWrittenFiles()
{
    QFETCH(int, format);
    const QString file = path(QString("claims-%1.mat").arg(format));
    writeMat(file, xFamily(handCorpus()), static_cast<Format>(format));
    const MatClaims c = checkMatV5Claims(file.toStdString(), std::uint64_t(1) << 30);
    QVERIFY(c.checked);
    std::uint64_t variables = 0, arrays = 0, elements = 0;
    countWithMatio(file, variables, arrays, elements);
    QCOMPARE(c.variables, variables);
    QCOMPARE(c.arrays, arrays);
    QCOMPARE(c.elements, elements);
    QVERIFY(c.memoryBytes >= 8 * elements); // at least the doubles
    // The v7.3 (HDF5) file is left to HDF5: not walked.
    const QString h5 = path("claims.mat73");
    writeMat(h5, xFamily(handCorpus()), Format::V73);
    QVERIFY(!checkMatV5Claims(h5.toStdString(), std::uint64_t(1) << 30).checked);
}

void TestKusnerMat::craftedClaims_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("expect");
    auto row = [](const char* kind, const char* expect) { QTest::newRow(kind) << QString(kind) << QString(expect); };
    row("10^12 cells", "(variable 'X' (byte offset 184)): claims 1000000 x 1000000 = 1000000000000 cells but only 16 bytes follow");
    row("10^12 cells, compressed", "claims 1000000 x 1000000 = 1000000000000 cells but only 16 bytes follow");
    row("cell inside a cell", "(X{2} (byte offset 240)): claims 1000000 x 1000000 = 1000000000000 cells");
    row("elements without bytes", "(variable 'Y' (byte offset 192)): claims 1000 x 1000 = 1000000 elements but holds 16 bytes of 8-byte values");
    row("variable beyond the end", "(variable 1 (byte offset 128)): the file ends inside");
    row("length beyond the end", "claims 1000000000 bytes but only 64 follow; the file is truncated");
    row("negative dimension", "dimension 2 is negative (-5)");
    row("compressed stream cut", "truncated or damaged");
    row("nested 100 deep", "arrays nested more than 64 deep");
    row("over the memory budget", "more memory than the budget of 1 MiB");
}

/// Crafted headers that claim more than the file holds are refused by the walk, naming the
/// file, the variable and the offset, before matio reads anything: under a 64 MiB cap on the
/// address space, so an allocation proportional to a claim would fail the test.
void TestKusnerMat::craftedClaims()
{
    QFETCH(QString, kind);
    QFETCH(QString, expect);
    const QString file = path("crafted-" + QString(kind).replace(' ', '_').replace('^', 'e') + ".mat");
    const std::string twoCells = element(14, "") + element(14, ""); // two empty cells: 16 bytes
    std::string bytes;
    std::uint64_t budget = std::uint64_t(1) << 30;
    if (kind == "10^12 cells")
        bytes = matFile({arrayElement(1, {1000000, 1000000}, "X", twoCells)});
    else if (kind == "10^12 cells, compressed")
        bytes = matFile({compressed(arrayElement(1, {1000000, 1000000}, "X", twoCells))});
    else if (kind == "cell inside a cell")
        bytes = matFile({arrayElement(1, {1, 2}, "X", element(14, "") + arrayElement(1, {1000000, 1000000}, "", twoCells))});
    else if (kind == "elements without bytes")
        bytes = matFile({arrayElement(6, {1000, 1000}, "Y", doubles(2))});
    else if (kind == "variable beyond the end")
        bytes = matFile({}) + "\x0e\x00\x00";
    else if (kind == "length beyond the end") {
        bytes = matFile({arrayElement(6, {1, 1}, "Y", doubles(1))});
        const std::uint32_t huge = 1000000000;
        std::memcpy(bytes.data() + 128 + 4, &huge, 4);
    } else if (kind == "negative dimension")
        bytes = matFile({arrayElement(6, {1, -5}, "Y", doubles(0))});
    else if (kind == "compressed stream cut") {
        std::vector<std::string> cells;
        std::string content;
        for (int i = 0; i < 50; ++i)
            content += arrayElement(6, {1, 8}, "", doubles(8));
        bytes = matFile({compressed(arrayElement(1, {1, 50}, "X", content))});
        bytes.resize(bytes.size() - 40); // the stream's end and the length's promise no longer meet
        const auto z = static_cast<std::uint32_t>(bytes.size() - 128 - 8);
        std::memcpy(bytes.data() + 128 + 4, &z, 4);
    } else if (kind == "nested 100 deep") {
        std::string v = arrayElement(6, {1, 1}, "", doubles(1));
        for (int i = 0; i < 100; ++i)
            v = arrayElement(1, {1, 1}, i == 99 ? "X" : "", v);
        bytes = matFile({v});
    } else if (kind == "over the memory budget") {
        bytes = matFile({compressed(arrayElement(6, {1000, 200}, "Y", doubles(200000)))}); // 1.6 MB of zeros
        budget = std::uint64_t(1) << 20;
    }
    {
        std::ofstream out(file.toStdString(), std::ios::binary);
        out << bytes;
    }
    QVERIFY2(QFileInfo(file).size() < 8192 || kind == "compressed stream cut", "a crafted file is small");

    QString msg;
    QElapsedTimer timer;
    timer.start();
    {
        setscope::testing::AllocationCap cap(std::uint64_t(64) << 20);
        try {
            checkMatV5Claims(file.toStdString(), budget);
        } catch (const InputError& e) {
            msg = QString::fromStdString(e.what());
        }
    }
    qInfo("%s: refused in %.1f ms: %s", qPrintable(kind), timer.nsecsElapsed() / 1e6, qPrintable(msg));
    QVERIFY2(!msg.isEmpty(), "crafted file accepted");
    QVERIFY2(msg.startsWith(file), qPrintable(msg));
    QVERIFY2(msg.contains(expect), qPrintable(msg));
    // And through the loader, which checks before matio opens the file (for the budget case
    // the loader's budget is the machine's, which the file fits).
    if (kind != "over the memory budget") {
        setscope::testing::AllocationCap cap(std::uint64_t(256) << 20);
        const QString viaLoader = errorOf(file);
        QVERIFY2(viaLoader.startsWith(file), qPrintable(viaLoader));
    }
}

QTEST_GUILESS_MAIN(TestKusnerMat)
#include "tst_KusnerMat.moc"
