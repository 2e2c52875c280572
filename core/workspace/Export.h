// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace setscope::data {
class Dataset;
}
namespace setscope::project {
class ProjectStore;
}

namespace setscope::workspace {

/// Embeddings of some items of a dataset, as exported: `items` (dataset indices) and their
/// vectors (items.size() x dim, row-major).
struct EmbeddingTable {
    std::vector<std::int64_t> items;
    int dim = 0;
    std::vector<float> vectors;
};

/// X.npy (float32, items x dim) and beside it X.csv: one row per exported item with its
/// dataset index, split and every label set's class name (quoted). Appends ".npy" when
/// `path` has another extension; returns the .npy path written. Each file is written to a
/// temporary name and renamed, so an existing export is never left half-written. Throws
/// std::runtime_error naming the file that cannot be written, std::invalid_argument for a
/// table whose sizes do not agree or an item outside the dataset.
std::string writeEmbeddingsNpy(const std::string& path, const data::Dataset& ds, const EmbeddingTable& table);

/// `folder`/vectors.tsv (one tab-separated row per item) and `folder`/metadata.tsv (header
/// "index, split, label sets", then one row per item): the pair TensorFlow's Embedding
/// Projector and similar viewers load. Creates the folder. Throws as writeEmbeddingsNpy().
void writeEmbeddingsTsv(const std::string& folder, const data::Dataset& ds, const EmbeddingTable& table);

/// One recorded value of a run, a row of the runs CSV. A run that is not (yet) in a project
/// (the GUI's live run without a project file) has run and dataset 0.
struct MetricRow {
    std::int64_t run = 0;
    std::int64_t dataset = 0;
    std::string status;
    std::string started;
    std::int64_t epoch = 0;
    std::int64_t step = 0;
    std::string metric;
    double value = 0.0;
};

/// The recorded values of a project's runs, runs by id, values in the order they were
/// recorded; `runIds` limits it to those runs (empty: all).
std::vector<MetricRow> runMetricRows(const project::ProjectStore& store, std::span<const std::int64_t> runIds = {});

/// `rows` as CSV with the header run, dataset, status, started, epoch, step, metric, value
/// (NaN as "nan"), written to `path`.part and renamed over `path`, so a failed write leaves a
/// previous file as it was. Returns rows.size(). Throws std::runtime_error naming the file.
std::size_t writeMetricRowsCsv(const std::string& path, std::span<const MetricRow> rows);

/// Every recorded run of a project as CSV: writeMetricRowsCsv(path, runMetricRows(store,
/// runIds)). Returns the number of value rows.
std::size_t writeRunsCsv(const std::string& path, const project::ProjectStore& store,
                         std::span<const std::int64_t> runIds = {});

/// The metadata writer of the two formats (exposed for `setscope-cli export`): a header row
/// then one row per item, separated by `sep` (',' quotes every label; '\t' replaces tabs and
/// newlines inside names by spaces).
void writeItemMetadata(std::ostream& out, const data::Dataset& ds, std::span<const std::int64_t> items, char sep);

} // namespace setscope::workspace
