// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// `augment`: one augmentation of one item, and what it changed (seed 001 Table 12).
#include "CliContext.h"
#include "Commands.h"

#include "core/augment/PointDrop.h"
#include "core/augment/PointMixup.h"
#include "core/augment/PointSwap.h"
#include "core/data/Dataset.h"
#include "core/ot/EmdKnn.h"

#include <setscope/sdk/Errors.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <unordered_map>

namespace setscope::cli {

namespace {

/// What an element is, for printing: its word, or its first coordinates.
std::string describeElement(const data::Dataset& ds, std::size_t item, std::int64_t e)
{
    const std::size_t global = static_cast<std::size_t>(ds.offsets()[item]) + static_cast<std::size_t>(e);
    if (ds.hasElementText() && !ds.elementText(global).empty())
        return ds.elementText(global);
    std::string s = "(";
    const data::ItemView it = ds.item(item);
    for (int k = 0; k < std::min(ds.dim(), 4); ++k) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.4g", it.element(static_cast<std::size_t>(e))[static_cast<std::size_t>(k)]);
        s += (k ? ", " : "") + std::string(buf);
    }
    return s + (ds.dim() > 4 ? ", ...)" : ")");
}

/// The dataset's words (distinct element texts, the vector of each one's first occurrence):
/// PointMixup's interpolated vectors are shown as their nearest word, as seed 001 Table 12
/// does.
class Vocabulary {
public:
    explicit Vocabulary(const data::Dataset& ds)
        : m_ds(ds)
    {
        std::unordered_map<std::string, std::size_t> seen;
        for (std::size_t e = 0; e < ds.elementCount(); ++e) {
            const std::string& w = ds.elementText(e);
            if (!w.empty() && seen.emplace(w, e).second)
                m_first.push_back(e);
        }
    }
    bool empty() const { return m_first.empty(); }
    const std::string& nearest(const float* v) const
    {
        const std::size_t d = static_cast<std::size_t>(m_ds.dim());
        double best = std::numeric_limits<double>::infinity();
        std::size_t arg = m_first.front();
        for (const std::size_t e : m_first) {
            const float* u = m_ds.values().data() + e * d;
            double s = 0;
            for (std::size_t k = 0; k < d && s < best; ++k)
                s += (double(u[k]) - v[k]) * (double(u[k]) - v[k]);
            if (s < best) {
                best = s;
                arg = e;
            }
        }
        return m_ds.elementText(arg);
    }

private:
    const data::Dataset& m_ds;
    std::vector<std::size_t> m_first;
};

} // namespace

