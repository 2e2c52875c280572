// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/losses/Mining.h"

#include <torch/torch.h>

#include <limits>
#include <stdexcept>

namespace setscope::losses {

namespace {

/// Per row, the lowest column index where `mask` (A x N bool) is true; -1 for an all-false row.
torch::Tensor firstTrueColumn(const torch::Tensor& mask)
{
    const auto n = mask.size(1);
    if (n == 0)
        return torch::full({mask.size(0)}, -1, torch::TensorOptions().dtype(torch::kInt64).device(mask.device()));
    const torch::Tensor cols = torch::arange(n, torch::TensorOptions().dtype(torch::kInt64).device(mask.device()));
    const torch::Tensor first = cols.unsqueeze(0).expand_as(mask).masked_fill(~mask, n).amin(1);
    return first.masked_fill(first == n, -1);
}

} // namespace

torch::Tensor pairwiseSquaredDistances(const torch::Tensor& x)
{
    const torch::Tensor sq = x.pow(2).sum(1);
    torch::Tensor d2 = sq.unsqueeze(1) + sq.unsqueeze(0) - 2.0 * x.matmul(x.t());
    d2 = d2.clamp_min(0.0);
    // Exact zeros on the diagonal (rounding leaves tiny values otherwise).
    const torch::Tensor eye = torch::eye(x.size(0), torch::TensorOptions().dtype(torch::kBool).device(x.device()));
    return d2.masked_fill(eye, 0.0);
}

torch::Tensor safeSqrt(const torch::Tensor& d2, double eps) { return d2.clamp_min(eps).sqrt(); }

PairMasks pairMasks(const torch::Tensor& labels)
{
    const torch::Tensor valid = labels >= 0;
    const torch::Tensor bothValid = valid.unsqueeze(1) & valid.unsqueeze(0);
    const torch::Tensor same = labels.unsqueeze(1) == labels.unsqueeze(0);
    const auto b = labels.size(0);
    const torch::Tensor eye = torch::eye(b, torch::TensorOptions().dtype(torch::kBool).device(labels.device()));
    return {same & bothValid & ~eye, ~same & bothValid};
}

PairTerms marginPairTerms(const torch::Tensor& distances, const torch::Tensor& labels, double margin)
{
    const PairMasks m = pairMasks(labels);
    const auto b = distances.size(0);
    const torch::Tensor upper =
        torch::ones({b, b}, torch::TensorOptions().dtype(torch::kBool).device(distances.device())).triu(1);
    const torch::Tensor pos = m.positive & upper;
    const torch::Tensor neg = m.negative & upper;
    PairTerms out;
    out.terms = (pos | neg).sum().item<std::int64_t>();
    if (out.terms == 0) {
        out.loss = distances.sum() * 0.0;
        return out;
    }
    const torch::Tensor posTerm = distances.masked_select(pos);
    const torch::Tensor negTerm = torch::relu(margin - distances.masked_select(neg));
    out.active = (posTerm > 0).sum().item<std::int64_t>() + (negTerm > 0).sum().item<std::int64_t>();
    out.loss = (posTerm.sum() + negTerm.sum()) / static_cast<double>(out.terms);
    return out;
}

torch::Tensor semiHardNegatives(const torch::Tensor& dIn, const torch::Tensor& labels)
{
    torch::NoGradGuard noGrad;
    const torch::Tensor d = dIn.detach();
    const PairMasks m = pairMasks(labels);
    const auto b = d.size(0);
    const double inf = std::numeric_limits<double>::infinity();

    // Fallback per anchor: the farthest negative.
    const torch::Tensor dNegOnly = d.masked_fill(~m.negative, -inf);
    const auto [farVal, farIdx] = dNegOnly.max(1); // B
    const torch::Tensor anchorHasNeg = m.negative.any(1);

    torch::Tensor out = torch::full({b, b}, -1, torch::TensorOptions().dtype(torch::kInt64).device(d.device()));
    // Work in anchor chunks so memory stays O(chunk * B * B).
    const std::int64_t chunk = 64;
    for (std::int64_t a0 = 0; a0 < b; a0 += chunk) {
        const std::int64_t a1 = std::min(b, a0 + chunk);
        const torch::Tensor dap = d.slice(0, a0, a1).unsqueeze(2);                  // c x B(p) x 1
        const torch::Tensor dan = d.slice(0, a0, a1).unsqueeze(1);                  // c x 1 x B(n)
        const torch::Tensor neg = m.negative.slice(0, a0, a1).unsqueeze(1);         // c x 1 x B(n)
        const torch::Tensor outside = neg & (dan > dap);                            // c x B x B
        const auto [minVal, minIdx] = dan.expand({a1 - a0, b, b}).masked_fill(~outside, inf).min(2); // c x B
        const torch::Tensor hasOutside = outside.any(2);
        torch::Tensor chosen = torch::where(hasOutside, minIdx, farIdx.slice(0, a0, a1).unsqueeze(1).expand({a1 - a0, b}));
        const torch::Tensor use = m.positive.slice(0, a0, a1) & anchorHasNeg.slice(0, a0, a1).unsqueeze(1);
        out.slice(0, a0, a1).copy_(torch::where(use, chosen, torch::full_like(chosen, -1)));
    }
    return out;
}

torch::Tensor nearestOther(const torch::Tensor& dIn)
{
    torch::NoGradGuard noGrad;
    if (dIn.dim() != 2 || dIn.size(0) != dIn.size(1))
        throw std::invalid_argument("nearestOther: expected a square B x B distance matrix");
    const auto b = dIn.size(0);
    const auto opts = torch::TensorOptions().dtype(torch::kInt64).device(dIn.device());
    if (b < 2)
        return torch::full({b}, -1, opts);
    const torch::Tensor eye = torch::eye(b, torch::TensorOptions().dtype(torch::kBool).device(dIn.device()));
    const torch::Tensor d = dIn.detach().masked_fill(eye, std::numeric_limits<double>::infinity());
    // amin + an explicit first-index pick: argmin does not promise which of equal values it returns.
    const torch::Tensor best = d.amin(1, /*keepdim=*/true);
    return firstTrueColumn((d == best) & ~eye);
}

torch::Tensor semiHardNegatives(const torch::Tensor& dIn, const torch::Tensor& positiveDistance,
                                const torch::Tensor& candidates)
{
    torch::NoGradGuard noGrad;
    if (dIn.dim() != 2 || positiveDistance.dim() != 1 || positiveDistance.size(0) != dIn.size(0) ||
        candidates.sizes() != dIn.sizes() || candidates.scalar_type() != torch::kBool)
        throw std::invalid_argument("semiHardNegatives: expected d A x N, positiveDistance A, candidates A x N bool");
    if (dIn.size(1) == 0) // no column at all: amin/amax below would reduce over nothing
        return torch::full({dIn.size(0)}, -1, torch::TensorOptions().dtype(torch::kInt64).device(dIn.device()));
    const double inf = std::numeric_limits<double>::infinity();
    const torch::Tensor d = dIn.detach();
    const torch::Tensor outside = candidates & (d > positiveDistance.detach().unsqueeze(1));
    const torch::Tensor nearestOutside = d.masked_fill(~outside, inf).amin(1, /*keepdim=*/true);
    const torch::Tensor semiHard = firstTrueColumn(outside & (d == nearestOutside));
    const torch::Tensor farthest = d.masked_fill(~candidates, -inf).amax(1, /*keepdim=*/true);
    const torch::Tensor fallback = firstTrueColumn(candidates & (d == farthest));
    return torch::where(outside.any(1), semiHard, fallback);
}

} // namespace setscope::losses
