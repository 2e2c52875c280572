// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// PointSwap, PointDrop and PointMixup as sdk::SetAugmentation (core/augment/SetAugmentations.h).
// The batch transport here is a test double: EMDs, nearest sets and flows from ot::emd pair
// by pair on demand (brute force), or a flow the test imposes, so a test can tell whether an
// augmentation follows the flow it is handed. Frequencies are checked against binomial
// bounds (5 standard deviations), never against timings.
#include "tests/core/SetFixture.h"
#include "core/augment/SetAugmentations.h"

#include "core/ot/Emd.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>

using namespace setscope;
using augment::PointDropAugmentation;
using augment::PointMixupAugmentation;
using augment::PointSwapAugmentation;

namespace {

using testutil::Set;
using testutil::refs;

/// n points around `shift` in dimension d; weights 1 (uniform) or drawn in [0.2, 1].
Set randomSet(std::mt19937& g, int n, int d, bool uniform, float shift = 0.0f)
{
    std::normal_distribution<float> nd(0.0f, 1.0f);
    std::uniform_real_distribution<float> wd(0.2f, 1.0f);
    Set s;
    s.d = d;
    for (int i = 0; i < n * d; ++i)
        s.p.push_back(nd(g) + shift);
    for (int i = 0; i < n; ++i)
        s.w.push_back(uniform ? 1.0f : wd(g));
    return s;
}

/// A batch of `count` sets in a few clusters, so that nearest sets are clear.
std::vector<Set> randomBatch(std::uint32_t seed, int count, int n, int d, bool uniform, bool varySizes = false)
{
    std::mt19937 g(seed);
    std::vector<Set> b;
    for (int k = 0; k < count; ++k)
        b.push_back(randomSet(g, varySizes ? n + (k % 3) : n, d, uniform, float(k % 3) * 3.0f));
    return b;
}

bool sameRow(const float* a, const float* b, int d) { return std::equal(a, a + d, b); }

/// |observed - n q| <= 5 sqrt(n q (1 - q)): a binomial count within 5 standard deviations.
bool withinBinomial(double observed, double n, double q)
{
    return std::abs(observed - n * q) <= 5.0 * std::sqrt(n * q * (1.0 - q)) + 1e-9;
}

/// The batch transport of the tests: ot::emd pair by pair (brute force), or imposed flows.
class FakeTransport final : public sdk::BatchTransport {
public:
    explicit FakeTransport(const std::vector<Set>& sets)
        : m_sets(sets)
    {
    }
    std::int64_t size() const override { return std::ssize(m_sets); }
    double emd(std::int64_t a, std::int64_t b) override
    {
        return a == b ? 0.0 : ot::emd(m_sets[std::size_t(a)].view(), m_sets[std::size_t(b)].view()).emd;
    }
    std::int64_t nearest(std::int64_t a) override
    {
        ++nearestCalls;
        std::int64_t best = -1;
        double bestD = 0;
        for (std::int64_t b = 0; b < size(); ++b) {
            if (b == a)
                continue;
            const double d = emd(a, b);
            if (best < 0 || d < bestD) {
                best = b;
                bestD = d;
            }
        }
        return best;
    }
    const std::vector<sdk::TransportArc>& flows(std::int64_t a, std::int64_t b) override
    {
        ++flowCalls;
        auto& f = m_flows[{a, b}];
        if (f.empty()) {
            if (const auto it = imposed.find({a, b}); it != imposed.end())
                f = it->second;
            else {
                ot::EmdOptions o;
                o.flows = true;
                for (const ot::Flow& x : ot::emd(m_sets[std::size_t(a)].view(), m_sets[std::size_t(b)].view(), o).flows)
                    f.push_back({x.i, x.j, x.amount});
            }
        }
        return f;
    }

