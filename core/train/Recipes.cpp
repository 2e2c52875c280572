// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/train/Recipes.h"

#include <stdexcept>

namespace setscope::train {

namespace {

using sdk::OptionSpec;
using sdk::RecipeStage;
using sdk::StageLabels;

const std::vector<std::string> kSelfSupervised{"ours", "ours+ps", "ours+pd", "ours+pm", "sset", "approx-emd", "cont"};

/// One self-supervised stage of the method `method` (a name of kSelfSupervised).
RecipeStage selfSupervised(const std::string& method, const std::string& contAugmentation = "pointswap")
{
    RecipeStage s;
    s.name = "self-supervised";
    s.sampler = "random";
    s.labels = StageLabels::None;
    if (method == "ours") {
        s.loss = "wsset";
        s.lossOptions["form"] = "authors"; // the form that learns (docs/LOSSES.md); --form paper runs Eq. 3 as printed
    } else if (method == "ours+ps" || method == "ours+pd" || method == "ours+pm") {
        s.loss = "wsset";
        s.lossOptions["form"] = "authors";
        s.lossOptions["augmented-term"] = "true";
        s.augmentation = method == "ours+ps" ? "pointswap" : method == "ours+pd" ? "pointdrop" : "pointmixup";
    } else if (method == "sset") {
        s.loss = "sset";
    } else if (method == "approx-emd") {
        s.loss = "approx-emd";
    } else if (method == "cont") {
        s.loss = "nt-xent";
        s.augmentation = contAugmentation;
    } else {
        throw std::invalid_argument("unknown self-supervised method '" + method + "'");
    }
    return s;
}

RecipeStage supervised(const std::string& loss)
{
    RecipeStage s;
    s.name = "supervised";
    s.loss = loss;
    s.sampler = loss == "triplet" ? "class-balanced" : "random";
    s.labels = StageLabels::Training;
    return s;
}

sdk::RecipeInfo single(const std::string& name, const std::string& description)
{
    return {name, description, {}, [name](const sdk::OptionValues&) { return std::vector<RecipeStage>{selfSupervised(name)}; }};
}

OptionSpec pretrainOption()
{
    return OptionSpec::choice("pretrain", "ours", kSelfSupervised, "the self-supervised method of the pre-training stages");
}

} // namespace

std::vector<sdk::RecipeInfo> builtinRecipes()
{
    std::vector<sdk::RecipeInfo> r;
    r.push_back(single("ours", "WSSET (seed 000 Eq. 2-3, seed 001 Eq. 4-5): EMD-nearest positive, semi-hard negative, "
                               "EMD-weighted, as the authors' code runs it (--form paper: as printed); no labels"));
    r.push_back(single("ours+ps", "WSSET + the PointSwap view of each anchor as second positive (seed 001 Eq. 6-7)"));
    r.push_back(single("ours+pd", "WSSET + a PointDrop view of each anchor as second positive"));
    r.push_back(single("ours+pm", "WSSET + a PointMixup view of each anchor as second positive"));
    r.push_back(single("sset", "SSET: the unweighted self-supervised triplet loss (seed 000 Eq. 1)"));
    r.push_back(single("approx-emd", "Approx.EMD: squared embedding distances regressed on EMD (seed 001 §7.1)"));
    r.push_back({"cont", "Cont.: SimCLR's NT-Xent between each set and its augmented view (seed 001 §7.1)",
                 {OptionSpec::choice("view", "pointswap", {"pointswap", "pointdrop", "pointmixup"},
                                     "the augmentation that makes the second view")},
                 [](const sdk::OptionValues& o) { return std::vector<RecipeStage>{selfSupervised("cont", o.text("view"))}; }});
    r.push_back({"exemplar", "Exemplar: every set its own class, learnt through a PointDrop view (seed 001 §7.1; use --model deepsets as the paper)",
                 {},
                 [](const sdk::OptionValues&) {
                     RecipeStage s;
                     s.name = "self-supervised";
                     s.loss = "exemplar";
                     s.augmentation = "pointdrop";
                     s.sampler = "random";
                     return std::vector<RecipeStage>{s};
                 }});
    r.push_back({"tl", "supervised from scratch: triplet loss, semi-hard negatives, α = 0.1 (the +TL rows)", {},
                 [](const sdk::OptionValues&) { return std::vector<RecipeStage>{supervised("triplet")}; }});
    r.push_back({"ce", "supervised from scratch: cross-entropy through a linear classifier (the +CE rows)", {},
                 [](const sdk::OptionValues&) { return std::vector<RecipeStage>{supervised("cross-entropy")}; }});
    // Weak metric learning (seed 003): trained on a coarse label set (--label-set coarse, or
    // --coarse MAPPING.json), scored against the fine one (docs/LOSSES.md, docs/METRICS.md).
    r.push_back({"uniformity",
                 "weak labels (seed 003 §3.1): C grouped outputs on coarse labels + λ KL(p̄ ‖ U_C); with the entropy "
                 "term confidence = 1 (docs/LOSSES.md; --confidence 0 is the paper's exact form)",
                 {}, [](const sdk::OptionValues&) {
                     RecipeStage s = supervised("uniformity");
                     s.name = "weak";
                     s.lossOptions["confidence"] = "1";
                     return std::vector<RecipeStage>{s};
                 }});
    r.push_back({"locality-contrastive",
                 "weak labels (seed 003 §4): contrastive on coarse labels + α KL(P ‖ Q) keeping input-space "
                 "neighbourhoods",
                 {}, [](const sdk::OptionValues&) {
                     RecipeStage s = supervised("locality-contrastive");
                     s.name = "weak";
                     return std::vector<RecipeStage>{s};
                 }});
    const std::vector<OptionSpec> transferOptions{
        pretrainOption(),
        OptionSpec::choice("finetune", "triplet", {"triplet", "cross-entropy"}, "the supervised loss of the fine-tuning stage"),
        OptionSpec::integer("pretrain-epochs", 0, 0, 1 << 20, "epochs of each pre-training stage (0 = the run's epochs)"),
        OptionSpec::integer("finetune-epochs", 0, 0, 1 << 20, "epochs of the fine-tuning stage (0 = the run's epochs)")};
    r.push_back({"int", "Ours+Int.: self-supervised pre-training on the target, then fine-tuning with ρ re-initialised (seed 001 §5)",
                 transferOptions, [](const sdk::OptionValues& o) {
                     RecipeStage pre = selfSupervised(o.text("pretrain"));
                     pre.name = "pre-train";
                     pre.epochs = static_cast<int>(o.integer("pretrain-epochs"));
                     RecipeStage fine = supervised(o.text("finetune"));
                     fine.name = "fine-tune";
                     fine.resetHead = true;
                     fine.epochs = static_cast<int>(o.integer("finetune-epochs"));
                     return std::vector<RecipeStage>{pre, fine};
                 }});
    r.push_back({"ext", "Ours+Ext.: pre-training on --external, then on the target, then fine-tuning with ρ re-initialised (seed 001 §5)",
                 transferOptions, [](const sdk::OptionValues& o) {
                     RecipeStage external = selfSupervised(o.text("pretrain"));
                     external.name = "external pre-train";
                     external.external = true;
                     external.epochs = static_cast<int>(o.integer("pretrain-epochs"));
                     RecipeStage pre = external;
                     pre.name = "pre-train";
                     pre.external = false;
                     RecipeStage fine = supervised(o.text("finetune"));
                     fine.name = "fine-tune";
                     fine.resetHead = true;
                     fine.epochs = static_cast<int>(o.integer("finetune-epochs"));
                     return std::vector<RecipeStage>{external, pre, fine};
                 }});
    r.push_back({"ssdml",
                 "SSDML (seed 004, Algorithm 1): triplets mined by affinity propagation on partitions of the labelled "
                 "+ random unlabelled items, angular loss under an orthogonal metric L stepped on the Stiefel manifold",
                 {OptionSpec::integer("labels-per-class", 0, 0, 1 << 20,
                                      "labels kept per class of the training pool, the rest unlabelled (seed 004: 10 "
                                      "for MNIST / Fashion-MNIST); 0 = --label-fraction decides")},
                 [](const sdk::OptionValues& o) {
                     RecipeStage s;
                     s.name = "ssdml";
                     s.loss = "ssdml-angular";
                     s.sampler = "ssdml-triplets";
                     s.labels = StageLabels::SemiSupervised;
                     s.labelsPerClass = static_cast<int>(o.integer("labels-per-class"));
                     s.metrics = {"nmi"};
                     return std::vector<RecipeStage>{s};
                 }});
    // Seed 004's deep baselines (Algorithm 1: per partition, step 3 on M, step 4 on the
    // network): the loss owns M; the sampler draws partition rows and, for the graph-based
    // ones, weighs the batch's pairs (docs/SSDML.md, "Deep baselines").
    auto baseline = [](const std::string& name, const std::string& loss, const std::string& affinity,
                       const std::string& prior, const std::string& description) {
        return sdk::RecipeInfo{
            name, description,
            {OptionSpec::integer("labels-per-class", 0, 0, 1 << 20,
                                 "labels kept per class of the training pool, the rest unlabelled (seed 004: 10 for "
                                 "MNIST / Fashion-MNIST); 0 = --label-fraction decides")},
            [name, loss, affinity, prior](const sdk::OptionValues& o) {
                RecipeStage s;
                s.name = name;
                s.loss = loss;
                if (!prior.empty())
                    s.lossOptions["prior"] = prior;
                s.sampler = "ssdml-partition";
                s.samplerOptions["affinity"] = affinity;
                s.labels = StageLabels::SemiSupervised;
                s.labelsPerClass = static_cast<int>(o.integer("labels-per-class"));
                s.metrics = {"nmi"};
                return std::vector<RecipeStage>{s};
            }};
    };
    r.push_back(baseline("lrml", "lrml", "heat", "",
                         "Deep-LRML (seed 004 Eq. 2, Algorithm 1): labelled pair distances + Laplacian of heat-kernel "
                         "kNN affinities on partitions, metric M ⪰ 0 with log|M| ≥ 0"));
    r.push_back(baseline("seraph", "seraph", "none", "",
                         "Deep-SERAPH (seed 004 Eq. 1, Algorithm 1): labelled pairs' likelihood + entropy of "
                         "unlabelled pairs + λ Tr(M), metric M ⪰ 0, on partitions"));
    r.push_back(baseline("isdml", "lrml", "density", "",
                         "Deep-ISDML (seed 004, Algorithm 1): LRML's loss on kNN affinities scaled by the density "
                         "around each example (local kernel widths)"));
    r.push_back(baseline("apllr", "ap-prior", "propagated", "llr",
                         "Deep-APLLR (seed 004, Algorithm 1): LogDet divergence to KISSME's log-likelihood-ratio "
                         "prior + Laplacian of propagated affinities"));
    r.push_back(baseline("apit", "ap-prior", "propagated", "it",
                         "Deep-APIT (seed 004, Algorithm 1): LogDet divergence to an ITML prior + Laplacian of "
                         "propagated affinities"));
    return r;
}

} // namespace setscope::train
