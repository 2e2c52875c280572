// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "CliContext.h"
#include "Commands.h"

#include "core/data/Dataset.h"
#include "core/data/VectorLoaders.h"
#include "core/train/TrainingJob.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace setscope::cli {

namespace {

/// TSV-safe text: tabs and newlines would break the columns.
std::string cell(std::string s)
{
    for (char& ch : s)
        if (ch == '\t' || ch == '\n' || ch == '\r')
            ch = ' ';
    return s;
}

std::string labelName(const data::LabelSet& ls, std::size_t i)
{
    const std::int32_t l = ls.labels[i];
    return l < 0 ? std::string() : ls.classNames[static_cast<std::size_t>(l)];
}

void writeMetadata(std::ostream& out, const data::Dataset& ds, char sep)
{
    out << "index" << sep << "split";
    for (const auto& ls : ds.labelSets())
        out << sep << (sep == '\t' ? cell(ls.name) : ls.name);
    out << "\n";
    for (std::size_t i = 0; i < ds.size(); ++i) {
        out << i << sep << data::splitName(ds.split(i));
        for (const auto& ls : ds.labelSets()) {
            const std::string n = labelName(ls, i);
            if (sep == '\t')
                out << sep << cell(n);
            else
                out << sep << '"' << [&] {
                    std::string q;
                    for (char ch : n)
                        q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
                    return q;
                }() << '"';
        }
        out << "\n";
    }
}

} // namespace

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
        if (*format == "npy") {
            fs::path p(*out);
            if (p.extension() != ".npy")
                p += ".npy";
            if (p.has_parent_path())
                fs::create_directories(p.parent_path());
            data::writeNpy(p.string(), vectors.data(), {ds->size(), static_cast<std::uint64_t>(dim)});
            const fs::path meta = fs::path(p).replace_extension(".csv");
            std::ofstream m(meta);
            writeMetadata(m, *ds, ',');
            if (!m)
                throw std::runtime_error("cannot write " + meta.string());
            std::printf("wrote %s (%zu x %d float32) and %s\n", p.c_str(), ds->size(), dim, meta.c_str());
        } else {
            const fs::path dir(*out);
            fs::create_directories(dir);
            std::ofstream v(dir / "vectors.tsv");
            char buf[32];
            for (std::size_t i = 0; i < ds->size(); ++i) {
                for (int k = 0; k < dim; ++k) {
                    std::snprintf(buf, sizeof buf, "%.7g", static_cast<double>(vectors[i * static_cast<std::size_t>(dim) + static_cast<std::size_t>(k)]));
                    v << (k ? "\t" : "") << buf;
                }
                v << "\n";
            }
            std::ofstream m(dir / "metadata.tsv");
            writeMetadata(m, *ds, '\t');
            if (!v || !m)
                throw std::runtime_error("cannot write into " + dir.string());
            std::printf("wrote %s and %s (%zu rows, %d dims)\n", (dir / "vectors.tsv").c_str(),
                        (dir / "metadata.tsv").c_str(), ds->size(), dim);
        }
        rc = 0;
    });
}

} // namespace setscope::cli