void addAugmentCommand(CLI::App& app, ContextFn ctx, int& rc)
{
    auto* cmd = app.add_subcommand(
        "augment", "One augmentation of one item (seed 001 §4.2, §7.8): PointSwap (Eq. 6, and the ablation variants "
                   "(1)-(3) of Table 11), PointDrop or PointMixup; prints what changed (original -> substitute, with "
                   "the optimal flow) and the partner used: the EMD-nearest item of the train split");
    struct Opt {
        std::string dataset, method, pick = "proportional", labelSet = "fine";
        std::int64_t item = -1;
        double omega = 0.5, p = augment::kPointDropDocuments, lambda = 0.5;
        int variant = 0;
        std::uint64_t seed = 1;
        bool json = false;
    };
    auto o = std::make_shared<Opt>();
    cmd->add_option("--dataset", o->dataset, "dataset name or path")->required();
    cmd->add_option("--item", o->item, "the item to augment")->required();
    cmd->add_option("--method", o->method, "pointswap | pointdrop | pointmixup")->required();
    cmd->add_option("--omega", o->omega, "PointSwap: probability of swapping each element (Eq. 6)")->capture_default_str();
    cmd->add_option("--variant", o->variant,
                    "PointSwap: 0 = PointSwap; Table 11's ablations: 1 = random partner, random substitute; 2 = random "
                    "partner, substitute along the flow; 3 = EMD-nearest partner, random substitute")
        ->capture_default_str();
    cmd->add_option("--pick", o->pick,
                    "PointSwap: substitute among the elements with positive flow: proportional (to the flow) | largest")
        ->capture_default_str();
    cmd->add_option("--p", o->p, "PointDrop: probability of dropping each element (0.5 documents, 0.7 graphs)")
        ->capture_default_str();
    cmd->add_option("--lambda", o->lambda, "PointMixup: mix ratio (0 = the item, 1 = its partner)")->capture_default_str();
    cmd->add_option("--seed", o->seed, "random seed (the same seed gives the same augmentation)")->capture_default_str();
    cmd->add_option("--label-set", o->labelSet, "labels shown beside the items")->capture_default_str();
    cmd->add_flag("--json", o->json, "print the record as JSON");
    cmd->callback([ctx, o, &rc] {
        if (o->method != "pointswap" && o->method != "pointdrop" && o->method != "pointmixup")
            throw sdk::InputError("--method", "", "unknown method '" + o->method + "' (pointswap, pointdrop, pointmixup)");
        // Option values first: a typo should not wait for a large dataset to load.
        const std::pair<const char*, double> value = o->method == "pointswap"   ? std::pair("omega", o->omega)
                                                     : o->method == "pointdrop" ? std::pair("p", o->p)
                                                                                : std::pair("lambda", o->lambda);
        if (!(value.second >= 0.0 && value.second <= 1.0))
            throw sdk::InputError(std::string("--") + value.first, "",
                                  "must be in [0, 1] (got " + std::to_string(value.second) + ")");
        augment::PointSwapOptions swap;
        try {
            swap = augment::PointSwapOptions::variant(o->variant, o->omega);
        } catch (const ot::OtError& e) {
            throw sdk::InputError("--variant", "", e.what());
        }
        if (o->pick == "largest")
            swap.pick = augment::FlowPick::Largest;
        else if (o->pick != "proportional")
            throw sdk::InputError("--pick", "", "unknown pick '" + o->pick + "' (proportional, largest)");

        const auto ds = ctx().openDataset(o->dataset);
        if (o->item < 0 || static_cast<std::size_t>(o->item) >= ds->size())
            throw sdk::InputError("--item", "", std::to_string(o->item) + " is not an item of '" + ds->name() + "' (0.." +
                                                    std::to_string(ds->size() - 1) + ")");
        const std::size_t item = static_cast<std::size_t>(o->item);
        augment::Rng rng(o->seed);

        // The partner: the EMD-nearest item of the train split (all items when there is no
        // train split), or a random one for the ablation variants (1) and (2).
        std::vector<std::int64_t> cands = ds->indices(data::Split::Train);
        std::string pool = "train split";
        if (cands.empty()) {
            cands.resize(ds->size());
            std::iota(cands.begin(), cands.end(), 0);
            pool = "dataset (no train split)";
        }
        cands.erase(std::remove(cands.begin(), cands.end(), o->item), cands.end());
        std::int64_t partner = -1;
        double partnerEmd = std::numeric_limits<double>::quiet_NaN();
        std::string how;
        const bool needsPartner = o->method != "pointdrop";
        try {
            if (needsPartner && cands.empty())
                throw ot::OtError("no other item of the " + pool + " to take as partner");
            if (needsPartner && o->method == "pointswap" && swap.partner == augment::PartnerChoice::Random) {
                partner = cands[static_cast<std::size_t>(augment::uniformIndex(rng, cands.size()))];
                how = "a random item of the " + pool + " (variant " + std::to_string(o->variant) + ")";
            } else if (needsPartner) {
                const ot::EmdKnnResult nn = ot::emdKnn(*ds, o->item, cands, 1);
                partner = nn.neighbours.front().item;
                partnerEmd = nn.neighbours.front().emd;
                how = "the EMD-nearest of " + std::to_string(cands.size()) + " items of the " + pool + " (" +
                      std::to_string(nn.stats.exactSolves) + " exact EMD solves, the others pruned by lower bounds)";
            }
        } catch (const ot::OtError& e) {
            throw sdk::InputError(ds->name(), "item " + std::to_string(item), e.what());
        }

        const ot::PointSet x = ot::pointSet(*ds, item);
        augment::Augmented a;
        nlohmann::ordered_json options;
        std::string summary;
        try {
            if (o->method == "pointswap") {
                a = augment::pointSwapWith(x, ot::pointSet(*ds, static_cast<std::size_t>(partner)), partner, swap, rng);
                options = {{"omega", o->omega}, {"variant", o->variant}, {"pick", o->pick}};
                summary = "omega " + std::to_string(o->omega).substr(0, 4) + ", variant " + std::to_string(o->variant) +
                          ", pick " + o->pick;
            } else if (o->method == "pointdrop") {
                a = augment::pointDrop(x, {o->p}, rng);
                options = {{"p", o->p}};
                summary = "p " + std::to_string(o->p).substr(0, 4);
            } else {
                a = augment::pointMixupWith(x, ot::pointSet(*ds, static_cast<std::size_t>(partner)), partner, {o->lambda});
                options = {{"lambda", o->lambda}};
                summary = "lambda " + std::to_string(o->lambda).substr(0, 4);
            }
        } catch (const ot::OtError& e) {
            throw sdk::InputError(ds->name(), "item " + std::to_string(item), e.what());
        }
        if (needsPartner && std::isnan(partnerEmd))
            partnerEmd = a.partnerEmd;

        const bool words = ds->hasElementText();
        std::unique_ptr<Vocabulary> vocab;
        if (o->method == "pointmixup" && words)
            vocab = std::make_unique<Vocabulary>(*ds);
        const std::size_t pidx = static_cast<std::size_t>(std::max<std::int64_t>(partner, 0));
        double total = 0;
        for (std::int64_t i = 0; i < x.n; ++i)
            total += x.weights[i];

        nlohmann::ordered_json changes = nlohmann::ordered_json::array();
        for (const augment::Change& c : a.changes) {
            nlohmann::ordered_json j = {{"kind", augment::changeKindName(c.kind)},
                                {"element", c.element},
                                {"output", c.output},
                                {"original", describeElement(*ds, item, c.element)},
                                {"weight", x.weights[c.element]}};
            if (c.kind != augment::ChangeKind::Dropped) {
                j["partner_element"] = c.partnerElement;
                j["substitute"] = describeElement(*ds, pidx, c.partnerElement);
                j["flow"] = c.flow;
            }
            if (vocab && !vocab->empty())
                j["nearest_word"] = vocab->nearest(a.points.data() + c.output * a.d);
            else if (c.kind == augment::ChangeKind::Mixed)
                j["mixed"] = std::vector<float>(a.points.begin() + c.output * a.d, a.points.begin() + (c.output + 1) * a.d);
            changes.push_back(std::move(j));
        }

        if (o->json) {
            nlohmann::ordered_json out = {
                {"dataset", ds->name()},
                {"item", o->item},
                {"method", o->method},
                {"seed", o->seed},
                {"options", options},
                {"original",
                 {{"elements", x.n}, {"total_weight", total}, {"label", labelOf(*ds, item, o->labelSet)}}},
                {"augmented", {{"elements", a.n}, {"weights", a.weights}}},
                {"changes", changes}};
            if (needsPartner)
                out["partner"] = {{"item", partner},
                                  {"elements", ds->setSize(pidx)},
                                  {"emd", partnerEmd},
                                  {"label", labelOf(*ds, pidx, o->labelSet)},
                                  {"chosen_as", how}};
            else
                out["partner"] = nullptr;
            std::printf("%s\n", out.dump(2).c_str());
            rc = 0;
            return;
        }

        std::printf("item %zu of '%s' (%lld elements, label %s): %s (%s, seed %llu)\n", item, ds->name().c_str(),
                    static_cast<long long>(x.n), labelOf(*ds, item, o->labelSet).c_str(), o->method.c_str(),
                    summary.c_str(), static_cast<unsigned long long>(o->seed));
        if (needsPartner)
            std::printf("partner: item %lld (%zu elements, label %s), EMD %.6g, %s\n", static_cast<long long>(partner),
                        ds->setSize(pidx), labelOf(*ds, pidx, o->labelSet).c_str(), partnerEmd, how.c_str());
        else
            std::printf("partner: none (PointDrop uses no partner)\n");
        const char* unit = words ? "words" : "elements";
        if (o->method == "pointswap") {
            std::printf("swapped %zu of %lld %s (the augmented set keeps all %lld, with their weights)\n",
                        a.changes.size(), static_cast<long long>(x.n), unit, static_cast<long long>(a.n));
            std::printf("  %7s  %-24s -> %-24s %7s  %s\n", "element", "original", "substitute", "partner", "flow");
            for (const auto& j : changes)
                std::printf("  %7lld  %-24s -> %-24s %7lld  %.6g\n", j["element"].get<long long>(),
                            j["original"].get<std::string>().c_str(), j["substitute"].get<std::string>().c_str(),
                            j["partner_element"].get<long long>(), j["flow"].get<double>());
        } else if (o->method == "pointdrop") {
            std::printf("dropped %zu of %lld %s, kept %lld (weights rescaled to the original total)\n", a.changes.size(),
                        static_cast<long long>(x.n), unit, static_cast<long long>(a.n));
            std::printf("  %7s  %-24s %s\n", "element", "dropped", "weight");
            for (const auto& j : changes)
                std::printf("  %7lld  %-24s %.6g\n", j["element"].get<long long>(), j["original"].get<std::string>().c_str(),
                            j["weight"].get<double>());
        } else {
            std::printf("mixed %lld %s into %lld (one per arc of the optimal flow%s)\n", static_cast<long long>(x.n), unit,
                        static_cast<long long>(a.n),
                        a.n > static_cast<std::int64_t>(a.changes.size()) ? ", plus the mass the flow leaves unmoved" : "");
            if (vocab)
                std::printf("  %7s  %-24s + %-24s %7s  %-10s  %s\n", "element", "original", "partner word", "partner", "flow",
                            "nearest word to the mix");
            else
                std::printf("  %7s  %-24s + %-24s %7s  %-10s  %s\n", "element", "original", "partner element", "partner",
                            "flow", "mixed");
            for (const auto& j : changes) {
                std::printf("  %7lld  %-24s + %-24s %7lld  %-10.6g", j["element"].get<long long>(),
                            j["original"].get<std::string>().c_str(), j["substitute"].get<std::string>().c_str(),
                            j["partner_element"].get<long long>(), j["flow"].get<double>());
                if (j.contains("nearest_word")) {
                    std::printf("  %s", j["nearest_word"].get<std::string>().c_str());
                } else {
                    const auto m = j["mixed"].get<std::vector<float>>();
                    for (std::size_t k = 0; k < std::min<std::size_t>(m.size(), 4); ++k)
                        std::printf("%s%.4g", k ? ", " : "  (", m[k]);
                    std::printf("%s", m.size() > 4 ? ", ...)" : ")");
                }
                std::printf("\n");
            }
        }
        rc = 0;
    });
}

} // namespace setscope::cli
