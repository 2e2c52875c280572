// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// util::writeFileAtomically: the target holds the old or the new content, never a mix, and no
// part file is left behind after a failure.
#include "core/util/AtomicFile.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>

using namespace setscope;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace

class TestAtomicFile : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void writesNewFile();
    void replacesExistingFile();
    void throwingFillKeepsOldContent();
    void unwritableFolderNamesThePath();
    void fullDiskKeepsOldContent();
};

void TestAtomicFile::writesNewFile()
{
    QTemporaryDir dir;
    const fs::path p = fs::path(dir.path().toStdString()) / "a.csv";
    util::writeFileAtomically(p, [](std::ostream& out) { out << "item,label\n0,\"a\"\n"; });
    QCOMPARE(slurp(p), std::string("item,label\n0,\"a\"\n"));
    QVERIFY(!fs::exists(fs::path(p) += ".part"));
}

void TestAtomicFile::replacesExistingFile()
{
    QTemporaryDir dir;
    const fs::path p = fs::path(dir.path().toStdString()) / "a.txt";
    std::ofstream(p) << "old content that is longer than the new one";
    util::writeFileAtomically(p, [](std::ostream& out) { out << "new"; });
    QCOMPARE(slurp(p), std::string("new"));
}

void TestAtomicFile::throwingFillKeepsOldContent()
{
    QTemporaryDir dir;
    const fs::path p = fs::path(dir.path().toStdString()) / "a.txt";
    std::ofstream(p) << "old";
    QVERIFY_THROWS_EXCEPTION(std::logic_error, util::writeFileAtomically(p, [](std::ostream& out) {
                                 out << "half of the new";
                                 throw std::logic_error("cancelled half way");
                             }));
    QCOMPARE(slurp(p), std::string("old"));
    QVERIFY(!fs::exists(fs::path(p) += ".part"));
}

void TestAtomicFile::unwritableFolderNamesThePath()
{
    const fs::path p = "/nonexistent-folder-of-setscope/x.csv";
    try {
        util::writeFileAtomically(p, [](std::ostream& out) { out << "x"; });
        QFAIL("no exception for a folder that does not exist");
    } catch (const std::runtime_error& e) {
        QVERIFY2(std::string(e.what()).find(p.string()) != std::string::npos, e.what());
    }
}

// /dev/full accepts the open and fails every write with ENOSPC: the folder trick does not
// apply (the part file lives next to the target), so write into a folder on a full device
// only where the test can make one; /dev/full itself shows the stream error path.
void TestAtomicFile::fullDiskKeepsOldContent()
{
    if (!fs::exists("/dev/full"))
        QSKIP("no /dev/full on this system");
    QTemporaryDir dir;
    const fs::path target = fs::path(dir.path().toStdString()) / "labels.csv";
    std::ofstream(target) << "old";
    // The part file is a symlink to /dev/full: the writes fail as on a full disk.
    fs::create_symlink("/dev/full", fs::path(target) += ".part");
    try {
        util::writeFileAtomically(target, [](std::ostream& out) {
            for (int i = 0; i < 100000; ++i)
                out << "0123456789";
        });
        QFAIL("no exception when every write fails");
    } catch (const std::runtime_error& e) {
        QVERIFY2(std::string(e.what()).find("labels.csv") != std::string::npos, e.what());
    }
    QCOMPARE(slurp(target), std::string("old"));
    QVERIFY(!fs::exists(fs::symlink_status(fs::path(target) += ".part")));
}

QTEST_GUILESS_MAIN(TestAtomicFile)
#include "tst_AtomicFile.moc"
