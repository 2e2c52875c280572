// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The project store on a disk that fills up (a small tmpfs; root only). SQLite writes through
// its own VFS, not setscope's fault seam, so this is the real case only: an edit that does not
// fit fails with a ProjectError naming the project file and SQLite's "database or disk is full",
// the project file is byte for byte what it was, the labels read back are the edits that
// succeeded (replayed here on a plain vector), and once there is room the next edit works and
// everything survives closing and reopening.
#include "core/project/ProjectStore.h"

#include "tests/support/Tmpfs.h"

#include <QtTest>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace setscope;
namespace fs = std::filesystem;

namespace {

constexpr std::int64_t kItems = 20000;

std::string slurp(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// Edit k: every item i with i % 7 == k % 7 gets class (i + k) % 3. Thousands of rows, so the
/// edit needs pages the full disk does not have.
std::vector<project::LabelChange> edit(std::int64_t k)
{
    std::vector<project::LabelChange> out;
    for (std::int64_t i = k % 7; i < kItems; i += 7)
        out.push_back({i, static_cast<std::int32_t>((i + k) % 3)});
    return out;
}

void replay(std::vector<std::int32_t>& labels, std::int64_t k)
{
    for (const auto& c : edit(k))
        labels[static_cast<std::size_t>(c.item)] = c.label;
}

std::vector<std::string> strays(const fs::path& dir)
{
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir)) {
        const std::string n = e.path().filename().string();
        if (n != "filler" && n.rfind("p.setscope", 0) != 0)
            out.push_back(n);
    }
    return out;
}

} // namespace

class TestProjectStoreFull : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void editOnAFullDisk();
};

void TestProjectStoreFull::editOnAFullDisk()
{
    testutil::Tmpfs disk(8 << 20);
    if (!disk.ok())
        QSKIP(disk.reason());
    const fs::path path = disk.path() / "p.setscope";
    std::vector<std::int32_t> expected(kItems, 0);
    std::int64_t labelSet = 0;
    {
        auto store = project::ProjectStore::open(path.string());
        const std::int64_t ds = store->addDataset("d", "/nowhere/d", "hash", kItems);
        labelSet = store->createLabelSet(ds, "fine", {"a", "b", "c"}, expected);
        store->applyEdit(labelSet, edit(1), "one");
        replay(expected, 1);
    }
    // Open again (the WAL folded into the file on close), then fill the disk.
    auto store = project::ProjectStore::open(path.string());
    QCOMPARE(store->labels(labelSet), expected);
    const std::string before = slurp(path);
    QVERIFY(disk.fill());
    try {
        store->applyEdit(labelSet, edit(2), "two");
        QFAIL("an edit on a full disk reported success");
    } catch (const project::ProjectError& e) {
        const QString msg = e.what();
        QVERIFY2(msg.contains(QString::fromStdString(path.string())), qPrintable(msg));
        QVERIFY2(msg.contains("disk is full"), qPrintable(msg));
    }
    QVERIFY(slurp(path) == before);
    QCOMPARE(store->labels(labelSet), expected); // the failed edit is not half there
    QCOMPARE(store->history(labelSet).size(), std::size_t(1));
    QCOMPARE(strays(disk.path()), std::vector<std::string>{});

    disk.release();
    store->applyEdit(labelSet, edit(3), "three");
    replay(expected, 3);
    QCOMPARE(store->labels(labelSet), expected);
    QVERIFY(store->integrityCheck());
    store.reset();
    auto again = project::ProjectStore::open(path.string());
    QCOMPARE(again->labels(labelSet), expected);
    QCOMPARE(again->history(labelSet).size(), std::size_t(2));
    QVERIFY(again->integrityCheck());
}

QTEST_GUILESS_MAIN(TestProjectStoreFull)
#include "tst_ProjectStoreFull.moc"
