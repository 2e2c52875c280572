// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/augment/Augmentation.h"

#include "core/ot/Emd.h"

#include <cmath>
#include <sstream>

namespace setscope::augment {

std::uint64_t uniformIndex(Rng& rng, std::uint64_t n)
{
    if (n == 0)
        throw std::invalid_argument("uniformIndex: n must be positive");
    // Largest multiple of n that fits: draws at or above it would favour small residues.
    const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % n;
    for (;;) {
        const std::uint64_t r = rng();
        if (r < limit)
            return r % n;
    }
}

const char* changeKindName(ChangeKind k)
{
    switch (k) {
    case ChangeKind::Swapped: return "swapped";
    case ChangeKind::Dropped: return "dropped";
    case ChangeKind::Mixed: return "mixed";
    }
    return "?";
}

void checkProbability(double v, const char* what, const char* name)
{
    if (!(v >= 0.0 && v <= 1.0)) {
        std::ostringstream s;
        s << what << ": " << name << " must be in [0, 1] (got " << v << ")";
        throw ot::OtError(s.str());
    }
}

void checkSet(const ot::PointSet& s, const std::string& name, const char* what)
{
    try {
        ot::validate(s, name);
    } catch (const ot::OtError& e) {
        throw ot::OtError(std::string(what) + ": " + e.what());
    }
}

void checkPair(const ot::PointSet& x, const ot::PointSet& partner, const char* what)
{
    checkSet(x, "set x", what);
    checkSet(partner, "partner set", what);
    if (x.d != partner.d)
        throw ot::OtError(std::string(what) + ": set x has dimension " + std::to_string(x.d) + " but the partner set has " +
                          std::to_string(partner.d));
}

void checkFlow(std::span<const ot::Flow> flow, const ot::PointSet& x, const ot::PointSet& partner, const char* what)
{
    for (std::size_t k = 0; k < flow.size(); ++k) {
        const ot::Flow& f = flow[k];
        std::ostringstream problem;
        if (f.i < 0 || f.i >= x.n)
            problem << "element " << f.i << " of set x is out of range (the set has " << x.n << ")";
        else if (f.j < 0 || f.j >= partner.n)
            problem << "element " << f.j << " of the partner set is out of range (the set has " << partner.n << ")";
        else if (!(f.amount > 0.0) || !std::isfinite(f.amount))
            problem << "amount " << f.amount << " is not positive and finite";
        else if (k > 0 && (flow[k - 1].i > f.i || (flow[k - 1].i == f.i && flow[k - 1].j >= f.j)))
            problem << "not after arc " << k - 1 << " in ascending (i, j) order";
        if (!problem.str().empty())
            throw ot::OtError(std::string(what) + ": flow arc " + std::to_string(k) + " (" + std::to_string(f.i) +
                              " -> " + std::to_string(f.j) + "): " + problem.str());
    }
}

Nearest nearestByEmd(const ot::PointSet& x, std::span<const ot::PointSet> candidates, std::int64_t self,
                     ot::GroundDistance ground)
{
    checkSet(x, "set x", "EMD-nearest partner");
    ot::EmdSolver solver;
    ot::EmdOptions options;
    options.ground = ground;
    Nearest best;
    for (std::size_t c = 0; c < candidates.size(); ++c) {
        if (static_cast<std::int64_t>(c) == self)
            continue;
        const std::string name = "candidate " + std::to_string(c);
        checkSet(candidates[c], name, "EMD-nearest partner");
        if (candidates[c].d != x.d)
            throw ot::OtError("EMD-nearest partner: set x has dimension " + std::to_string(x.d) + " but " + name +
                              " has " + std::to_string(candidates[c].d));
        const double d = solver.solve(x, candidates[c], options).emd;
        if (best.index < 0 || d < best.emd) {
            best.index = static_cast<std::int64_t>(c);
            best.emd = d;
        }
    }
    if (best.index < 0)
        throw ot::OtError("EMD-nearest partner: no candidate besides set x (" + std::to_string(candidates.size()) +
                          " candidates)");
    return best;
}

} // namespace setscope::augment
