// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// `augment`: one augmentation of one item, and what it changed (seed 001 Table 12).
#include "CliContext.h"
#include "Commands.h"

#include "core/augment/PointDrop.h"
#include "core/augment/PointMixup.h"
#include "core/augment/PointSwap.h"
#include "core/data/Dataset.h"
#include "core/workspace/AugmentPreview.h"
#include "core/workspace/ItemText.h"

#include <setscope/sdk/Errors.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

namespace setscope::cli {

namespace {

struct AugmentOpt {
    std::string dataset, method, pick = "proportional", labelSet = "fine";
    std::int64_t item = -1;
    double omega = 0.5, p = augment::kPointDropDocuments, lambda = 0.5;
    int variant = 0;
    std::uint64_t seed = 1;
    bool json = false;
};

void addAugmentFlags(CLI::App* cmd, AugmentOpt* o)
{
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
}

/// The flags as a workspace::AugmentRequest, checked before any data are read (a typo should not
/// wait for a large dataset to load); a bad value is an error naming its flag (exit status 2).
workspace::AugmentRequest augmentRequest(const AugmentOpt& o)
{
    workspace::AugmentRequest req;
    try {
        req.method = workspace::parseAugmentMethod(o.method);
    } catch (const std::invalid_argument& e) {
        throw sdk::InputError("--method", "", e.what());
    }
    req.item = o.item;
    req.omega = o.omega;
    req.variant = o.variant;
    req.p = o.p;
    req.lambda = o.lambda;
    req.seed = o.seed;
    if (o.pick == "largest")
        req.pick = augment::FlowPick::Largest;
    else if (o.pick != "proportional")
        throw sdk::InputError("--pick", "", "unknown pick '" + o.pick + "' (proportional, largest)");
    try {
        req.validate();
    } catch (const std::invalid_argument& e) {
        // "omega must be in [0, 1] (got 1.5)", "variant: ..." -> "--omega: must be in ..."
        const std::string msg = e.what();
        const std::size_t cut = msg.find_first_of(" :");
        const std::size_t rest = msg.find_first_not_of(" :", cut);
        throw sdk::InputError("--" + msg.substr(0, cut), "", rest == std::string::npos ? msg : msg.substr(rest));
    }
    return req;
}

/// What changed, one record per change (the JSON output's "changes" and the table's rows).
nlohmann::ordered_json changeRecords(const workspace::AugmentPreview& pv, const workspace::Vocabulary* vocab)
{
    const augment::Augmented& a = pv.augmented;
    nlohmann::ordered_json changes = nlohmann::ordered_json::array();
    for (const workspace::ChangeRow& row : pv.rows) {
        const augment::Change& c = row.change;
        nlohmann::ordered_json j = {{"kind", augment::changeKindName(c.kind)},
                                    {"element", c.element},
                                    {"output", c.output},
                                    {"original", row.original},
                                    {"weight", row.weight}};
        if (c.kind != augment::ChangeKind::Dropped) {
            j["partner_element"] = c.partnerElement;
            j["substitute"] = row.substitute;
            j["flow"] = c.flow;
        }
        if (vocab && !vocab->empty())
            j["nearest_word"] = row.mixed;
        else if (c.kind == augment::ChangeKind::Mixed)
            j["mixed"] = std::vector<float>(a.points.begin() + c.output * a.d, a.points.begin() + (c.output + 1) * a.d);
        changes.push_back(std::move(j));
    }
    return changes;
}

void printAugmentJson(const AugmentOpt& o, const data::Dataset& ds, std::size_t item, const workspace::AugmentPreview& pv,
                      bool needsPartner, const nlohmann::ordered_json& options, const nlohmann::ordered_json& changes)
{
    const augment::Augmented& a = pv.augmented;
    const ot::PointSet x = ot::pointSet(ds, item);
    const double total = pv.totalWeight;
    const std::int64_t partner = pv.partner.item;
    const double partnerEmd = pv.partner.emd;
    const std::string& how = pv.partner.chosenAs;
    const std::size_t pidx = static_cast<std::size_t>(std::max<std::int64_t>(partner, 0));
    nlohmann::ordered_json out = {
        {"dataset", ds.name()},
        {"item", o.item},
        {"method", o.method},
        {"seed", o.seed},
        {"options", options},
        {"original",
         {{"elements", x.n}, {"total_weight", total}, {"label", labelOf(ds, item, o.labelSet)}}},
        {"augmented", {{"elements", a.n}, {"weights", a.weights}}},
        {"changes", changes}};
    if (needsPartner)
        out["partner"] = {{"item", partner},
                          {"elements", ds.setSize(pidx)},
                          {"emd", partnerEmd},
                          {"label", labelOf(ds, pidx, o.labelSet)},
                          {"chosen_as", how}};
    else
        out["partner"] = nullptr;
    std::printf("%s\n", out.dump(2).c_str());
}

void printAugmentText(const AugmentOpt& o, const data::Dataset& ds, std::size_t item, const workspace::AugmentPreview& pv,
                      bool needsPartner, const std::string& summary, const nlohmann::ordered_json& changes, bool vocab)
{
    const augment::Augmented& a = pv.augmented;
    const ot::PointSet x = ot::pointSet(ds, item);
    const std::int64_t partner = pv.partner.item;
    const double partnerEmd = pv.partner.emd;
    const std::string& how = pv.partner.chosenAs;
    const std::size_t pidx = static_cast<std::size_t>(std::max<std::int64_t>(partner, 0));
    const bool words = ds.hasElementText();
    std::printf("item %zu of '%s' (%lld elements, label %s): %s (%s, seed %llu)\n", item, ds.name().c_str(),
                static_cast<long long>(x.n), labelOf(ds, item, o.labelSet).c_str(), o.method.c_str(),
                summary.c_str(), static_cast<unsigned long long>(o.seed));
    if (needsPartner)
        std::printf("partner: item %lld (%zu elements, label %s), EMD %.6g, %s\n", static_cast<long long>(partner),
                    ds.setSize(pidx), labelOf(ds, pidx, o.labelSet).c_str(), partnerEmd, how.c_str());
    else
        std::printf("partner: none (PointDrop uses no partner)\n");
    const char* unit = words ? "words" : "elements";
    if (o.method == "pointswap") {
        std::printf("swapped %zu of %lld %s (the augmented set keeps all %lld, with their weights)\n",
                    a.changes.size(), static_cast<long long>(x.n), unit, static_cast<long long>(a.n));
        std::printf("  %7s  %-24s -> %-24s %7s  %s\n", "element", "original", "substitute", "partner", "flow");
        for (const auto& j : changes)
            std::printf("  %7lld  %-24s -> %-24s %7lld  %.6g\n", j["element"].get<long long>(),
                        j["original"].get<std::string>().c_str(), j["substitute"].get<std::string>().c_str(),
                        j["partner_element"].get<long long>(), j["flow"].get<double>());
    } else if (o.method == "pointdrop") {
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
}

int runAugment(CliContext& context, const AugmentOpt& o)
{
    const workspace::AugmentRequest req = augmentRequest(o);
    const auto ds = context.openDataset(o.dataset);
    const std::size_t item = checkItem(*ds, o.item, "--item");
    std::unique_ptr<workspace::Vocabulary> vocab;
    if (req.method == workspace::AugmentMethod::PointMixup && ds->hasElementText())
        vocab = std::make_unique<workspace::Vocabulary>(*ds);
    workspace::AugmentPreview pv;
    try {
        pv = workspace::previewAugmentation(*ds, req, {}, vocab.get());
    } catch (const std::invalid_argument& e) { // ot::OtError too
        throw sdk::InputError(ds->name(), "item " + std::to_string(item), e.what());
    }
    nlohmann::ordered_json options;
    std::string summary;
    switch (req.method) {
    case workspace::AugmentMethod::PointSwap:
        options = {{"omega", o.omega}, {"variant", o.variant}, {"pick", o.pick}};
        summary = "omega " + std::to_string(o.omega).substr(0, 4) + ", variant " + std::to_string(o.variant) + ", pick " +
                  o.pick;
        break;
    case workspace::AugmentMethod::PointDrop:
        options = {{"p", o.p}};
        summary = "p " + std::to_string(o.p).substr(0, 4);
        break;
    case workspace::AugmentMethod::PointMixup:
        options = {{"lambda", o.lambda}};
        summary = "lambda " + std::to_string(o.lambda).substr(0, 4);
        break;
    }
    const nlohmann::ordered_json changes = changeRecords(pv, vocab.get());
    const bool needsPartner = req.method != workspace::AugmentMethod::PointDrop;
    if (o.json)
        printAugmentJson(o, *ds, item, pv, needsPartner, options, changes);
    else
        printAugmentText(o, *ds, item, pv, needsPartner, summary, changes, vocab != nullptr);
    return 0;
}

} // namespace

void addAugmentCommand(CLI::App& app, ContextFn ctx, int& rc)
{
    auto* cmd = app.add_subcommand(
        "augment", "One augmentation of one item (seed 001 §4.2, §7.8): PointSwap (Eq. 6, and the ablation variants "
                   "(1)-(3) of Table 11), PointDrop or PointMixup; prints what changed (original -> substitute, with "
                   "the optimal flow) and the partner used: the EMD-nearest item of the train split");
    auto o = std::make_shared<AugmentOpt>();
    addAugmentFlags(cmd, o.get());
    cmd->callback([ctx, o, &rc] { rc = runAugment(ctx(), *o); });
}

} // namespace setscope::cli
