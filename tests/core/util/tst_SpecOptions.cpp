// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/util/SpecOptions.h"

#include <QTest>

using setscope::util::SpecOptions;
using setscope::util::splitSpec;

class TestSpecOptions : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void splitsNameAndOptions()
    {
        QCOMPARE(splitSpec("brown").first, std::string("brown"));
        QCOMPARE(splitSpec("brown").second, std::string());
        const auto [name, opts] = splitSpec("brown:vectors=/a:b.vec,tf=1");
        QCOMPARE(name, std::string("brown"));
        QCOMPARE(opts, std::string("vectors=/a:b.vec,tf=1"));
    }

    void readsTypedValuesAndDefaults()
    {
        SpecOptions o("brown", "vectors=train,tf=yes,min-count=3,test=0.25");
        QCOMPARE(o.string("vectors", "glove-100d"), std::string("train"));
        QCOMPARE(o.flag("tf", false), true);
        QCOMPARE(o.integer("min-count", 1, 1, 1000), std::int64_t(3));
        QCOMPARE(o.number("test", 0.3, 0.0, 0.9), 0.25);
        QCOMPARE(o.integer("seed", 7, 0, 100), std::int64_t(7)); // absent: the default
        o.finish();
    }

    void rejectsBadValuesNamingTheKey()
    {
        auto message = [](auto&& f) {
            try {
                f();
            } catch (const std::invalid_argument& e) {
                return std::string(e.what());
            }
            return std::string("no error");
        };
        QCOMPARE(message([] { SpecOptions o("bzr", "threshold=abc"); o.number("threshold", 7, 0, 14); }),
                 std::string("bzr: option 'threshold' must be a number in [0, 14], not 'abc'"));
        QCOMPARE(message([] { SpecOptions o("bzr", "fold=10"); o.integer("fold", 0, 0, 9); }),
                 std::string("bzr: option 'fold' must be an integer in [0, 9], not '10'"));
        QCOMPARE(message([] { SpecOptions o("brown", "tf=maybe"); o.flag("tf", false); }),
                 std::string("brown: option 'tf' must be 1 or 0 (true/false), not 'maybe'"));
        QCOMPARE(message([] { SpecOptions o("brown", "tf"); }), std::string("brown: option 'tf' is not key=value"));
        QCOMPARE(message([] { SpecOptions o("brown", "tf=1,tf=0"); }), std::string("brown: option 'tf' given twice"));
    }

    void unknownKeysAreErrorsListingTheKnownOnes()
    {
        SpecOptions o("furniture", "points=512,jiter=1");
        o.integer("points", 1024, 1, 1 << 20);
        o.flag("jitter", false);
        try {
            o.finish();
            QFAIL("expected an error");
        } catch (const std::invalid_argument& e) {
            QCOMPARE(std::string(e.what()), std::string("furniture: unknown option 'jiter' (options: points, jitter)"));
        }
        SpecOptions none("digits", "x=1");
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, none.finish());
    }
};

QTEST_GUILESS_MAIN(TestSpecOptions)
#include "tst_SpecOptions.moc"