    std::map<std::pair<std::int64_t, std::int64_t>, std::vector<sdk::TransportArc>> imposed;
    int flowCalls = 0;
    int nearestCalls = 0;

private:
    const std::vector<Set>& m_sets;
    std::map<std::pair<std::int64_t, std::int64_t>, std::vector<sdk::TransportArc>> m_flows;
};

/// The independent reference: flow x -> y by ot::emd, as f[i][j].
std::map<std::pair<int, int>, double> referenceFlow(const Set& x, const Set& y)
{
    ot::EmdOptions o;
    o.flows = true;
    std::map<std::pair<int, int>, double> f;
    for (const ot::Flow& a : ot::emd(x.view(), y.view(), o).flows)
        f[{a.i, a.j}] = a.amount;
    return f;
}

std::int64_t bruteNearest(const std::vector<Set>& b, std::int64_t a)
{
    std::int64_t best = -1;
    double bestD = 0;
    for (std::int64_t k = 0; k < std::ssize(b); ++k) {
        if (k == a)
            continue;
        const double d = ot::emd(b[std::size_t(a)].view(), b[std::size_t(k)].view()).emd;
        if (best < 0 || d < bestD) {
            best = k;
            bestD = d;
        }
    }
    return best;
}

template <typename A>
A make(const std::map<std::string, std::string>& given)
{
    return A(sdk::OptionValues::resolve(A::schema(), given, "test"));
}

bool sameAugmented(const sdk::AugmentedSet& a, const sdk::AugmentedSet& b)
{
    if (a.set.values != b.set.values || a.set.weights != b.set.weights || a.set.count != b.set.count ||
        a.partner != b.partner || a.changes.size() != b.changes.size())
        return false;
    for (std::size_t k = 0; k < a.changes.size(); ++k) {
        const auto &x = a.changes[k], &y = b.changes[k];
        if (x.kind != y.kind || x.element != y.element || x.output != y.output || x.partnerSet != y.partnerSet ||
            x.partnerElement != y.partnerElement || x.flow != y.flow)
            return false;
    }
    return true;
}

} // namespace

class TestRegistered : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void schemas();
    void swapOnlyAlongPositiveFlow_data();
    void swapOnlyAlongPositiveFlow();
    void swapFollowsTheFlowItIsGiven();
    void swapPickLargest();
    void swapFrequencyIsOmega();
    void randomPartnerIsUniform_data();
    void randomPartnerIsUniform();
    void variant3UniformSubstitute();
    void dropRate_data();
    void dropRate();
    void dropKeepsOneElement();
    void mixupAlongTheFlow();
    void sameSeedSameResult();
    void batchOfOne();
    void errors();
};

