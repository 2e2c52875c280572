// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "CliContext.h"
#include "Commands.h"

#include "core/catalog/DatasetCatalog.h"
#include "core/train/TrainingJob.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>

namespace setscope::cli {

void addInfoCommand(CLI::App& app, ContextFn ctx, int& rc)
{
    auto* cmd = app.add_subcommand("info", "Describe a dataset: items, dimension, splits, set sizes, labels per class");
    auto spec = std::make_shared<std::string>();
    cmd->add_option("dataset", *spec, "a dataset name (fashion-mnist, synthetic[:opts]) or a path")->required();
    auto sizesFile = std::make_shared<std::string>();
    cmd->add_option("--sizes", *sizesFile,
                    "also write every item's set size, one per line in item order, to this file (what "
                    "bench/nn/steps_per_hour.sh gives the padded reference)");
    cmd->callback([ctx, spec, sizesFile, &rc] {
        const auto ds = ctx().openDataset(*spec);
        if (!sizesFile->empty()) {
            std::ofstream out(*sizesFile);
            for (std::size_t i = 0; i < ds->size(); ++i)
                out << ds->setSize(i) << '\n';
            if (!out.flush())
                throw std::runtime_error("cannot write " + *sizesFile);
        }
        std::printf("dataset      %s\n", ds->name().c_str());
        const auto& files = ds->sourceFiles();
        for (std::size_t f = 0; f < files.size() && f < 5; ++f)
            std::printf("source       %s\n", files[f].c_str());
        if (files.size() > 5)
            std::printf("source       ... and %zu more files\n", files.size() - 5);
        std::printf("content hash %s\n", ds->contentHash().c_str());
        std::printf("items        %zu\n", ds->size());
        std::printf("dimension    %d\n", ds->dim());
        std::printf("splits       train %zu, val %zu, test %zu\n", ds->count(data::Split::Train),
                    ds->count(data::Split::Val), ds->count(data::Split::Test));
        // Set sizes: min, quartiles, mean, max (elements per item; 1 for plain vectors).
        std::vector<std::size_t> sizes(ds->size());
        double sum = 0;
        for (std::size_t i = 0; i < ds->size(); ++i) {
            sizes[i] = ds->setSize(i);
            sum += static_cast<double>(sizes[i]);
        }
        std::sort(sizes.begin(), sizes.end());
        auto quantile = [&sizes](double q) {
            return sizes[static_cast<std::size_t>(q * static_cast<double>(sizes.size() - 1) + 0.5)];
        };
        std::printf("set size     min %zu, q1 %zu, median %zu, q3 %zu, max %zu, mean %.2f%s\n", sizes.front(),
                    quantile(0.25), quantile(0.5), quantile(0.75), sizes.back(),
                    sum / static_cast<double>(ds->size()), ds->isVectorDataset() ? " (plain vectors)" : "");
        std::printf("elements     %zu\n", ds->elementCount());
        if (ds->hasImages())
            std::printf("images       %dx%dx%d\n", ds->imageFormat().width, ds->imageFormat().height,
                        ds->imageFormat().channels);
        for (const auto& ls : ds->labelSets()) {
            std::printf("label set    %s: %d classes, %zu unlabelled\n", ls.name.c_str(), ls.numClasses(),
                        ls.unlabelledCount());
            // Items, items per split and mean set size per class.
            const auto n = static_cast<std::size_t>(ls.numClasses());
            std::vector<std::size_t> perSplit(n * 3, 0);
            std::vector<double> elements(n, 0.0);
            for (std::size_t i = 0; i < ds->size(); ++i) {
                const std::int32_t l = ls.labels[i];
                if (l < 0)
                    continue;
                ++perSplit[static_cast<std::size_t>(l) * 3 + static_cast<std::size_t>(ds->split(i))];
                elements[static_cast<std::size_t>(l)] += static_cast<double>(ds->setSize(i));
            }
            const auto counts = ls.counts();
            std::printf("  %4s  %-28s %8s %8s %6s %6s %9s\n", "id", "class", "items", "train", "val", "test",
                        "mean set");
            for (std::size_t c = 0; c < n; ++c)
                std::printf("  %4zu  %-28s %8zu %8zu %6zu %6zu %9.1f\n", c, ls.classNames[c].c_str(), counts[c],
                            perSplit[c * 3], perSplit[c * 3 + 1], perSplit[c * 3 + 2],
                            counts[c] ? elements[c] / static_cast<double>(counts[c]) : 0.0);
        }
        // (the loader's notes were printed on stderr when the dataset was opened)
        rc = 0;
    });
}

void addDatasetsCommand(CLI::App& app, ContextFn, int& rc)
{
    auto* cmd = app.add_subcommand("datasets", "List the datasets known by name");
    cmd->callback([&rc] {
        for (const auto& d : catalog::builtinDatasets()) {
            const char* state = d.available ? "here" : d.fetchable ? "not fetched" : "not installed";
            std::printf("%-20s %s\n", d.name.c_str(), state);
            std::printf("  %s\n", d.description.c_str());
            if (!d.sizeNote.empty())
                std::printf("  size: %s\n", d.sizeNote.c_str());
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
    auto* cmd = app.add_subcommand("plugins", "List loaders, recipes, models, losses, augmentations, samplers and optimizers with their options, and the plugins that provide them");
    cmd->callback([ctx, &rc] {
        CliContext& c = ctx();
        std::printf("plugins:\n  builtin (statically linked)\n");
        for (const auto& p : c.registry.plugins())
            std::printf("  %s %s  (%s)\n", p.name.c_str(), p.version.c_str(), p.path.c_str());
        for (const auto& e : c.pluginErrors)
            std::printf("  REFUSED: %s\n", e.c_str());
        // Loaders take their options after the path: PATH?key=value,...
        std::printf("loaders (options: PATH?key=value,...):\n");
        for (const auto& l : c.registry.loaders()) {
            std::printf("  %-17s %s\n", l.name.c_str(), l.description.c_str());
            for (const sdk::OptionSpec& o : l.options)
                std::printf("  %-17s   ?%s\n", "", sdk::describeOption(o).c_str());
        }
        // Every kind with its declared options (the flags `train` accepts for them).
        const std::vector<plugin::ItemRef> items = c.registry.trainingItems();
        for (const auto& [kind, title] : plugin::kTrainingKinds) {
            std::printf("%s:\n", title);
            for (const plugin::ItemRef& i : items) {
                if (std::strcmp(i.kind, kind) != 0)
                    continue;
                std::printf("  %-14s %s\n", i.name->c_str(), i.description->c_str());
                for (const sdk::OptionSpec& o : *i.options)
                    std::printf("  %-14s   --%s\n", "", sdk::describeOption(o).c_str());
            }
        }
        std::printf("devices: cpu%s\n", train::cudaAvailable() ? ", cuda" : " (no CUDA device visible)");
        rc = 0;
    });
}

} // namespace setscope::cli
