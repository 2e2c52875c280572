// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Label mappings (coarse label sets from fine ones): parsing, every refusal with its message,
// and the derived labels against a hand-written table.
#include "core/data/Dataset.h"
#include "core/data/LabelMapping.h"

#include <setscope/sdk/Errors.h>

#include "tests/support/ZooDataset.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace setscope;

namespace {

const char* kAnimals = R"({"name": "kind", "from": "fine",
  "classes": {"fish": ["trout", "salmon"], "mammal": ["cat", "dog"]}})";

/// The message of the sdk::InputError `f` throws ("" when none).
template <class F>
std::string inputError(F f)
{
    try {
        f();
    } catch (const sdk::InputError& e) {
        return e.what();
    }
    return {};
}

} // namespace

class TestLabelMapping : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void derivesByHand()
    {
        const auto m = data::LabelMapping::fromJson(kAnimals);
        QCOMPARE(m.name, std::string("kind"));
        QCOMPARE(m.source, std::string("fine"));
        // Target ids in the order written: fish 0, mammal 1.
        QCOMPARE(m.classNames(), (std::vector<std::string>{"fish", "mammal"}));
        const data::LabelSet kind = m.apply(testutil::zooDataset());
        QCOMPARE(kind.name, std::string("kind"));
        QCOMPARE(kind.labels, (std::vector<std::int32_t>{1, 1, 0, 0, -1, 1}));
        QCOMPARE(m.targetOf(*testutil::zooDataset().labelSet("fine")), (std::vector<std::int32_t>{1, 1, 0, 0}));
    }

    void roundTripsThroughJson()
    {
        const auto m = data::LabelMapping::fromJson(kAnimals);
        const auto back = data::LabelMapping::fromJson(m.toJson());
        QCOMPARE(back.name, m.name);
        QCOMPARE(back.source, m.source);
        QCOMPARE(back.classes, m.classes);
        // Names that need escaping survive.
        data::LabelMapping odd = m;
        odd.classes[0].first = "fish \"wet\" \\ ü";
        QCOMPARE(data::LabelMapping::fromJson(odd.toJson()).classes[0].first, odd.classes[0].first);
        // The identity mapping reproduces the source.
        const data::Dataset ds = testutil::zooDataset();
        const auto id = data::identityMapping(*ds.labelSet("fine"), "copy");
        QCOMPARE(id.apply(ds).labels, ds.labelSet("fine")->labels);
    }

    void refusesBadMappings_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("expect");
        QTest::newRow("not json") << "{\"name\": " << "not a label mapping (JSON)";
        QTest::newRow("array") << "[1, 2]" << "is a JSON object";
        QTest::newRow("no name") << R"({"from": "fine", "classes": {"a": ["cat"]}})" << "\"name\" must be a non-empty";
        QTest::newRow("empty from") << R"({"name": "x", "from": "", "classes": {"a": ["cat"]}})" << "\"from\" must be";
        QTest::newRow("replaces source") << R"({"name": "fine", "from": "fine", "classes": {"a": ["cat"]}})"
                                         << "cannot replace its source";
        QTest::newRow("unknown key") << R"({"name": "x", "from": "fine", "classes": {"a": ["cat"]}, "lambda": 1})"
                                     << "unknown key \"lambda\"";
        QTest::newRow("no classes") << R"({"name": "x", "from": "fine", "classes": {}})" << "at least one class";
        QTest::newRow("empty group") << R"({"name": "x", "from": "fine", "classes": {"a": []}})"
                                     << "target class 'a': give a non-empty list";
        QTest::newRow("number as class") << R"({"name": "x", "from": "fine", "classes": {"a": [3]}})"
                                         << "source classes are non-empty strings";
        QTest::newRow("two targets") << R"({"name": "x", "from": "fine", "classes": {"a": ["cat"], "b": ["cat"]}})"
                                     << "source class 'cat' is under both 'a' and 'b'";
        QTest::newRow("repeated key") << R"({"name": "x", "from": "fine", "classes": {"a": ["cat"], "a": ["dog"]}})"
                                      << "\"a\" is given twice";
    }

    void refusesBadMappings()
    {
        QFETCH(QString, json);
        QFETCH(QString, expect);
        const std::string msg = inputError([&] { data::LabelMapping::fromJson(json.toStdString(), "m.json"); });
        QVERIFY2(msg.rfind("m.json", 0) == 0, msg.c_str()); // names the file first
        QVERIFY2(msg.find(expect.toStdString()) != std::string::npos, msg.c_str());
    }

    void refusesMappingsThatDoNotFit()
    {
        const data::Dataset ds = testutil::zooDataset();
        // salmon has no target, whale is not a class of fine.
        const auto m = data::LabelMapping::fromJson(
            R"({"name": "kind", "from": "fine", "classes": {"fish": ["trout", "whale"], "mammal": ["cat", "dog"]}})");
        try {
            m.apply(ds);
            QFAIL("a mapping that leaves a class out was applied");
        } catch (const std::invalid_argument& e) {
            const std::string msg = e.what();
            QVERIFY2(msg.find("classes without a target: 'salmon'") != std::string::npos, msg.c_str());
            QVERIFY2(msg.find("not classes of 'fine': 'whale'") != std::string::npos, msg.c_str());
            QVERIFY2(msg.find("'cat', 'dog', 'trout', 'salmon'") != std::string::npos, msg.c_str());
        }
        auto other = data::LabelMapping::fromJson(kAnimals);
        other.source = "coarse";
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, other.apply(ds)); // no such label set
    }

    void readsFiles()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("kind.json").toStdString();
        std::ofstream(path) << kAnimals;
        QCOMPARE(data::readLabelMapping(path).classNames(), (std::vector<std::string>{"fish", "mammal"}));
        const std::string missing = dir.filePath("nope.json").toStdString();
        const std::string msg = inputError([&] { data::readLabelMapping(missing); });
        QVERIFY2(msg.find("nope.json") != std::string::npos && msg.find("cannot open") != std::string::npos,
                 msg.c_str());
    }
};

QTEST_GUILESS_MAIN(TestLabelMapping)
#include "tst_LabelMapping.moc"