void TestRegistered::schemas()
{
    for (const sdk::OptionSchema& s : {PointSwapAugmentation::schema(), PointDropAugmentation::schema(),
                                       PointMixupAugmentation::schema()})
        for (const sdk::OptionSpec& o : s) {
            QVERIFY(!o.doc.empty());
            for (char c : o.name)
                QVERIFY2((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-', o.name.c_str());
        }
    const auto swap = make<PointSwapAugmentation>({});
    QCOMPARE(swap.options().omega, 0.5);
    QCOMPARE(swap.variant(), 0);
    QCOMPARE(swap.options().pick, augment::FlowPick::Proportional);
    QCOMPARE(swap.options().partner, augment::PartnerChoice::NearestEmd);
    QCOMPARE(swap.options().substitute, augment::SubstituteChoice::Assignment);
    QVERIFY(swap.needsTransport());
    const auto v2 = make<PointSwapAugmentation>({{"variant", "2"}, {"omega", "0.25"}, {"pick", "largest"}});
    QCOMPARE(v2.options().omega, 0.25);
    QCOMPARE(v2.options().partner, augment::PartnerChoice::Random);
    QCOMPARE(v2.options().substitute, augment::SubstituteChoice::Assignment);
    QCOMPARE(v2.options().pick, augment::FlowPick::Largest);
    QVERIFY(v2.needsTransport());
    QVERIFY(!make<PointSwapAugmentation>({{"variant", "1"}}).needsTransport());
    QVERIFY(make<PointSwapAugmentation>({{"variant", "3"}}).needsTransport());
    QCOMPARE(make<PointDropAugmentation>({}).options().p, 0.5);
    QVERIFY(!make<PointDropAugmentation>({}).needsTransport());
    QCOMPARE(make<PointDropAugmentation>({{"p", "0.7"}}).options().p, 0.7);
    QCOMPARE(make<PointMixupAugmentation>({}).options().lambda, 0.5);
    QVERIFY(make<PointMixupAugmentation>({}).needsTransport());

    for (const auto& bad : std::vector<std::map<std::string, std::string>>{
             {{"variant", "4"}}, {{"omega", "1.5"}}, {{"omega", "-0.1"}}, {{"pick", "first"}}, {{"lambda", "0.5"}}})
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, make<PointSwapAugmentation>(bad));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, make<PointDropAugmentation>({{"p", "1.01"}}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, make<PointMixupAugmentation>({{"lambda", "2"}}));
}

void TestRegistered::swapOnlyAlongPositiveFlow_data()
{
    QTest::addColumn<bool>("uniform");
    QTest::addColumn<bool>("varySizes");
    QTest::addColumn<QString>("pick");
    QTest::newRow("equal masses") << true << false << "proportional";
    QTest::newRow("unequal sizes and masses") << false << true << "proportional";
    QTest::newRow("unequal, largest") << false << true << "largest";
}

void TestRegistered::swapOnlyAlongPositiveFlow()
{
    QFETCH(bool, uniform);
    QFETCH(bool, varySizes);
    QFETCH(QString, pick);
    const std::vector<Set> batch = randomBatch(11, 8, 6, 3, uniform, varySizes);
    const std::vector<sdk::SetRef> sets = refs(batch);
    FakeTransport t(batch);
    auto aug = make<PointSwapAugmentation>({{"omega", "0.7"}, {"pick", pick.toStdString()}});
    int swaps = 0;
    for (std::int64_t i = 0; i < std::ssize(batch); ++i) {
        const std::int64_t p = bruteNearest(batch, i);
        const auto ref = referenceFlow(batch[std::size_t(i)], batch[std::size_t(p)]);
        for (std::uint64_t seed = 0; seed < 40; ++seed) {
            const sdk::AugmentedSet a = aug.augment({sets, &t}, i, seed * 1000003 + 7);
            QCOMPARE(a.partner, p);
            const Set& x = batch[std::size_t(i)];
            const Set& y = batch[std::size_t(p)];
            QCOMPARE(a.set.count, x.n());
            QCOMPARE(a.set.dim, x.d);
            QCOMPARE(a.set.weights, x.w); // Eq. 6 replaces vectors only
            std::vector<int> seen(std::size_t(x.n()), 0);
            for (const sdk::AugmentChange& c : a.changes) {
                QCOMPARE(c.kind, std::string("swapped"));
                QCOMPARE(c.partnerSet, p);
                QCOMPARE(c.output, c.element);
                QVERIFY(++seen[std::size_t(c.element)] == 1);
                const auto it = ref.find({int(c.element), int(c.partnerElement)});
                QVERIFY2(it != ref.end() && it->second > 0.0,
                         qPrintable(QString("set %1: element %2 -> %3 has no flow").arg(i).arg(c.element).arg(c.partnerElement)));
                QCOMPARE(c.flow, it->second);
                QVERIFY(sameRow(a.set.values.data() + c.element * x.d, y.row(c.partnerElement), x.d));
                ++swaps;
            }
            for (std::int64_t e = 0; e < x.n(); ++e)
                if (!seen[std::size_t(e)])
                    QVERIFY(sameRow(a.set.values.data() + e * x.d, x.row(e), x.d));
        }
    }
    QVERIFY(swaps > 100);
    // One flow per augmentation, from the transport: the pair is not solved again.
    QCOMPARE(t.flowCalls, int(batch.size()) * 40);
}

void TestRegistered::swapFollowsTheFlowItIsGiven()
{
    // Equal sizes, uniform weights: any permutation is a valid plan. Impose the reverse of
    // the identity, which is not the optimal one, and check the swaps follow it: the
    // augmentation uses the transport's flow, it does not solve the pair itself.
    const std::vector<Set> batch = randomBatch(12, 4, 5, 2, true);
    const std::vector<sdk::SetRef> sets = refs(batch);
    FakeTransport t(batch);
    const std::int64_t p = bruteNearest(batch, 0);
    std::vector<sdk::TransportArc> reversed;
    for (int i = 0; i < 5; ++i)
        reversed.push_back({i, 4 - i, 1.0});
    t.imposed[{0, p}] = reversed;
    auto aug = make<PointSwapAugmentation>({{"omega", "1"}});
    const sdk::AugmentedSet a = aug.augment({sets, &t}, 0, 99);
    QCOMPARE(a.changes.size(), std::size_t(5));
    for (const auto& c : a.changes) {
        QCOMPARE(c.partnerElement, 4 - c.element);
        QCOMPARE(c.flow, 1.0);
    }
    QCOMPARE(t.flowCalls, 1);

    // A flow that does not fit the sets is refused with the batch position.
    t.imposed[{1, bruteNearest(batch, 1)}] = {{0, 7, 1.0}};
    try {
        aug.augment({sets, &t}, 1, 1);
        QFAIL("no error for a flow arc out of range");
    } catch (const ot::OtError& e) {
        QVERIFY2(QString(e.what()).contains("batch set 1") && QString(e.what()).contains("flow arc 0"), e.what());
    }
}

void TestRegistered::swapPickLargest()
{
    const std::vector<Set> batch = randomBatch(13, 6, 7, 3, false, true);
    const std::vector<sdk::SetRef> sets = refs(batch);
    FakeTransport t(batch);
    auto aug = make<PointSwapAugmentation>({{"omega", "1"}, {"pick", "largest"}});
    for (std::int64_t i = 0; i < std::ssize(batch); ++i) {
        const std::int64_t p = bruteNearest(batch, i);
        const auto ref = referenceFlow(batch[std::size_t(i)], batch[std::size_t(p)]);
        const sdk::AugmentedSet a = aug.augment({sets, &t}, i, 5);
        for (const auto& c : a.changes) {
            double largest = 0;
            std::int64_t arg = -1;
            for (const auto& [ij, f] : ref)
                if (ij.first == c.element && f > largest) {
                    largest = f;
                    arg = ij.second;
                }
            QCOMPARE(c.partnerElement, arg);
        }
    }
}

void TestRegistered::swapFrequencyIsOmega()
{
    // Equal sizes and uniform weights: every element has outgoing flow, so each is swapped
    // with probability ω exactly (Eq. 6).
    const std::vector<Set> batch = randomBatch(14, 6, 10, 3, true);
    const std::vector<sdk::SetRef> sets = refs(batch);
    FakeTransport t(batch);
    for (const double omega : {0.1, 0.5, 0.8}) {
        auto aug = make<PointSwapAugmentation>({{"omega", std::to_string(omega)}});
        double swapped = 0, elements = 0;
        std::vector<double> perElement(10, 0.0);
        const int draws = 400;
        for (int s = 0; s < draws; ++s) {
            const sdk::AugmentedSet a = aug.augment({sets, &t}, s % 6, 0x9e3779b97f4a7c15ull * std::uint64_t(s + 1));
            swapped += double(a.changes.size());
            elements += 10;
            if (s % 6 == 0)
                for (const auto& c : a.changes)
                    perElement[std::size_t(c.element)] += 1;
        }
        QVERIFY2(withinBinomial(swapped, elements, omega),
                 qPrintable(QString("omega %1: %2 of %3 swapped").arg(omega).arg(swapped).arg(elements)));
        const double draws0 = (draws + 5) / 6;
        for (double e : perElement)
            QVERIFY(withinBinomial(e, draws0, omega));
    }
}

void TestRegistered::randomPartnerIsUniform_data()
{
    QTest::addColumn<int>("variant");
    QTest::newRow("(1) random partner, uniform substitute") << 1;
    QTest::newRow("(2) random partner, along the flow") << 2;
}

void TestRegistered::randomPartnerIsUniform()
{
    QFETCH(int, variant);
    const std::vector<Set> batch = randomBatch(15, 5, 4, 2, true);
    const std::vector<sdk::SetRef> sets = refs(batch);
    FakeTransport t(batch);
    auto aug = make<PointSwapAugmentation>({{"variant", std::to_string(variant)}, {"omega", "0.5"}});
    const int draws = 2000;
    const std::int64_t self = 2;
    std::vector<double> counts(5, 0.0);
    for (int s = 0; s < draws; ++s) {
        // Variant 1 needs no transport at all.
        const sdk::AugmentedSet a = aug.augment({sets, variant == 1 ? nullptr : &t}, self, std::uint64_t(s) * 7919 + 3);
        QVERIFY(a.partner >= 0 && a.partner < 5 && a.partner != self);
        counts[std::size_t(a.partner)] += 1;
        if (variant == 2) {
            const auto ref = referenceFlow(batch[std::size_t(self)], batch[std::size_t(a.partner)]);
            for (const auto& c : a.changes)
                QVERIFY(ref.count({int(c.element), int(c.partnerElement)}) == 1);
        } else {
            for (const auto& c : a.changes)
                QCOMPARE(c.flow, 0.0);
        }
    }
    QCOMPARE(counts[std::size_t(self)], 0.0);
    for (std::int64_t k = 0; k < 5; ++k)
        if (k != self)
            QVERIFY2(withinBinomial(counts[std::size_t(k)], draws, 0.25),
                     qPrintable(QString("partner %1 chosen %2 times of %3").arg(k).arg(counts[std::size_t(k)]).arg(draws)));
    QCOMPARE(t.nearestCalls, 0);
    QCOMPARE(t.flowCalls, variant == 2 ? draws : 0);
}

void TestRegistered::variant3UniformSubstitute()
{
    const std::vector<Set> batch = randomBatch(16, 6, 5, 2, false, true);
    const std::vector<sdk::SetRef> sets = refs(batch);
    FakeTransport t(batch);
    auto aug = make<PointSwapAugmentation>({{"variant", "3"}, {"omega", "1"}});
    for (std::int64_t i = 0; i < std::ssize(batch); ++i) {
        const sdk::AugmentedSet a = aug.augment({sets, &t}, i, 17);
        QCOMPARE(a.partner, bruteNearest(batch, i));
        QCOMPARE(std::ssize(a.changes), batch[std::size_t(i)].n());
        for (const auto& c : a.changes) {
            QCOMPARE(c.flow, 0.0);
            QVERIFY(c.partnerElement >= 0 && c.partnerElement < batch[std::size_t(a.partner)].n());
        }
    }
    QCOMPARE(t.flowCalls, 0);
}

void TestRegistered::dropRate_data()
{
    QTest::addColumn<double>("p");
    QTest::newRow("0.3") << 0.3;
    QTest::newRow("0.5 (documents)") << 0.5;
    QTest::newRow("0.7 (graphs)") << 0.7;
}

void TestRegistered::dropRate()
{
    QFETCH(double, p);
    const std::vector<Set> batch = randomBatch(17, 3, 30, 2, false);
    const std::vector<sdk::SetRef> sets = refs(batch);
    auto aug = make<PointDropAugmentation>({{"p", std::to_string(p)}});
    double dropped = 0;
    const int draws = 600;
    const Set& x = batch[1];
    double total = 0;
    for (float w : x.w)
        total += w;
    for (int s = 0; s < draws; ++s) {
        const sdk::AugmentedSet a = aug.augment({sets, nullptr}, 1, std::uint64_t(s) * 104729 + 11);
        QCOMPARE(a.partner, std::int64_t(-1));
        QCOMPARE(a.set.count + std::ssize(a.changes), x.n());
        double sum = 0;
        for (float w : a.set.weights)
            sum += w;
        QVERIFY(std::abs(sum - total) <= 1e-5 * total); // kept weights rescaled to x's total
        std::int64_t out = 0;
        std::set<std::int64_t> gone;
        for (const auto& c : a.changes) {
            QCOMPARE(c.kind, std::string("dropped"));
            QCOMPARE(c.output, std::int64_t(-1));
            gone.insert(c.element);
        }
        for (std::int64_t e = 0; e < x.n(); ++e)
            if (!gone.count(e))
                QVERIFY(sameRow(a.set.values.data() + (out++) * x.d, x.row(e), x.d)); // order kept
        dropped += double(a.changes.size());
    }
    // P(all 30 dropped) <= 0.7^30 ~ 2e-5: the keep-one rule does not move the rate.
    QVERIFY2(withinBinomial(dropped, draws * 30.0, p),
             qPrintable(QString("%1 of %2 dropped").arg(dropped).arg(draws * 30)));
}

void TestRegistered::dropKeepsOneElement()
{
    Set x;
    x.d = 2;
    x.p = {0, 0, 1, 1, 2, 2, 3, 3, 4, 4};
    x.w = {0.0f, 0.5f, 0.0f, 1.5f, 2.0f}; // elements 0 and 2 carry no mass
    const std::vector<sdk::SetRef> sets{x.ref()};
    auto aug = make<PointDropAugmentation>({{"p", "1"}});
    std::set<std::int64_t> kept;
    for (std::uint64_t s = 0; s < 60; ++s) {
        const sdk::AugmentedSet a = aug.augment({sets, nullptr}, 0, s);
        QCOMPARE(a.set.count, std::int64_t(1));
        QVERIFY(a.set.weights[0] > 0.0f);
        QVERIFY(std::abs(a.set.weights[0] - 4.0f) <= 1e-6f); // x's total
        const std::int64_t e = std::int64_t(std::lround(a.set.values[0]));
        QVERIFY(e == 1 || e == 3 || e == 4);
        kept.insert(e);
        QVERIFY(sameAugmented(a, aug.augment({sets, nullptr}, 0, s))); // the seed chooses it
    }
    QCOMPARE(kept.size(), std::size_t(3)); // every element of positive weight can be the one
}

void TestRegistered::mixupAlongTheFlow()
{
    const std::vector<Set> batch = randomBatch(18, 6, 5, 3, false, true);
    const std::vector<sdk::SetRef> sets = refs(batch);
    FakeTransport t(batch);
    auto aug = make<PointMixupAugmentation>({{"lambda", "0.3"}});
    for (std::int64_t i = 0; i < std::ssize(batch); ++i) {
        const Set& x = batch[std::size_t(i)];
        const std::int64_t p = bruteNearest(batch, i);
        const Set& y = batch[std::size_t(p)];
        const auto ref = referenceFlow(x, y);
        const sdk::AugmentedSet a = aug.augment({sets, &t}, i, 0);
        QCOMPARE(a.partner, p);
        QVERIFY(!a.changes.empty());
        double total = 0, sum = 0;
        for (float w : x.w)
            total += w;
        for (float w : a.set.weights) {
            QVERIFY(w > 0.0f);
            sum += w;
        }
        QVERIFY(std::abs(sum - total) <= 1e-5 * total);
        for (const auto& c : a.changes) {
            QCOMPARE(c.kind, std::string("mixed"));
            QCOMPARE(c.partnerSet, p);
            const auto it = ref.find({int(c.element), int(c.partnerElement)});
            QVERIFY(it != ref.end());
            QCOMPARE(c.flow, it->second);
            for (int k = 0; k < x.d; ++k) {
                const double want = 0.7 * x.row(c.element)[k] + 0.3 * y.row(c.partnerElement)[k];
                QVERIFY(std::abs(a.set.values[std::size_t(c.output * x.d + k)] - want) <= 1e-5 * (1 + std::abs(want)));
            }
        }
    }
    QCOMPARE(t.flowCalls, int(batch.size()));
}

void TestRegistered::sameSeedSameResult()
{
    const std::vector<Set> batch = randomBatch(19, 6, 8, 2, false, true);
    const std::vector<sdk::SetRef> sets = refs(batch);
    FakeTransport t(batch);
    std::vector<std::unique_ptr<sdk::SetAugmentation>> augs;
    for (int v = 0; v < 4; ++v)
        augs.push_back(std::make_unique<PointSwapAugmentation>(
            sdk::OptionValues::resolve(PointSwapAugmentation::schema(), {{"variant", std::to_string(v)}}, "test")));
    augs.push_back(std::make_unique<PointDropAugmentation>(sdk::OptionValues::resolve(PointDropAugmentation::schema(), {}, "test")));
    for (std::size_t k = 0; k < augs.size(); ++k) {
        int differing = 0;
        for (std::int64_t i = 0; i < std::ssize(batch); ++i) {
            const sdk::AugmentedSet a = augs[k]->augment({sets, &t}, i, 1234);
            QVERIFY(sameAugmented(a, augs[k]->augment({sets, &t}, i, 1234)));
            if (!sameAugmented(a, augs[k]->augment({sets, &t}, i, 1235)))
                ++differing;
        }
        QVERIFY2(differing > 0, qPrintable(QString("augmentation %1 ignores the seed").arg(k)));
    }
    // PointMixup draws nothing: any seed gives the same set.
    auto mix = make<PointMixupAugmentation>({});
    QVERIFY(sameAugmented(mix.augment({sets, &t}, 2, 1), mix.augment({sets, &t}, 2, 2)));
}

void TestRegistered::batchOfOne()
{
    const std::vector<Set> batch = randomBatch(20, 1, 4, 2, false);
    const std::vector<sdk::SetRef> sets = refs(batch);
    FakeTransport t(batch);
    auto swap = make<PointSwapAugmentation>({});
    auto mix = make<PointMixupAugmentation>({});
    for (sdk::SetAugmentation* aug : std::initializer_list<sdk::SetAugmentation*>{&swap, &mix}) {
        const sdk::AugmentedSet a = aug->augment({sets, &t}, 0, 3);
        QCOMPARE(a.partner, std::int64_t(-1));
        QVERIFY(a.changes.empty());
        QCOMPARE(a.set.values, batch[0].p);
        QCOMPARE(a.set.weights, batch[0].w);
    }
    QCOMPARE(t.flowCalls + t.nearestCalls, 0);
}

void TestRegistered::errors()
{
    std::vector<Set> batch = randomBatch(21, 4, 3, 2, false);
    batch[2].p[1] = std::nanf("");
    const std::vector<sdk::SetRef> sets = refs(batch);
    FakeTransport t(batch);
    auto swap = make<PointSwapAugmentation>({});
    auto drop = make<PointDropAugmentation>({});
    auto mix = make<PointMixupAugmentation>({});
    for (sdk::SetAugmentation* aug : std::initializer_list<sdk::SetAugmentation*>{&swap, &drop, &mix}) {
        try {
            aug->augment({sets, &t}, 2, 0);
            QFAIL("no error for a set with NaN");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString(e.what()).startsWith("batch set 2: "), e.what());
        }
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, aug->augment({sets, &t}, 4, 0));
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, aug->augment({sets, &t}, -1, 0));
    }
    // An augmentation that needs the transport and is not given one is a programming error.
    const std::vector<Set> good = randomBatch(22, 3, 3, 2, false);
    const std::vector<sdk::SetRef> goodSets = refs(good);
    for (sdk::SetAugmentation* aug : std::initializer_list<sdk::SetAugmentation*>{&swap, &mix}) {
        try {
            aug->augment({goodSets, nullptr}, 0, 0);
            QFAIL("no error without the transport");
        } catch (const std::invalid_argument& e) {
            QFAIL(e.what());
        } catch (const std::out_of_range& e) {
            QFAIL(e.what());
        } catch (const std::logic_error& e) {
            QVERIFY2(QString(e.what()).contains("needs the batch transport"), e.what());
        }
    }
}

QTEST_GUILESS_MAIN(TestRegistered)
#include "tst_SetAugmentations.moc"
