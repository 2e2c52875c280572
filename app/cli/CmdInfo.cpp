// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "CliContext.h"
#include "Commands.h"

#include "core/data/DatasetCatalog.h"
#include "core/train/TrainingJob.h"

#include <algorithm>
#include <cstdio>
#include <iostream>

namespace setscope::cli {

void addInfoCommand(CLI::App& app, ContextFn ctx, int& rc)
{
    auto* cmd = app.add_subcommand("info", "Describe a dataset: items, dimension, splits, set sizes, labels per class");
    auto spec = std::make_shared<std::string>();
    cmd->add_option("dataset", *spec, "a dataset name (fashion-mnist, synthetic[:opts]) or a path")->required();
    cmd->callback([ctx, spec, &rc] {
        const auto ds = ctx().openDataset(*spec);
        std::printf("dataset      %s\n", ds->name().c_str());
        for (const auto& f : ds->sourceFiles())
            std::printf("source       %s\n", f.c_str());
        std::printf("content hash %s\n", ds->contentHash().c_str());
        std::printf("items        %zu\n", ds->size());
        std::printf("dimension    %d\n", ds->dim());
        std::printf("splits       train %zu, val %zu, test %zu\n", ds->count(data::Split::Train),
                    ds->count(data::Split::Val), ds->count(data::Split::Test));
        std::size_t mn = SIZE_MAX, mx = 0;
        double sum = 0;
        for (std::size_t i = 0; i < ds->size(); ++i) {
            const std::size_t s = ds->setSize(i);
            mn = std::min(mn, s);
            mx = std::max(mx, s);
            sum += static_cast<double>(s);
        }
        std::printf("set size     min %zu, mean %.2f, max %zu%s\n", mn, sum / static_cast<double>(ds->size()), mx,
                    ds->isVectorDataset() ? " (plain vectors)" : "");
        if (ds->hasImages())
            std::printf("images       %dx%dx%d\n", ds->imageFormat().width, ds->imageFormat().height,
                        ds->imageFormat().channels);
        for (const auto& ls : ds->labelSets()) {
            std::printf("label set    %s: %d classes, %zu unlabelled\n", ls.name.c_str(), ls.numClasses(),
                        ls.unlabelledCount());
            const auto counts = ls.counts();
            for (int c = 0; c < ls.numClasses(); ++c)
                std::printf("  %4d  %-24s %8zu\n", c, ls.classNames[static_cast<std::size_t>(c)].c_str(),
                            counts[static_cast<std::size_t>(c)]);
        }
        rc = 0;
    });
}

void addDatasetsCommand(CLI::App& app, ContextFn, int& rc)
{
    auto* cmd = app.add_subcommand("datasets", "List the datasets known by name");
    cmd->callback([&rc] {
        for (const auto& d : data::builtinDatasets()) {
            std::printf("%-16s %s\n", d.name.c_str(), d.available ? "available" : "not installed");
            std::printf("  %s\n", d.description.c_str());
            if (!d.location.empty())
                std::printf("  location: %s\n", d.location.c_str());
            if (!d.available && !d.howToGet.empty())
                std::printf("  to get it: %s\n", d.howToGet.c_str());
        }
        rc = 0;
    });
}

void addPluginsCommand(CLI::App& app, ContextFn ctx, int& rc)
{
    auto* cmd = app.add_subcommand("plugins", "List loaders, models and losses, and the plugins that provide them");
    cmd->callback([ctx, &rc] {
        CliContext& c = ctx();
        std::printf("plugins:\n  builtin (statically linked)\n");
        for (const auto& p : c.registry.plugins())
            std::printf("  %s %s  (%s)\n", p.name.c_str(), p.version.c_str(), p.path.c_str());
        for (const auto& e : c.pluginErrors)
            std::printf("  REFUSED: %s\n", e.c_str());
        std::printf("loaders:\n");
        for (const auto& l : c.registry.loaders())
            std::printf("  %-10s %s\n", l.name.c_str(), l.description.c_str());
        std::printf("models:\n");
        for (const auto& e : c.registry.encoders())
            std::printf("  %-10s %s\n", e.name.c_str(), e.description.c_str());
        std::printf("losses:\n");
        for (const auto& l : c.registry.losses())
            std::printf("  %-12s %s (default margin %g)\n", l.name.c_str(), l.description.c_str(), l.defaultMargin);
        std::printf("devices: cpu%s\n", train::cudaAvailable() ? ", cuda" : " (no CUDA device visible)");
        rc = 0;
    });
}

} // namespace setscope::cli
