// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "CliContext.h"
#include "Commands.h"

#include "core/data/Dataset.h"
#include "core/data/DatasetPack.h"
#include "core/data/VectorLoaders.h"
#include "core/train/TrainingJob.h"
#include "core/util/Memory.h"
#include "core/workspace/Export.h"

#include <cstdio>
#include <filesystem>
#include <numeric>
#include <stdexcept>

namespace fs = std::filesystem;

namespace setscope::cli {

void addExportCommand(CLI::App& app, ContextFn ctx, int& rc)
{
    auto* cmd = app.add_subcommand("export", "Export embeddings (or raw vectors) as .npy + .csv metadata, as the "
                                             "vectors.tsv + metadata.tsv pair of embedding viewers, or the dataset "
                                             "itself as a self-contained pack that any command opens");
    auto spec = std::make_shared<std::string>();
    auto ckpt = std::make_shared<std::string>();
    auto format = std::make_shared<std::string>("npy");
    auto out = std::make_shared<std::string>();
    cmd->add_option("--dataset", *spec, "dataset name or path")->required();
    cmd->add_option("--checkpoint", *ckpt, "checkpoint whose embedding to export (default: raw vectors)");
    cmd->add_option("--format", *format, "npy | tsv | pack")->check(CLI::IsMember({"npy", "tsv", "pack"}))->capture_default_str();
    cmd->add_option("--out", *out,
                    "npy: output file (X.npy; metadata goes to X.csv); tsv: output folder; pack: output file "
                    "(docs/DATASETS.md, \"Dataset packs\")")
        ->required();
    cmd->callback([ctx, spec, ckpt, format, out, &rc] {
        CliContext& c = ctx();
        if (*format == "pack" && !ckpt->empty())
            throw std::invalid_argument("--format pack writes the dataset itself; it takes no --checkpoint");
        const auto ds = c.openDataset(*spec);
        if (*format == "pack") {
            const data::PackSummary s = data::writeDatasetPackFile(*out, *ds, *spec);
            std::printf("wrote %s: %zu items, %llu elements of dimension %d, %s", out->c_str(), ds->size(),
                        static_cast<unsigned long long>(s.elements), ds->dim(), util::formatBytes(s.bytes).c_str());
            if (s.sharedColumns > 0)
                std::printf(" (%d leading columns stored once per distinct row: %llu rows)", s.sharedColumns,
                            static_cast<unsigned long long>(s.distinctRows));
            std::printf("\n");
            rc = 0;
            return;
        }
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
