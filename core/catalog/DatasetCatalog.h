// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/data/Dataset.h"

#include <memory>
#include <string>
#include <vector>

namespace setscope::plugin {
class Registry;
}
namespace setscope::job {
class JobControl;
class ProgressSink;
} // namespace setscope::job

namespace setscope::catalog {

struct BuiltinDataset {
    std::string name;
    std::string description;
    std::string location; ///< where it is read from ("" for generated data)
    bool available = false;
    std::string howToGet; ///< what to install when it is not available
    bool fetchable = false; ///< `setscope-cli fetch NAME` (and the GUI's Fetch) obtains it
    std::string sizeNote;   ///< download / disk size and counts, for fetchable ones
};

/// The datasets known by name. Runs on any thread.
std::vector<BuiltinDataset> builtinDatasets();

/// Progress and cancel for openDataset (both may be null): reading a folder of meshes or
/// training word vectors for a corpus takes a while.
struct OpenContext {
    job::ProgressSink* sink = nullptr;
    job::JobControl* control = nullptr;
};

/// Opens a dataset given by name or path:
///  - "fashion-mnist": the Debian package's IDX files with the official train/test split;
///  - "synthetic" or "synthetic:key=value,..." (see SyntheticSpec::parse);
///  - anything else is a file or folder, read by the first registered loader that accepts it;
///    "PATH?key=value,..." passes options to the loaders that take them (graphs: repr, rw,
///    folds, fold, seed, class, threshold; meshes: points, seed, jitter, threads; Kusner
///    .mat: split, tf; corpora: vectors, tf, min-count, numbers, stopwords, balanced, ...);
///  - any of these followed by "+pointsets" (or "+pointsets=THRESHOLD"): its images as point
///    sets of bright pixels (see imagesAsPointsets), e.g. "fashion-mnist+pointsets".
/// Blocking (reads the files); call it from a worker thread in the GUI.
/// Throws sdk::InputError (bad file) or std::invalid_argument (bad name / options).
data::Dataset openDataset(const std::string& spec, const plugin::Registry& registry, const OpenContext& context = {});

} // namespace setscope::catalog
