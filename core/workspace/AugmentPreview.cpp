// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/workspace/AugmentPreview.h"

#include "core/augment/PointMixup.h"
#include "core/data/Dataset.h"
#include "core/ot/EmdKnn.h"
#include "core/workspace/ItemText.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace setscope::workspace {

const char* augmentMethodName(AugmentMethod m)
{
    switch (m) {
    case AugmentMethod::PointSwap: return "pointswap";
    case AugmentMethod::PointDrop: return "pointdrop";
    case AugmentMethod::PointMixup: return "pointmixup";
    }
    return "?";
}

AugmentMethod parseAugmentMethod(const std::string& name)
{
    for (AugmentMethod m : {AugmentMethod::PointSwap, AugmentMethod::PointDrop, AugmentMethod::PointMixup})
        if (name == augmentMethodName(m))
            return m;
    throw std::invalid_argument("unknown method '" + name + "' (pointswap, pointdrop, pointmixup)");
}

void AugmentRequest::validate() const
{
    const auto [name, value] = method == AugmentMethod::PointSwap   ? std::pair("omega", omega)
                               : method == AugmentMethod::PointDrop ? std::pair("p", p)
                                                                    : std::pair("lambda", lambda);
    if (!(value >= 0.0 && value <= 1.0))
        throw std::invalid_argument(std::string(name) + " must be in [0, 1] (got " + std::to_string(value) + ")");
    if (method == AugmentMethod::PointSwap)
        (void)swapOptions();
}

augment::PointSwapOptions AugmentRequest::swapOptions() const
{
    augment::PointSwapOptions s;
    try {
        s = augment::PointSwapOptions::variant(variant, omega);
    } catch (const ot::OtError& e) {
        throw std::invalid_argument(std::string("variant: ") + e.what());
    }
    s.pick = pick;
    return s;
}

Partner nearestPartner(const data::Dataset& ds, std::int64_t item, job::JobControl* control)
{
    std::string pool;
    const std::vector<std::int64_t> cands = otherItems(ds, item, false, &pool);
    if (cands.empty())
        throw std::invalid_argument("item " + std::to_string(item) + " of '" + ds.name() + "': no other item of the " +
                                    pool + " to take as partner");
    ot::EmdKnnOptions eo;
    eo.control = control;
    const ot::EmdKnnResult nn = ot::emdKnnQueries(ds, {item}, cands, 1, eo).front();
    Partner p;
    p.item = nn.neighbours.front().item;
    p.emd = nn.neighbours.front().emd;
    p.chosenAs = "the EMD-nearest of " + std::to_string(cands.size()) + " items of the " + pool + " (" +
                 std::to_string(nn.stats.exactSolves) + " exact EMD solves, the others pruned by lower bounds)";
    return p;
}

AugmentPreview previewAugmentation(const data::Dataset& ds, const AugmentRequest& request, Partner partner,
                                   const Vocabulary* vocabulary, job::JobControl* control)
{
    request.validate();
    const std::size_t item = requireItem(ds, request.item);
    AugmentPreview out;
    out.request = request;
    augment::Rng rng(request.seed);
    const augment::PointSwapOptions swap = request.swapOptions();
    const bool needsPartner = request.method != AugmentMethod::PointDrop;
    if (needsPartner && request.method == AugmentMethod::PointSwap && swap.partner == augment::PartnerChoice::Random) {
        std::string pool;
        const std::vector<std::int64_t> cands = otherItems(ds, request.item, false, &pool);
        if (cands.empty())
            throw std::invalid_argument("item " + std::to_string(item) + " of '" + ds.name() + "': no other item of the " +
                                        pool + " to take as partner");
        partner = {};
        partner.item = cands[static_cast<std::size_t>(augment::uniformIndex(rng, cands.size()))];
        partner.chosenAs = "a random item of the " + pool + " (variant " + std::to_string(request.variant) + ")";
    } else if (needsPartner && partner.item < 0) {
        partner = nearestPartner(ds, request.item, control);
    } else if (!needsPartner) {
        partner = {};
    }

    const ot::PointSet x = ot::pointSet(ds, item);
    const std::string where = "'" + ds.name() + "' item " + std::to_string(item);
    try {
        switch (request.method) {
        case AugmentMethod::PointSwap:
            out.augmented = augment::pointSwapWith(x, ot::pointSet(ds, static_cast<std::size_t>(partner.item)),
                                                   partner.item, swap, rng);
            break;
        case AugmentMethod::PointDrop:
            out.augmented = augment::pointDrop(x, {request.p}, rng);
            break;
        case AugmentMethod::PointMixup:
            out.augmented = augment::pointMixupWith(x, ot::pointSet(ds, static_cast<std::size_t>(partner.item)),
                                                    partner.item, {request.lambda});
            break;
        }
    } catch (const ot::OtError& e) {
        throw ot::OtError(where + ": " + e.what());
    }
    if (needsPartner && std::isnan(partner.emd))
        partner.emd = out.augmented.partnerEmd;
    out.partner = partner;
    out.elements = x.n;
    for (std::int64_t i = 0; i < x.n; ++i)
        out.totalWeight += x.weights[i];

    const std::size_t pidx = static_cast<std::size_t>(std::max<std::int64_t>(partner.item, 0));
    const augment::Augmented& a = out.augmented;
    for (const augment::Change& c : a.changes) {
        ChangeRow row;
        row.change = c;
        row.original = describeElement(ds, item, c.element);
        row.weight = x.weights[c.element];
        if (c.kind != augment::ChangeKind::Dropped)
            row.substitute = describeElement(ds, pidx, c.partnerElement);
        if (c.kind == augment::ChangeKind::Mixed) {
            const float* v = a.points.data() + c.output * a.d;
            if (vocabulary && !vocabulary->empty()) {
                row.mixed = vocabulary->nearest(v);
            } else {
                std::string s = "(";
                for (int k = 0; k < std::min(a.d, 4); ++k) {
                    char buf[32];
                    std::snprintf(buf, sizeof buf, "%.4g", v[k]);
                    s += (k ? ", " : "") + std::string(buf);
                }
                row.mixed = s + (a.d > 4 ? ", ...)" : ")");
            }
        }
        out.rows.push_back(std::move(row));
    }
    return out;
}

} // namespace setscope::workspace
