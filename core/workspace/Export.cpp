// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/workspace/Export.h"

#include "core/data/Csv.h"
#include "core/data/Dataset.h"
#include "core/data/VectorLoaders.h"
#include "core/project/ProjectStore.h"
#include "core/util/AtomicFile.h"
#include "core/workspace/ItemText.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <ostream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace setscope::workspace {

namespace {

/// TSV-safe text: tabs and newlines would break the columns.
std::string tsvCell(std::string s)
{
    for (char& ch : s)
        if (ch == '\t' || ch == '\n' || ch == '\r')
            ch = ' ';
    return s;
}

void checkTable(const data::Dataset& ds, const EmbeddingTable& t)
{
    if (t.dim <= 0 || t.vectors.size() != t.items.size() * static_cast<std::size_t>(t.dim))
        throw std::invalid_argument("embedding table of " + std::to_string(t.items.size()) + " items x " +
                                    std::to_string(t.dim) + " has " + std::to_string(t.vectors.size()) + " values");
    for (const std::int64_t i : t.items)
        requireItem(ds, i);
}

} // namespace

void writeItemMetadata(std::ostream& out, const data::Dataset& ds, std::span<const std::int64_t> items, char sep)
{
    const bool tsv = sep == '\t';
    out << "index" << sep << "split";
    for (const auto& ls : ds.labelSets()) // label set names are identifiers: unquoted
        out << sep << (tsv ? tsvCell(ls.name) : ls.name);
    out << "\n";
    for (const std::int64_t item : items) {
        const std::size_t i = static_cast<std::size_t>(item);
        out << i << sep << data::splitName(ds.split(i));
        for (const auto& ls : ds.labelSets()) {
            const std::int32_t l = ls.labels[i];
            const std::string n = l < 0 ? std::string() : ls.classNames[static_cast<std::size_t>(l)];
            out << sep << (tsv ? tsvCell(n) : data::csvQuoted(n));
        }
        out << "\n";
    }
}

std::string writeEmbeddingsNpy(const std::string& path, const data::Dataset& ds, const EmbeddingTable& t)
{
    checkTable(ds, t);
    fs::path p(path);
    if (p.extension() != ".npy")
        p += ".npy";
    if (p.has_parent_path())
        fs::create_directories(p.parent_path());
    util::writeFileAtomically(p, [&](std::ostream& out) {
        data::writeNpy(out, t.vectors.data(), {t.items.size(), static_cast<std::uint64_t>(t.dim)});
    });
    util::writeFileAtomically(fs::path(p).replace_extension(".csv"),
                    [&](std::ostream& out) { writeItemMetadata(out, ds, t.items, ','); });
    return p.string();
}

void writeEmbeddingsTsv(const std::string& folder, const data::Dataset& ds, const EmbeddingTable& t)
{
    checkTable(ds, t);
    const fs::path dir(folder);
    fs::create_directories(dir);
    util::writeFileAtomically(dir / "vectors.tsv", [&](std::ostream& out) {
        char buf[32];
        const std::size_t d = static_cast<std::size_t>(t.dim);
        for (std::size_t r = 0; r < t.items.size(); ++r) {
            for (std::size_t k = 0; k < d; ++k) {
                std::snprintf(buf, sizeof buf, "%.7g", static_cast<double>(t.vectors[r * d + k]));
                out << (k ? "\t" : "") << buf;
            }
            out << "\n";
        }
    });
    util::writeFileAtomically(dir / "metadata.tsv", [&](std::ostream& out) { writeItemMetadata(out, ds, t.items, '\t'); });
}

std::vector<MetricRow> runMetricRows(const project::ProjectStore& store, std::span<const std::int64_t> runIds)
{
    std::vector<MetricRow> rows;
    for (const project::RunRecord& run : store.runs()) {
        if (!runIds.empty() && std::find(runIds.begin(), runIds.end(), run.id) == runIds.end())
            continue;
        for (const project::MetricRecord& m : store.metrics(run.id))
            rows.push_back({run.id, run.datasetId, run.status, run.startedAt, m.epoch, m.step, m.name, m.value});
    }
    return rows;
}

std::size_t writeMetricRowsCsv(const std::string& path, std::span<const MetricRow> rows)
{
    util::writeFileAtomically(fs::path(path), [&](std::ostream& out) {
        out << "run,dataset,status,started,epoch,step,metric,value\n";
        char buf[40];
        for (const MetricRow& r : rows) {
            std::snprintf(buf, sizeof buf, "%.10g", r.value);
            out << r.run << ',' << r.dataset << ',' << data::csvQuoted(r.status) << ',' << data::csvQuoted(r.started) << ','
                << r.epoch << ',' << r.step << ',' << data::csvQuoted(r.metric) << ','
                << (std::isnan(r.value) ? std::string("nan") : std::string(buf)) << "\n";
        }
    });
    return rows.size();
}

std::size_t writeRunsCsv(const std::string& path, const project::ProjectStore& store, std::span<const std::int64_t> runIds)
{
    const std::vector<MetricRow> rows = runMetricRows(store, runIds);
    return writeMetricRowsCsv(path, rows);
}

} // namespace setscope::workspace
