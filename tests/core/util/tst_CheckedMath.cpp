// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/util/CheckedMath.h"

#include <QtTest>

#include <cstdint>
#include <limits>
#include <vector>

using namespace setscope::util;

class TestCheckedMath : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void mul();
    void add();
    void product();
    void cast();
    void fitsInBytesBound();
};

void TestCheckedMath::mul()
{
    constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
    QCOMPARE(checkedMul<std::uint64_t>(6, 7), std::optional<std::uint64_t>(42));
    QCOMPARE(checkedMul<std::uint64_t>(0, kMax), std::optional<std::uint64_t>(0));
    QCOMPARE(checkedMul<std::uint64_t>(kMax, 1), std::optional<std::uint64_t>(kMax));
    QVERIFY(!checkedMul<std::uint64_t>(std::uint64_t(1) << 32, std::uint64_t(1) << 32));
    // 2048 * (2^52 + 1) * 2 = 2^64 + 4096: wraps to 4096 in plain arithmetic.
    const auto partial = checkedMul<std::uint64_t>(2, 2048);
    QVERIFY(partial);
    QVERIFY(!checkedMul<std::uint64_t>(*partial, (std::uint64_t(1) << 52) + 1));
    QVERIFY(!checkedMul<std::int64_t>(std::numeric_limits<std::int64_t>::max(), 2));
    QVERIFY(!checkedMul<std::int64_t>(std::numeric_limits<std::int64_t>::min(), -1));
    QCOMPARE(checkedMul<std::int64_t>(-3, 4), std::optional<std::int64_t>(-12));
    QVERIFY(!checkedMul<std::int32_t>(65536, 65536));
    static_assert(checkedMul<std::uint32_t>(3, 5) == 15u);
}

void TestCheckedMath::add()
{
    constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
    QCOMPARE(checkedAdd<std::uint64_t>(kMax - 1, 1), std::optional<std::uint64_t>(kMax));
    QVERIFY(!checkedAdd<std::uint64_t>(kMax, 1));
    QVERIFY(!checkedAdd<std::int64_t>(std::numeric_limits<std::int64_t>::max(), 1));
    QVERIFY(!checkedAdd<std::int64_t>(std::numeric_limits<std::int64_t>::min(), -1));
    QCOMPARE(checkedAdd<std::int64_t>(-5, 3), std::optional<std::int64_t>(-2));
}

void TestCheckedMath::product()
{
    QCOMPARE(checkedProduct<std::uint64_t>(std::vector<std::uint64_t>{}), std::optional<std::uint64_t>(1));
    QCOMPARE(checkedProduct<std::uint64_t>(std::vector<std::uint64_t>{2, 3, 4}), std::optional<std::uint64_t>(24));
    QVERIFY(!checkedProduct<std::uint64_t>(std::vector<std::uint64_t>{2, 2048, (std::uint64_t(1) << 52) + 1}));
    // A zero anywhere makes the exact product 0, whatever comes before it.
    QCOMPARE(checkedProduct<std::uint64_t>(std::vector<std::uint64_t>{std::uint64_t(1) << 40, std::uint64_t(1) << 40, 0}),
             std::optional<std::uint64_t>(0));
    QCOMPARE(checkedProduct<std::uint64_t>(std::vector<std::uint64_t>{0, std::uint64_t(1) << 40}),
             std::optional<std::uint64_t>(0));
}

void TestCheckedMath::cast()
{
    QCOMPARE(checkedCast<int>(std::uint64_t(2147483647)), std::optional<int>(2147483647));
    QVERIFY(!checkedCast<int>(std::uint64_t(2147483648)));
    QVERIFY(!checkedCast<int>((std::uint64_t(1) << 52) + 1)); // would truncate to 1
    QVERIFY(!checkedCast<std::uint32_t>(-1));
    QVERIFY(!checkedCast<std::size_t>(std::int64_t(-1)));
    QCOMPARE(checkedCast<std::int32_t>(std::int64_t(-7)), std::optional<std::int32_t>(-7));
}

void TestCheckedMath::fitsInBytesBound()
{
    QVERIFY(fitsInBytes(10, 4, 40));
    QVERIFY(!fitsInBytes(11, 4, 40));
    QVERIFY(fitsInBytes(0, 1000, 0));
    // 10^9 records of 2 + 4 * 300 bytes in a 1 KB file.
    QVERIFY(!fitsInBytes(1000000000, 1202, 1024));
    // The product overflows: never "fits", whatever the file size.
    QVERIFY(!fitsInBytes(std::uint64_t(1) << 63, 4, std::numeric_limits<std::uint64_t>::max()));
}

QTEST_GUILESS_MAIN(TestCheckedMath)
#include "tst_CheckedMath.moc"
