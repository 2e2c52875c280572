// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Exports when the disk fails (workspace::writeEmbeddingsNpy / writeEmbeddingsTsv /
// writeMetricRowsCsv): every write, fsync and rename failing in turn through the fault seam,
// and a real full disk (a tmpfs, root only). The export fails naming the file and the cause,
// the previous export is byte for byte what it was, no part file is left, and the next export
// writes what is expected (values worked out here).
#include "core/data/Dataset.h"
#include "core/util/Faults.h"
#include "core/workspace/Export.h"

#include "tests/support/Tmpfs.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

using namespace setscope;
namespace fs = std::filesystem;
using util::faults::Call;

namespace {

/// Three items of one point each in 2-D, labelled a, b, a.
data::Dataset tiny()
{
    data::DatasetBuilder b("tiny");
    b.setDimension(2);
    b.defineLabelSet("fine", {"a", "b"});
    for (int i = 0; i < 3; ++i) {
        const float p[2] = {float(i), float(-i)};
        const float w = 1.0f;
        b.addItem(p, &w, 1, data::Split::Train);
        b.setLabel("fine", static_cast<std::size_t>(i), i == 1 ? 1 : 0);
    }
    return b.finish();
}

std::map<std::string, std::string> snapshot(const fs::path& dir)
{
    std::map<std::string, std::string> out;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.is_regular_file() && e.path().filename() != "filler") {
            std::ifstream in(e.path(), std::ios::binary);
            std::ostringstream s;
            s << in.rdbuf();
            out[e.path().filename().string()] = s.str();
        }
    return out;
}

/// The .npy bytes of a float32 2-D array, built here from the format's definition (version 1.0,
/// header padded with spaces to a multiple of 64 bytes, ending in a newline).
std::string npy(std::size_t rows, std::size_t cols, const std::vector<float>& v)
{
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(rows) + ", " +
                         std::to_string(cols) + "), }";
    while ((10 + header.size() + 1) % 64 != 0)
        header += ' ';
    header += '\n';
    std::string out = std::string("\x93NUMPY\x01\x00", 8);
    out += static_cast<char>(header.size() & 0xff);
    out += static_cast<char>(header.size() >> 8);
    out += header;
    out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
    return out;
}

} // namespace

class TestExportFaults : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyCallFailsInTurn_data();
    void everyCallFailsInTurn();
    void fullDisk();
};

void TestExportFaults::everyCallFailsInTurn_data()
{
    QTest::addColumn<int>("kind"); // 0 npy + csv, 1 tsv pair, 2 runs csv
    QTest::newRow("npy") << 0;
    QTest::newRow("tsv") << 1;
    QTest::newRow("runs csv") << 2;
}

