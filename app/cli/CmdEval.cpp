// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "CliContext.h"
#include "Commands.h"

#include "core/data/Dataset.h"
#include "core/eval/Evaluate.h"
#include "core/train/TrainingJob.h"

#include <cstdio>

namespace setscope::cli {

void addEvalCommand(CLI::App& app, ContextFn ctx, int& rc)
{
    auto* cmd = app.add_subcommand("eval", "Score raw vectors or a checkpoint's embedding: kNN accuracy (k=10, "
                                           "distance-weighted) and Recall@1/2/4/8");
    auto spec = std::make_shared<std::string>();
    auto ckpt = std::make_shared<std::string>();
    auto labelSet = std::make_shared<std::string>("fine");
    auto k = std::make_shared<int>(10);
    cmd->add_option("--dataset", *spec, "dataset name or path")->required();
    cmd->add_option("--checkpoint", *ckpt, "checkpoint to evaluate (default: the raw vectors)");
    cmd->add_option("--label-set", *labelSet, "labels to score against")->capture_default_str();
    cmd->add_option("-k", *k, "neighbours for kNN")->capture_default_str()->check(CLI::PositiveNumber);
    cmd->callback([ctx, spec, ckpt, labelSet, k, &rc] {
        CliContext& c = ctx();
        const auto ds = c.openDataset(*spec);
        eval::Evaluation ev;
        std::string what;
        if (ckpt->empty()) {
            ev = eval::evaluateRaw(*ds, *labelSet, nullptr, *k);
            what = "raw vectors";
        } else {
            const train::Embeddings e = train::embedWithCheckpoint(*ckpt, *ds, c.registry);
            ev = eval::evaluateEmbedding(*ds, e.data.data(), e.dim, *labelSet, nullptr, *k);
            what = *ckpt;
        }
        std::printf("%s\n", what.c_str());
        std::printf("protocol     %s (%lld queries, label set '%s')\n", ev.protocol.c_str(),
                    static_cast<long long>(ev.queries), labelSet->c_str());
        std::printf("kNN@%d       %.4f\n", *k, ev.knnAccuracy);
        for (std::size_t i = 0; i < ev.ks.size(); ++i)
            std::printf("Recall@%d     %.4f\n", ev.ks[i], ev.recallAtK[i]);
        rc = 0;
    });
}

} // namespace setscope::cli
