// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// util::Memory: the byte-size syntax, the budget and its override, the refusal message, and the
// resident / peak figures against allocations of a known size.
#include "core/util/Memory.h"

#include <setscope/sdk/Errors.h>

#include <QtTest>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>

#include <sys/mman.h>

using namespace setscope;

namespace {

/// Sets or clears SETSCOPE_MEMORY_LIMIT for one scope.
class LimitScope {
public:
    explicit LimitScope(const char* value)
    {
        if (value)
            ::setenv("SETSCOPE_MEMORY_LIMIT", value, 1);
        else
            ::unsetenv("SETSCOPE_MEMORY_LIMIT");
    }
    ~LimitScope() { ::unsetenv("SETSCOPE_MEMORY_LIMIT"); }
};

/// MemAvailable as /proc/meminfo states it, read here independently of the code under test.
std::uint64_t memAvailableFromProc()
{
    std::ifstream in("/proc/meminfo");
    std::string key;
    std::uint64_t kb = 0;
    std::string unit;
    while (in >> key >> kb >> unit)
        if (key == "MemAvailable:")
            return kb * 1024;
    return 0;
}

} // namespace

class TestMemory : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void parseByteSize_data();
    void parseByteSize();
    void formatBytes_data();
    void formatBytes();
    void budgetFollowsTheOverride();
    void budgetIsWhatTheMachineHasAvailable();
    void refusalNamesFileEstimateAndBudget();
    void peakFollowsATouchedAllocation();
};

void TestMemory::parseByteSize_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("bytes"); // -1: refused, -2: unlimited
    QTest::newRow("plain") << "1000" << qint64(1000);
    QTest::newRow("bytes suffix") << "100B" << qint64(100);
    QTest::newRow("kibibytes") << "4K" << qint64(4096);
    QTest::newRow("mebibytes lower") << "512m" << qint64(512LL << 20);
    QTest::newRow("with B") << "512MB" << qint64(512LL << 20);
    QTest::newRow("fraction") << "2.5G" << qint64(5LL << 29);
    QTest::newRow("tebibyte") << "1T" << qint64(1LL << 40);
    QTest::newRow("zero") << "0" << qint64(0);
    QTest::newRow("off") << "off" << qint64(-2);
    QTest::newRow("empty") << "" << qint64(-1);
    QTest::newRow("negative") << "-5M" << qint64(-1);
    QTest::newRow("word") << "lots" << qint64(-1);
    QTest::newRow("unknown unit") << "5Q" << qint64(-1);
    QTest::newRow("trailing junk") << "5MBx" << qint64(-1);
    QTest::newRow("nan") << "nan" << qint64(-1);
    QTest::newRow("too large") << "20000000T" << qint64(-1);
}

void TestMemory::parseByteSize()
{
    QFETCH(QString, text);
    QFETCH(qint64, bytes);
    const std::optional<std::uint64_t> got = util::parseByteSize(text.toStdString());
    if (bytes == -1) {
        QVERIFY2(!got, qPrintable(text));
    } else {
        QVERIFY2(got, qPrintable(text));
        QCOMPARE(*got, bytes == -2 ? std::numeric_limits<std::uint64_t>::max() : static_cast<std::uint64_t>(bytes));
    }
}

void TestMemory::formatBytes_data()
{
    QTest::addColumn<qint64>("bytes");
    QTest::addColumn<QString>("text");
    QTest::newRow("bytes") << qint64(900) << "900 B";
    QTest::newRow("kibibytes") << qint64(12 * 1024) << "12.0 KiB";
    QTest::newRow("fraction") << qint64(1536LL << 20) << "1.50 GiB";
    QTest::newRow("hundreds") << qint64(640LL << 20) << "640 MiB";
    QTest::newRow("fashion-mnist floats") << qint64(70000LL * 784 * 4) << "209 MiB";
}

void TestMemory::formatBytes()
{
    QFETCH(qint64, bytes);
    QFETCH(QString, text);
    QCOMPARE(QString::fromStdString(util::formatBytes(static_cast<std::uint64_t>(bytes))), text);
}