void TestExportFaults::everyCallFailsInTurn()
{
    QFETCH(int, kind);
    QTemporaryDir tmp;
    const fs::path dir = tmp.path().toStdString();
    const data::Dataset ds = tiny();
    const workspace::EmbeddingTable first{{0, 1, 2}, 2, {1, 2, 3, 4, 5, 6}};
    const workspace::EmbeddingTable second{{0, 2}, 2, {7, 8, 9, 10}};
    const std::vector<workspace::MetricRow> rows1{{1, 1, "finished", "t0", 1, 10, "knn", 0.5}};
    const std::vector<workspace::MetricRow> rows2{{2, 1, "failed", "t1", 2, 20, "knn", 0.25}};
    const auto exportOnce = [&](bool later) {
        const auto& t = later ? second : first;
        if (kind == 0)
            workspace::writeEmbeddingsNpy((dir / "emb.npy").string(), ds, t);
        else if (kind == 1)
            workspace::writeEmbeddingsTsv(dir.string(), ds, t);
        else
            workspace::writeMetricRowsCsv((dir / "runs.csv").string(), later ? rows2 : rows1);
    };
    exportOnce(false);
    const auto before = snapshot(dir);
    if (kind == 0) {
        QCOMPARE(before.at("emb.npy"), npy(3, 2, first.vectors));
        QCOMPARE(before.at("emb.csv"), std::string("index,split,fine\n0,train,\"a\"\n1,train,\"b\"\n2,train,\"a\"\n"));
    } else if (kind == 1) {
        QCOMPARE(before.at("vectors.tsv"), std::string("1\t2\n3\t4\n5\t6\n"));
        QCOMPARE(before.at("metadata.tsv"), std::string("index\tsplit\tfine\n0\ttrain\ta\n1\ttrain\tb\n2\ttrain\ta\n"));
    } else {
        QCOMPARE(before.at("runs.csv"), std::string("run,dataset,status,started,epoch,step,metric,value\n"
                                                    "1,1,\"finished\",\"t0\",1,10,\"knn\",0.5\n"));
    }
    const std::size_t files = kind == 2 ? 1 : 2;
    for (int c = 0; c < 3; ++c) {
        // One write (small files: one buffer), one fsync and one rename per file.
        for (std::size_t k = 1; k <= files; ++k) {
            const int err = c == 0 ? ENOSPC : EIO;
            exportOnce(false); // the previous export again (a fault at the second file left the first new)
            QVERIFY(snapshot(dir) == before);
            std::string e;
            {
                util::faults::Armed fault(Call(c), static_cast<std::int64_t>(k), err, dir.string());
                try {
                    exportOnce(true);
                } catch (const std::exception& x) {
                    e = x.what();
                }
                QVERIFY(util::faults::fired());
            }
            const std::string where = std::to_string(c) + "/" + std::to_string(k) + ": " + e;
            QVERIFY2(e.find(dir.string()) != std::string::npos, where.c_str());
            QVERIFY2(e.find(std::strerror(err)) != std::string::npos, where.c_str());
            if (k == 1) // the first file failed: nothing of the new export is there
                QVERIFY2(snapshot(dir) == before, where.c_str());
            // A failure at the second file leaves the first new and the second old; never a
            // part file and never a mix inside a file.
            for (const auto& [name, bytes] : snapshot(dir))
                QVERIFY2(name.find(".part") == std::string::npos, (where + " left " + name).c_str());
        }
    }
    exportOnce(true);
    const auto after = snapshot(dir);
    QCOMPARE(after.size(), files);
    if (kind == 0)
        QCOMPARE(after.at("emb.npy"), npy(2, 2, second.vectors));
    else if (kind == 1)
        QCOMPARE(after.at("vectors.tsv"), std::string("7\t8\n9\t10\n"));
    else
        QCOMPARE(after.at("runs.csv"), std::string("run,dataset,status,started,epoch,step,metric,value\n"
                                                   "2,1,\"failed\",\"t1\",2,20,\"knn\",0.25\n"));
}

void TestExportFaults::fullDisk()
{
    testutil::Tmpfs disk(256 * 1024);
    if (!disk.ok())
        QSKIP(disk.reason());
    const data::Dataset ds = tiny();
    const fs::path p = disk.path() / "emb.npy";
    workspace::writeEmbeddingsNpy(p.string(), ds, {{0, 1, 2}, 2, {1, 2, 3, 4, 5, 6}});
    const auto before = snapshot(disk.path());
    QVERIFY(disk.fill());
    try {
        workspace::writeEmbeddingsNpy(p.string(), ds, {{0, 1, 2}, 2, {6, 5, 4, 3, 2, 1}});
        QFAIL("an export to a full disk reported success");
    } catch (const std::exception& e) {
        QVERIFY2(QString(e.what()).contains("No space left on device"), e.what());
        QVERIFY2(QString(e.what()).contains(QString::fromStdString(p.string())), e.what());
    }
    QVERIFY(snapshot(disk.path()) == before);
    disk.release();
    workspace::writeEmbeddingsNpy(p.string(), ds, {{0, 1, 2}, 2, {6, 5, 4, 3, 2, 1}});
    QCOMPARE(snapshot(disk.path()).at("emb.npy"), npy(3, 2, {6, 5, 4, 3, 2, 1}));
}

QTEST_GUILESS_MAIN(TestExportFaults)
#include "tst_ExportFaults.moc"
