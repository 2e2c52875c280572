// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The option text of dataset specs ("brown:tf=1", "PATH?points=64"): split into key=value
// pairs, resolved against a schema, with a source's own defaults.
#include "core/util/SpecOptions.h"

#include <QTest>

#include <functional>

using namespace setscope;
using sdk::OptionSpec;
using util::parseSpecOptions;
using util::resolveSpecOptions;
using util::splitSpec;
using util::withDefaults;

namespace {

std::string message(const std::function<void()>& f)
{
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "no error";
}

sdk::OptionSchema brownLike()
{
    return {OptionSpec::text("vectors", "glove-100d", "word vectors"), OptionSpec::flag("tf", false, "term frequency"),
            OptionSpec::integer("min-count", 1, 1, 1000, "rare words removed"),
            OptionSpec::real("test", 0.3, 0.0, 0.9, "test fraction"), OptionSpec::integer("seed", 7, 0, 100, "seed")};
}

} // namespace

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

    void splitsKeyValueItems()
    {
        const auto m = parseSpecOptions("brown", " vectors = /a b.vec, tf=yes,,min-count=3,");
        QCOMPARE(m.size(), std::size_t(3));
        QCOMPARE(m.at("vectors"), std::string("/a b.vec")); // spaces inside a value stay
        QCOMPARE(m.at("tf"), std::string("yes"));
        QCOMPARE(m.at("min-count"), std::string("3"));
        QVERIFY(parseSpecOptions("brown", "").empty());
        QCOMPARE(parseSpecOptions("x", "class=").at("class"), std::string()); // an empty value is a value
    }

    void refusesItemsThatAreNotKeyValue()
    {
        QCOMPARE(message([] { parseSpecOptions("brown", "tf"); }), std::string("brown: option 'tf' is not key=value"));
        QCOMPARE(message([] { parseSpecOptions("brown", "=1"); }), std::string("brown: option '=1' is not key=value"));
        QCOMPARE(message([] { parseSpecOptions("brown", "tf=1,tf=0"); }), std::string("brown: option 'tf' given twice"));
    }

    void resolvesAgainstTheSchema()
    {
        const sdk::OptionValues v = resolveSpecOptions(brownLike(), "vectors=train,tf=yes,min-count=3,test=0.25", "brown");
        QCOMPARE(v.text("vectors"), std::string("train"));
        QCOMPARE(v.flag("tf"), true);
        QCOMPARE(v.integer("min-count"), std::int64_t(3));
        QCOMPARE(v.real("test"), 0.25);
        QCOMPARE(v.integer("seed"), std::int64_t(7)); // absent: the default
        QVERIFY(!v.given("seed"));
    }

    void badValuesNameTheOptionTheValueAndWhatIsAllowed()
    {
        const sdk::OptionSchema bzr = {OptionSpec::real("threshold", 7, 0, 14, ""), OptionSpec::integer("fold", 0, 0, 9, "")};
        QCOMPARE(message([&] { resolveSpecOptions(bzr, "threshold=abc", "bzr"); }),
                 std::string("bzr: option threshold=abc: not a finite number"));
        QCOMPARE(message([&] { resolveSpecOptions(bzr, "fold=10", "bzr"); }),
                 std::string("bzr: option fold=10: outside [0, 9]"));
        QCOMPARE(message([] { resolveSpecOptions(brownLike(), "tf=maybe", "brown"); }),
                 std::string("brown: option tf=maybe: not a flag (true/false, 1/0, yes/no, on/off)"));
    }

    void unknownKeysAreErrorsListingTheKnownOnes()
    {
        const sdk::OptionSchema furniture = {OptionSpec::integer("points", 1024, 1, 1 << 20, ""),
                                             OptionSpec::flag("jitter", false, "")};
        QCOMPARE(message([&] { resolveSpecOptions(furniture, "points=512,jiter=1", "furniture"); }),
                 std::string("furniture has no option 'jiter' (it has: points, jitter)"));
        QCOMPARE(message([] { resolveSpecOptions({}, "x=1", "digits"); }),
                 std::string("digits has no option 'x' (it has none)"));
    }

    void otherDefaultsForASource()
    {
        const sdk::OptionSchema schema = withDefaults(brownLike(), {{"vectors", "train"}, {"seed", "9"}}, "mine");
        const sdk::OptionValues d = resolveSpecOptions(schema, "", "mine");
        QCOMPARE(d.text("vectors"), std::string("train"));
        QCOMPARE(d.integer("seed"), std::int64_t(9));
        QCOMPARE(d.integer("min-count"), std::int64_t(1)); // not overridden
        // What the user gives wins over the source's default.
        QCOMPARE(resolveSpecOptions(schema, "seed=3", "mine").integer("seed"), std::int64_t(3));
        // A default the schema does not declare, or one its own checks refuse, is a bug of the source.
        QVERIFY_THROWS_EXCEPTION(std::logic_error, withDefaults(brownLike(), {{"vectorz", "x"}}, "mine"));
        QVERIFY_THROWS_EXCEPTION(std::logic_error,
                                 resolveSpecOptions(withDefaults(brownLike(), {{"seed", "101"}}, "mine"), "", "mine"));
    }
};

QTEST_GUILESS_MAIN(TestSpecOptions)
#include "tst_SpecOptions.moc"
