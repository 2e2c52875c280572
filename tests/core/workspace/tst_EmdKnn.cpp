// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// workspace::emdKnnItems and summariseEmdKnn (what `setscope-cli emd-knn` asks): the queries and
// candidates picked from the splits, and the answers scored, against hand-worked cases.
#include "core/data/Synthetic.h"
#include "core/workspace/EmdKnn.h"

#include <QtTest>

using namespace setscope;

namespace {

// 12 items of 3 fine classes (4 each), the last quarter of each class in the test split.
data::Dataset twelve()
{
    data::SyntheticSpec s;
    s.dim = 2;
    s.coarseClasses = 3;
    s.finePerCoarse = 1;
    s.pointsPerFine = 4;
    return data::makeHierarchicalGaussians(s);
}

} // namespace

class TestEmdKnn : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void queriesAndCandidatesFromTheSplits();
    void summaryCountsAndVotes();
};

void TestEmdKnn::queriesAndCandidatesFromTheSplits()
{
    const data::Dataset ds = twelve();
    const auto train = ds.indices(data::Split::Train);
    const auto test = ds.indices(data::Split::Test);
    QVERIFY(!train.empty() && !test.empty());

    workspace::EmdKnnRequest r; // defaults: the train split, the first test item
    workspace::EmdKnnItems items = workspace::emdKnnItems(ds, r);
    QCOMPARE(items.candidates, train);
    QCOMPARE(items.queries, (std::vector<std::int64_t>{test.front()}));

    r.candidates = "all";
    r.limit = 5;
    r.queries = {7};
    r.testQueries = 2;
    items = workspace::emdKnnItems(ds, r);
    QCOMPARE(items.candidates, (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
    QCOMPARE(items.queries, (std::vector<std::int64_t>{7, test[0], test[1]}));

    r.testQueries = 1000; // more than there are: all of them
    QCOMPARE(workspace::emdKnnItems(ds, r).queries.size(), 1 + test.size());

    r.candidates = "nearby";
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, workspace::emdKnnItems(ds, r));
}

void TestEmdKnn::summaryCountsAndVotes()
{
    const data::Dataset ds = twelve();
    const auto& fine = ds.requireLabelSet("fine").labels;
    // Query 0 (class fine[0]): two neighbours of another class at 1.0 and 1.0, one of its own at
    // 0.4: weights 1/0.4 = 2.5 against 1 + 1 = 2, its own class wins. Query 1: its own class at 2
    // against another at 1: 0.5 < 1, wrong. Query 2: a neighbour at distance 0 decides alone.
    auto other = [&](std::int64_t q) {
        for (std::size_t i = 0; i < ds.size(); ++i)
            if (fine[i] != fine[static_cast<std::size_t>(q)])
                return static_cast<std::int64_t>(i);
        return std::int64_t(-1);
    };
    auto same = [&](std::int64_t q) {
        for (std::size_t i = 0; i < ds.size(); ++i)
            if (static_cast<std::int64_t>(i) != q && fine[i] == fine[static_cast<std::size_t>(q)])
                return static_cast<std::int64_t>(i);
        return std::int64_t(-1);
    };
    const std::vector<std::int64_t> queries{0, 5, 9};
    std::vector<ot::EmdKnnResult> results(3);
    results[0].neighbours = {{same(0), 0.4}, {other(0), 1.0}, {other(0), 1.0}};
    results[1].neighbours = {{other(5), 1.0}, {same(5), 2.0}};
    results[2].neighbours = {{same(9), 0.0}, {other(9), 0.1}, {other(9), 0.1}};
    for (std::size_t i = 0; i < 3; ++i)
        results[i].stats = {10, static_cast<std::int64_t>(i + 1), 4, 2, static_cast<std::int64_t>(i)};
    const workspace::EmdKnnSummary s = workspace::summariseEmdKnn(ds, "fine", queries, results);
    QCOMPARE(s.total.candidates, std::int64_t(30));
    QCOMPARE(s.total.exactSolves, std::int64_t(6));
    QCOMPARE(s.total.prunedByWcd, std::int64_t(12));
    QCOMPARE(s.total.prunedByRwmd, std::int64_t(6));
    QCOMPARE(s.total.speculativeSolves, std::int64_t(3));
    QCOMPARE(s.scored, std::int64_t(3));
    QCOMPARE(s.correct, std::int64_t(2));
    QCOMPARE(s.accuracy(), 2.0 / 3.0);
    // No such label set: counted, not scored.
    const workspace::EmdKnnSummary none = workspace::summariseEmdKnn(ds, "nope", queries, results);
    QCOMPARE(none.scored, std::int64_t(0));
    QCOMPARE(none.total.candidates, std::int64_t(30));
}

QTEST_GUILESS_MAIN(TestEmdKnn)
#include "tst_EmdKnn.moc"