void TestMemory::budgetFollowsTheOverride()
{
    {
        const LimitScope limit("64M");
        const util::MemoryBudget b = util::memoryBudget();
        QCOMPARE(b.bytes, std::uint64_t(64) << 20);
        QVERIFY(b.basis.find("SETSCOPE_MEMORY_LIMIT=64M") != std::string::npos);
    }
    {
        const LimitScope limit("off");
        QCOMPARE(util::memoryBudget().bytes, std::numeric_limits<std::uint64_t>::max());
        util::requireMemory("x", std::uint64_t(1) << 62, "a lot"); // no limit: accepted
    }
    {
        // A typo does not remove the protection: the machine's figure applies.
        const LimitScope limit("64 M");
        QVERIFY(util::memoryBudget().basis.find("SETSCOPE_MEMORY_LIMIT") == std::string::npos);
        QVERIFY(util::memoryBudget().bytes < std::numeric_limits<std::uint64_t>::max());
    }
}

void TestMemory::budgetIsWhatTheMachineHasAvailable()
{
    const LimitScope none(nullptr);
    const std::uint64_t ram = util::physicalMemoryBytes();
    QVERIFY(ram > 0);
    const std::uint64_t proc = memAvailableFromProc();
    if (proc == 0)
        QSKIP("no MemAvailable in /proc/meminfo here");
    const util::MemoryBudget b = util::memoryBudget();
    QVERIFY(b.bytes <= ram);
    QVERIFY(b.basis.find("MemAvailable") != std::string::npos);
    // The figure moves as other processes allocate: within 10 % of ours plus 64 MiB, unless a
    // cgroup limit lowers it (then it is below /proc's figure).
    if (b.basis.find("cgroup") == std::string::npos)
        QVERIFY2(b.bytes + proc / 10 + (64 << 20) >= proc && b.bytes <= proc + proc / 10 + (64 << 20),
                 qPrintable(QString("budget %1, MemAvailable %2").arg(b.bytes).arg(proc)));
    else
        QVERIFY(b.bytes <= proc + proc / 10 + (64 << 20));
}

void TestMemory::refusalNamesFileEstimateAndBudget()
{
    const LimitScope limit("1M");
    util::requireMemory("small.npy", 1 << 20, "exactly the budget"); // equal: accepted
    try {
        util::requireMemory("big.npy", (3 << 20) / 2, "an array of shape (1000, 393)");
        QFAIL("1.5 MiB accepted under a 1 MiB budget");
    } catch (const sdk::InputError& e) {
        const std::string m = e.what();
        QCOMPARE(e.file(), std::string("big.npy"));
        QVERIFY2(m.find("1.50 MiB") != std::string::npos, m.c_str());
        QVERIFY2(m.find("1.00 MiB") != std::string::npos, m.c_str());
        QVERIFY2(m.find("an array of shape (1000, 393)") != std::string::npos, m.c_str());
        QVERIFY2(m.find("SETSCOPE_MEMORY_LIMIT=1M") != std::string::npos, m.c_str());
    }
}

void TestMemory::peakFollowsATouchedAllocation()
{
    constexpr std::size_t kBytes = std::size_t(96) << 20;
    const std::uint64_t before = util::residentBytes();
    QVERIFY(before > 0);
    QVERIFY(util::peakResidentBytes() >= before);
    {
        // Mapped straight from the kernel and unmapped: an allocator may keep freed memory
        // resident (AddressSanitizer's quarantine does), which is not what is tested here.
        void* p = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        QVERIFY(p != MAP_FAILED);
        char* block = static_cast<char*>(p);
        std::memset(block, 0x5a, kBytes); // touched: resident
        const std::uint64_t during = util::residentBytes();
        const bool last = block[kBytes - 1] == 0x5a;
        munmap(p, kBytes);
        QVERIFY2(during >= before + kBytes - (4 << 20),
                 qPrintable(QString("resident %1 -> %2 after touching %3").arg(before).arg(during).arg(kBytes)));
        QVERIFY(last);
    }
    // Unmapped, but the peak remembers it.
    QVERIFY(util::peakResidentBytes() >= before + kBytes - (4 << 20));
    QVERIFY(util::residentBytes() < before + kBytes / 2);
}

QTEST_GUILESS_MAIN(TestMemory)
#include "tst_Memory.moc"
