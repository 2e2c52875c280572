// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "CliContext.h"
#include "Commands.h"

#include "core/data/Dataset.h"
#include "core/data/VectorLoaders.h"
#include "core/train/TrainingJob.h"
#include "core/workspace/Export.h"

#include <cstdio>
#include <filesystem>
#include <numeric>
#include <stdexcept>

namespace fs = std::filesystem;

namespace setscope::cli {

void addExportCommand(CLI::App& app, ContextFn ctx, int& rc)
{
    auto* cmd = app.add_subcommand("export", "Export embeddings (or raw vectors) as .npy + .csv metadata, or as the "
                                             "vectors.tsv + metadata.tsv pair of embedding viewers");
    auto spec = std::make_shared<std::string>();
    auto ckpt = std::make_shared<std::string>();
    auto format = std::make_shared<std::string>("npy");
    auto out = std::make_shared<std::string>();
    cmd->add_option("--dataset", *spec, "dataset name or path")->required();
    cmd->add_option("--checkpoint", *ckpt, "checkpoint whose embedding to export (default: raw vectors)");
    cmd->add_option("--format", *format, "npy | tsv")->check(CLI::IsMember({"npy", "tsv"}))->capture_default_str();
    cmd->add_option("--out", *out, "npy: output file (X.npy; metadata goes to X.csv); tsv: output folder")->required();
    cmd->callback([ctx, spec, ckpt, format, out, &rc] {
        CliContext& c = ctx();
        const auto ds = c.openDataset(*spec);
        std::vector<float> vectors;
        int dim = 0;
        if (ckpt->empty()) {
            if (!ds->isVectorDataset())
                throw std::invalid_argument("dataset '" + ds->name() +
                                            "' holds sets, which have no single raw vector; give --checkpoint");
            vectors = ds->values();
            dim = ds->dim();
        } else {
            train::Embeddings e = train::embedWithCheckpoint(*ckpt, *ds, c.registry);
            vectors = std::move(e.data);
            dim = e.dim;
        }
        workspace::EmbeddingTable table;
        table.items.resize(ds->size());
        std::iota(table.items.begin(), table.items.end(), 0);
        table.dim = dim;
        table.vectors = std::move(vectors);
        if (*format == "npy") {
            const std::string p = workspace::writeEmbeddingsNpy(*out, *ds, table);
            std::printf("wrote %s (%zu x %d float32) and %s\n", p.c_str(), ds->size(), dim,
                        fs::path(p).replace_extension(".csv").c_str());
        } else {
            workspace::writeEmbeddingsTsv(*out, *ds, table);
            const fs::path dir(*out);
            std::printf("wrote %s and %s (%zu rows, %d dims)\n", (dir / "vectors.tsv").c_str(),
                        (dir / "metadata.tsv").c_str(), ds->size(), dim);
        }
        rc = 0;
    });
}

} // namespace setscope::cli
