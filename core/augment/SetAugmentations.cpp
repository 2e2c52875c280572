// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/augment/SetAugmentations.h"

#include <stdexcept>
#include <string>
#include <utility>

namespace setscope::augment {

namespace {

constexpr const char* kPickProportional = "proportional";
constexpr const char* kPickLargest = "largest";

void checkIndex(const sdk::AugmentationBatch& batch, std::int64_t index, const char* what)
{
    if (index < 0 || index >= static_cast<std::int64_t>(batch.sets.size()))
        throw std::out_of_range(std::string(what) + ": set " + std::to_string(index) + " is not in the batch of " +
                                std::to_string(batch.sets.size()));
}

sdk::BatchTransport& requireTransport(const sdk::AugmentationBatch& batch, const char* what)
{
    if (!batch.transport)
        throw std::logic_error(std::string(what) + " needs the batch transport (needsTransport() is true) but got none");
    return *batch.transport;
}

/// Runs `f` and puts the batch position in front of an OtError's message, so that a user
/// can find the set ("batch set 3: PointSwap: set x is empty").
template <typename F>
auto naming(std::int64_t index, F&& f)
{
    try {
        return f();
    } catch (const ot::OtError& e) {
        throw ot::OtError("batch set " + std::to_string(index) + ": " + e.what());
    }
}

std::vector<ot::Flow> toFlows(const std::vector<sdk::TransportArc>& arcs)
{
    std::vector<ot::Flow> out;
    out.reserve(arcs.size());
    for (const sdk::TransportArc& a : arcs)
        out.push_back({a.i, a.j, a.amount});
    return out;
}

/// The set unchanged (a batch of one set has no partner to swap or mix with).
sdk::AugmentedSet unchanged(const sdk::SetRef& s)
{
    const auto n = static_cast<std::size_t>(s.count);
    sdk::AugmentedSet out;
    out.set.values.assign(s.values, s.values + n * static_cast<std::size_t>(s.dim));
    out.set.weights.assign(s.weights, s.weights + n);
    out.set.count = s.count;
    out.set.dim = s.dim;
    return out;
}

} // namespace

sdk::AugmentedSet toSdk(Augmented a)
{
    sdk::AugmentedSet out;
    out.set.values = std::move(a.points);
    out.set.weights = std::move(a.weights);
    out.set.count = a.n;
    out.set.dim = a.d;
    out.partner = a.partner;
    out.changes.reserve(a.changes.size());
    for (const Change& c : a.changes)
        out.changes.push_back({changeKindName(c.kind), c.element, c.output, c.partnerSet, c.partnerElement, c.flow});
    return out;
}

// --- PointSwap ---------------------------------------------------------------------------

sdk::OptionSchema PointSwapAugmentation::schema()
{
    return {
        sdk::OptionSpec::real("omega", 0.5, 0.0, 1.0,
                              "ω of Eq. 6 (seed 001 §4.2): probability that an element is swapped; 0.5 is the "
                              "paper's best (Table 10)"),
        sdk::OptionSpec::integer("variant", 0, 0, 3,
                                 "seed 001 Table 11: 0 = PointSwap (EMD-nearest partner, along the optimal flow), "
                                 "1 = random partner and substitute, 2 = random partner along the flow, "
                                 "3 = EMD-nearest partner, random substitute"),
        sdk::OptionSpec::choice("pick", kPickProportional, {kPickProportional, kPickLargest},
                                "which x^p_j with f'_ij > 0 replaces x_i (Eq. 6): drawn with probability "
                                "f'_ij / Σ_j f'_ij, or the largest f'_ij"),
    };
}

PointSwapAugmentation::PointSwapAugmentation(const sdk::OptionValues& options)
    : m_variant(static_cast<int>(options.integer("variant")))
{
    m_options = PointSwapOptions::variant(m_variant, options.real("omega"));
    m_options.pick = options.text("pick") == kPickLargest ? FlowPick::Largest : FlowPick::Proportional;
    checkProbability(m_options.omega, "PointSwap", "omega");
}

bool PointSwapAugmentation::needsTransport() const
{
    return !(m_options.partner == PartnerChoice::Random && m_options.substitute == SubstituteChoice::Uniform);
}

sdk::AugmentedSet PointSwapAugmentation::augment(const sdk::AugmentationBatch& batch, std::int64_t index,
                                                 std::uint64_t seed)
{
    checkIndex(batch, index, "PointSwap");
    const ot::PointSet x = toPointSet(batch.sets[static_cast<std::size_t>(index)]);
    naming(index, [&] {
        checkSet(x, "set x", "PointSwap");
        return 0;
    });
    const auto size = static_cast<std::int64_t>(batch.sets.size());
    if (size < 2)
        return unchanged(batch.sets[static_cast<std::size_t>(index)]);

    Rng rng(seed);
    std::int64_t p = -1;
    if (m_options.partner == PartnerChoice::NearestEmd) {
        p = requireTransport(batch, "PointSwap").nearest(index);
    } else {
        p = static_cast<std::int64_t>(uniformIndex(rng, static_cast<std::uint64_t>(size - 1)));
        if (p >= index)
            ++p;
    }
    const ot::PointSet partner = toPointSet(batch.sets[static_cast<std::size_t>(p)]);
    if (m_options.substitute == SubstituteChoice::Uniform) // no flow: nothing is solved
        return toSdk(naming(index, [&] { return pointSwapWith(x, partner, p, m_options, rng); }));
    // The transport's errors name the batch position and the dataset item themselves.
    const std::vector<ot::Flow> flow = toFlows(requireTransport(batch, "PointSwap").flows(index, p));
    return toSdk(naming(index, [&] { return pointSwapWithFlow(x, partner, p, flow, m_options, rng); }));
}

// --- PointDrop ---------------------------------------------------------------------------

sdk::OptionSchema PointDropAugmentation::schema()
{
    return {
        sdk::OptionSpec::real("p", kPointDropDocuments, 0.0, 1.0,
                              "probability of dropping each element (seed 001 §6.3); the paper uses 0.5 for "
                              "documents and 0.7 for graphs (Table 10); one element always stays"),
    };
}

PointDropAugmentation::PointDropAugmentation(const sdk::OptionValues& options)
{
    m_options.p = options.real("p");
    checkProbability(m_options.p, "PointDrop", "p");
}

sdk::AugmentedSet PointDropAugmentation::augment(const sdk::AugmentationBatch& batch, std::int64_t index,
                                                 std::uint64_t seed)
{
    checkIndex(batch, index, "PointDrop");
    const ot::PointSet x = toPointSet(batch.sets[static_cast<std::size_t>(index)]);
    Rng rng(seed);
    return toSdk(naming(index, [&] { return pointDrop(x, m_options, rng); }));
}

// --- PointMixup --------------------------------------------------------------------------

sdk::OptionSchema PointMixupAugmentation::schema()
{
    return {
        sdk::OptionSpec::real("lambda", 0.5, 0.0, 1.0,
                              "mix ratio λ of PointMixup (seed 001 ref. [26]): 0 keeps the set, 1 gives its "
                              "EMD-nearest partner; the paper uses 0.5 (Table 10)"),
    };
}

PointMixupAugmentation::PointMixupAugmentation(const sdk::OptionValues& options)
{
    m_options.lambda = options.real("lambda");
    checkProbability(m_options.lambda, "PointMixup", "lambda");
}

sdk::AugmentedSet PointMixupAugmentation::augment(const sdk::AugmentationBatch& batch, std::int64_t index,
                                                  std::uint64_t /*seed*/)
{
    checkIndex(batch, index, "PointMixup");
    const ot::PointSet x = toPointSet(batch.sets[static_cast<std::size_t>(index)]);
    naming(index, [&] {
        checkSet(x, "set x", "PointMixup");
        return 0;
    });
    if (batch.sets.size() < 2)
        return unchanged(batch.sets[static_cast<std::size_t>(index)]);
    sdk::BatchTransport& transport = requireTransport(batch, "PointMixup");
    const std::int64_t p = transport.nearest(index);
    const std::vector<ot::Flow> flow = toFlows(transport.flows(index, p));
    const ot::PointSet partner = toPointSet(batch.sets[static_cast<std::size_t>(p)]);
    return toSdk(naming(index, [&] { return pointMixupWithFlow(x, partner, p, flow, m_options); }));
}

sdk::AugmentationInfo pointSwapInfo()
{
    return {"pointswap",
            "PointSwap: elements swapped along the optimal flow to the EMD-nearest set of the batch (seed 001 Eq. 6; "
            "variants 1-3 of Table 11)",
            PointSwapAugmentation::schema(),
            [](const sdk::AugmentationSpec& s) -> std::unique_ptr<sdk::SetAugmentation> {
                return std::make_unique<PointSwapAugmentation>(s.options);
            }};
}

sdk::AugmentationInfo pointDropInfo()
{
    return {"pointdrop", "PointDrop: each element dropped with probability p (seed 001 §4.2)",
            PointDropAugmentation::schema(),
            [](const sdk::AugmentationSpec& s) -> std::unique_ptr<sdk::SetAugmentation> {
                return std::make_unique<PointDropAugmentation>(s.options);
            }};
}

sdk::AugmentationInfo pointMixupInfo()
{
    return {"pointmixup", "PointMixup: interpolation along the optimal assignment to the EMD-nearest set, λ (seed 001 §7)",
            PointMixupAugmentation::schema(),
            [](const sdk::AugmentationSpec& s) -> std::unique_ptr<sdk::SetAugmentation> {
                return std::make_unique<PointMixupAugmentation>(s.options);
            }};
}

} // namespace setscope::augment
