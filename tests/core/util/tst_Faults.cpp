// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The fault seam (util::faults) and util::writeFileAtomically through it: every write, the fsync
// and the rename failing in turn leave the previous file byte for byte, no part file, and a
// message naming the file and the cause; the next write after the fault works. A real full disk
// (a 256 KiB tmpfs, root only) gives the same outcome without the seam.
#include "core/util/AtomicFile.h"
#include "core/util/Faults.h"

#include "tests/support/Tmpfs.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

using namespace setscope;
namespace fs = std::filesystem;
using util::faults::Call;

namespace {

std::string slurp(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// 300 000 bytes written as 30 000 small pieces (a stream's writer buffers them).
void bigFill(std::ostream& out)
{
    for (int i = 0; i < 30000; ++i)
        out << "0123456789";
}

/// Files in `dir` other than `keep`.
std::vector<std::string> strays(const fs::path& dir, const std::string& keep)
{
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().filename() != keep && e.path().filename() != "filler")
            out.push_back(e.path().filename().string());
    return out;
}

} // namespace

class TestFaults : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void inertUntilArmed();
    void everyCallFailsInTurn_data();
    void everyCallFailsInTurn();
    void pathFilter();
    void onlyTheNthFails();
    void realFullDisk();
};

void TestFaults::inertUntilArmed()
{
    QTemporaryDir dir;
    const fs::path p = fs::path(dir.path().toStdString()) / "a.bin";
    util::writeFileAtomically(p, bigFill);
    QCOMPARE(slurp(p).size(), std::size_t(300000));
    QCOMPARE(util::faults::count(Call::Write), std::int64_t(0)); // not counted: nothing armed
    QVERIFY(!util::faults::fired());
}

void TestFaults::everyCallFailsInTurn_data()
{
    QTest::addColumn<int>("call");
    QTest::addColumn<int>("error");
    QTest::addColumn<QString>("cause");
    QTest::newRow("write ENOSPC") << int(Call::Write) << ENOSPC << "No space left on device";
    QTest::newRow("write EIO") << int(Call::Write) << EIO << "Input/output error";
    QTest::newRow("fsync EIO") << int(Call::Sync) << EIO << "Input/output error";
    QTest::newRow("fsync ENOSPC") << int(Call::Sync) << ENOSPC << "No space left on device";
    QTest::newRow("rename EXDEV") << int(Call::Rename) << EXDEV << "Invalid cross-device link";
}

void TestFaults::everyCallFailsInTurn()
{
    QFETCH(int, call);
    QFETCH(int, error);
    QFETCH(QString, cause);
    QTemporaryDir dir;
    const fs::path folder = dir.path().toStdString();
    const fs::path p = folder / "labels.csv";
    const std::string old = "the previous good content\n";
    {
        std::ofstream(p, std::ios::binary) << old;
    }
    // How many calls of this kind one write makes (300 000 bytes: several buffer-fulls).
    std::int64_t calls = 0;
    {
        util::faults::Armed counting(Call(call), 0, 0);
        util::writeFileAtomically(folder / "count.csv", bigFill);
        calls = util::faults::count(Call(call));
        QVERIFY(!util::faults::fired());
    }
    fs::remove(folder / "count.csv");
    qInfo("%lld calls of this kind for a 300 000-byte file", static_cast<long long>(calls));
    QVERIFY2(calls >= (Call(call) == Call::Write ? 2 : 1), qPrintable(QString::number(calls)));
    for (std::int64_t k = 1; k <= calls; ++k) {
        {
            util::faults::Armed fault(Call(call), k, error);
            try {
                util::writeFileAtomically(p, bigFill);
                QFAIL(qPrintable(QString("call %1 of %2 failed but the write reported success").arg(k).arg(calls)));
            } catch (const std::runtime_error& e) {
                const QString msg = e.what();
                QVERIFY2(msg.contains(QString::fromStdString(p.string())), qPrintable(msg));
                QVERIFY2(msg.contains(cause), qPrintable(msg));
                if (error == ENOSPC)
                    QVERIFY2(msg.contains("disk is full"), qPrintable(msg));
            }
            QVERIFY(util::faults::fired());
        }
        QCOMPARE(slurp(p), old);
        QCOMPARE(strays(folder, "labels.csv"), std::vector<std::string>{});
    }
    // The fault cleared, the next write works.
    util::writeFileAtomically(p, bigFill);
    QCOMPARE(slurp(p).size(), std::size_t(300000));
    QCOMPARE(strays(folder, "labels.csv"), std::vector<std::string>{});
}

void TestFaults::pathFilter()
{
    QTemporaryDir dir;
    const fs::path folder = dir.path().toStdString();
    util::faults::Armed fault(Call::Write, 1, ENOSPC, "checkpoint");
    util::writeFileAtomically(folder / "labels.csv", [](std::ostream& o) { o << "x"; }); // not a match
    QVERIFY(!util::faults::fired());
    QCOMPARE(util::faults::count(Call::Write), std::int64_t(0));
    QVERIFY_THROWS_EXCEPTION(std::runtime_error,
                             util::writeFileAtomically(folder / "checkpoint.pt", [](std::ostream& o) { o << "x"; }));
    QVERIFY(util::faults::fired());
    QVERIFY(!fs::exists(folder / "checkpoint.pt"));
}

void TestFaults::onlyTheNthFails()
{
    QTemporaryDir dir;
    const fs::path folder = dir.path().toStdString();
    util::faults::Armed fault(Call::Rename, 2, EIO);
    util::writeFileAtomically(folder / "a", [](std::ostream& o) { o << "a"; });
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, util::writeFileAtomically(folder / "b", [](std::ostream& o) { o << "b"; }));
    util::writeFileAtomically(folder / "c", [](std::ostream& o) { o << "c"; });
    QCOMPARE(slurp(folder / "a"), std::string("a"));
    QVERIFY(!fs::exists(folder / "b"));
    QCOMPARE(slurp(folder / "c"), std::string("c"));
    QCOMPARE(util::faults::count(Call::Rename), std::int64_t(3));
}

void TestFaults::realFullDisk()
{
    testutil::Tmpfs disk(256 * 1024);
    if (!disk.ok())
        QSKIP(disk.reason());
    const fs::path p = disk.path() / "labels.csv";
    const std::string old(10000, 'o');
    util::writeFileAtomically(p, [&](std::ostream& o) { o << old; });
    QVERIFY(disk.fill());
    try {
        util::writeFileAtomically(p, bigFill); // 300 000 bytes on a full 256 KiB disk
        QFAIL("a write to a full disk reported success");
    } catch (const std::runtime_error& e) {
        const QString msg = e.what();
        QVERIFY2(msg.contains(QString::fromStdString(p.string())), qPrintable(msg));
        QVERIFY2(msg.contains("No space left on device"), qPrintable(msg));
    }
    QCOMPARE(slurp(p), old);
    QCOMPARE(strays(disk.path(), "labels.csv"), std::vector<std::string>{});
    disk.release();
    util::writeFileAtomically(p, [](std::ostream& o) { o << "new"; });
    QCOMPARE(slurp(p), std::string("new"));
}

QTEST_GUILESS_MAIN(TestFaults)
#include "tst_Faults.moc"
