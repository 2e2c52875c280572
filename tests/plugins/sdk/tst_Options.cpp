// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The SDK's option declarations: what a user types is checked against the schema, with the
// messages a user sees; values read back in their canonical form.
#include <setscope/sdk/Options.h>

#include <QtTest>

#include <limits>

using namespace setscope::sdk;

namespace {

const double kInf = std::numeric_limits<double>::infinity();

OptionSchema tripletLike()
{
    return {OptionSpec::real("margin", 0.1, 0.0, kInf, "the triplet margin alpha"),
            OptionSpec::integer("batch", 64, 2, 4096, "sets per mini-batch"),
            OptionSpec::flag("normalize", true, "L2-normalise embeddings"),
            OptionSpec::choice("mining", "semi-hard", {"semi-hard", "hard", "all"}, "negative mining"),
            OptionSpec::text("label-set", "fine", "label set to train on")};
}

QString messageOf(const OptionSchema& schema, const std::map<std::string, std::string>& given)
{
    try {
        OptionValues::resolve(schema, given, "loss triplet");
    } catch (const std::invalid_argument& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace

class TestOptions : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void defaultsAndGivenValues();
    void badValuesAreRefusedWithTheReason_data();
    void badValuesAreRefusedWithTheReason();
    void unknownOptionListsTheKnownOnes();
    void canonicalTextReadsBackUnchanged();
    void brokenSchemasAreProgrammingErrors();
    void gettersCheckTheType();
    void describeForHelp();
};

void TestOptions::defaultsAndGivenValues()
{
    const OptionValues v = OptionValues::resolve(tripletLike(), {{"batch", "+128"}, {"normalize", "off"}}, "loss triplet");
    QCOMPARE(v.real("margin"), 0.1);
    QCOMPARE(v.integer("batch"), std::int64_t(128));
    QCOMPARE(v.flag("normalize"), false);
    QCOMPARE(v.text("mining"), std::string("semi-hard"));
    QCOMPARE(v.text("label-set"), std::string("fine"));
    QVERIFY(v.given("batch"));
    QVERIFY(v.given("normalize"));
    QVERIFY(!v.given("margin"));
    QCOMPARE(v.values().size(), std::size_t(5));
    for (const char* yes : {"1", "true", "yes", "on"})
        QCOMPARE(OptionValues::resolve(tripletLike(), {{"normalize", yes}}, "x").flag("normalize"), true);
    for (const char* no : {"0", "false", "no", "off"})
        QCOMPARE(OptionValues::resolve(tripletLike(), {{"normalize", no}}, "x").flag("normalize"), false);
    // Bounds are inclusive.
    QCOMPARE(OptionValues::resolve(tripletLike(), {{"batch", "2"}}, "x").integer("batch"), std::int64_t(2));
    QCOMPARE(OptionValues::resolve(tripletLike(), {{"batch", "4096"}}, "x").integer("batch"), std::int64_t(4096));
    QCOMPARE(OptionValues::resolve(tripletLike(), {{"margin", "0"}}, "x").real("margin"), 0.0);
}

void TestOptions::badValuesAreRefusedWithTheReason_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("expect");
    QTest::newRow("fraction for an integer") << "batch" << "3.5" << "loss triplet: option batch=3.5: not a whole number";
    QTest::newRow("exponent for an integer") << "batch" << "1e3" << "not a whole number";
    QTest::newRow("empty integer") << "batch" << "" << "not a whole number";
    QTest::newRow("integer too small") << "batch" << "1" << "option batch=1: outside [2, 4096]";
    QTest::newRow("integer too large") << "batch" << "4097" << "outside [2, 4096]";
    QTest::newRow("integer overflow") << "batch" << "99999999999999999999" << "not a whole number";
    QTest::newRow("negative margin") << "margin" << "-0.5" << "option margin=-0.5: outside [0, inf]";
    QTest::newRow("nan") << "margin" << "nan" << "not a finite number";
    QTest::newRow("inf") << "margin" << "inf" << "not a finite number";
    QTest::newRow("trailing text") << "margin" << "0.1x" << "not a finite number";
    QTest::newRow("flag") << "normalize" << "maybe" << "not a flag (true/false, 1/0, yes/no, on/off)";
    QTest::newRow("choice") << "mining" << "easy" << "option mining=easy: not one of semi-hard|hard|all";
}

void TestOptions::badValuesAreRefusedWithTheReason()
{
    QFETCH(QString, name);
    QFETCH(QString, value);
    QFETCH(QString, expect);
    const QString msg = messageOf(tripletLike(), {{name.toStdString(), value.toStdString()}});
    QVERIFY2(msg.contains(expect), qPrintable(msg));
}

void TestOptions::unknownOptionListsTheKnownOnes()
{
    QCOMPARE(messageOf(tripletLike(), {{"temperature", "0.5"}}),
             QString("loss triplet has no option 'temperature' (it has: margin, batch, normalize, mining, label-set)"));
    QCOMPARE(messageOf({}, {{"temperature", "0.5"}}), QString("loss triplet has no option 'temperature' (it has none)"));
}

void TestOptions::canonicalTextReadsBackUnchanged()
{
    const OptionValues v =
        OptionValues::resolve(tripletLike(), {{"margin", "1.0e-5"}, {"batch", "+0064"}, {"normalize", "yes"}}, "x");
    QCOMPARE(v.values().at("margin"), std::string("1e-05"));
    QCOMPARE(v.values().at("batch"), std::string("64"));
    QCOMPARE(v.values().at("normalize"), std::string("true"));
    QCOMPARE(v.real("margin"), 1.0e-5);
    const OptionValues again = OptionValues::resolve(tripletLike(), v.values(), "x");
    QCOMPARE(again.values(), v.values());
    // The shortest text that reads back as the same double, for values with no short decimal.
    const double third = 1.0 / 3.0;
    const OptionValues t = OptionValues::resolve({OptionSpec::real("r", third, 0, 1, "")}, {}, "x");
    QCOMPARE(t.real("r"), third);
}

void TestOptions::brokenSchemasAreProgrammingErrors()
{
    const OptionSchema duplicate = {OptionSpec::flag("a", true, ""), OptionSpec::flag("a", false, "")};
    QVERIFY_THROWS_EXCEPTION(std::logic_error, OptionValues::resolve(duplicate, {}, "x"));
    const OptionSchema badDefault = {OptionSpec::integer("k", 0, 1, 10, "")};
    QVERIFY_THROWS_EXCEPTION(std::logic_error, OptionValues::resolve(badDefault, {}, "x"));
    const OptionSchema badChoice = {OptionSpec::choice("c", "z", {"a", "b"}, "")};
    QVERIFY_THROWS_EXCEPTION(std::logic_error, OptionValues::resolve(badChoice, {}, "x"));
}

void TestOptions::gettersCheckTheType()
{
    const OptionValues v = OptionValues::resolve(tripletLike(), {}, "x");
    QVERIFY_THROWS_EXCEPTION(std::logic_error, v.integer("margin"));
    QVERIFY_THROWS_EXCEPTION(std::logic_error, v.real("batch"));
    QVERIFY_THROWS_EXCEPTION(std::logic_error, v.flag("mining"));
    QVERIFY_THROWS_EXCEPTION(std::logic_error, v.text("normalize"));
    QVERIFY_THROWS_EXCEPTION(std::logic_error, v.real("nothing"));
}

void TestOptions::describeForHelp()
{
    const OptionSchema s = tripletLike();
    QCOMPARE(describeOption(s[0]), std::string("margin (number in [0, inf], default 0.1): the triplet margin alpha"));
    QCOMPARE(describeOption(s[1]), std::string("batch (integer in [2, 4096], default 64): sets per mini-batch"));
    QCOMPARE(describeOption(s[2]), std::string("normalize (flag, default true): L2-normalise embeddings"));
    QCOMPARE(describeOption(s[3]),
             std::string("mining (choice: semi-hard|hard|all, default semi-hard): negative mining"));
    // An integer bound beyond int64 (2^63 and up) prints as the number it is (std::to_chars), not
    // through an undefined cast; bounds below it print as whole numbers.
    const auto big = OptionSpec::integer("seed", 1, 0, 1.8446744073709552e19, "a seed");
    QCOMPARE(describeOption(big), std::string("seed (integer in [0, 18446744073709551616], default 1): a seed"));
    const auto fits = OptionSpec::integer("seed", 1, -9.0e15, 9.0e15, "a seed");
    QCOMPARE(describeOption(fits), std::string("seed (integer in [-9000000000000000, 9000000000000000], default 1): a seed"));
}

QTEST_GUILESS_MAIN(TestOptions)
#include "tst_Options.moc"
