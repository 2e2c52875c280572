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
namespace setscope::data {
struct DocumentSource; // core/data/text/Documents.h
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
///  - "synthetic" or "synthetic:key=value,..." (see SyntheticSpec::schema);
///  - a fetched built-in source, "NAME" or "NAME:key=value,...": the file or folder it was
///    fetched to, read by the loader that accepts it with the options that loader declares
///    and the source's own defaults (fetch::SourceInfo::optionDefaults: bzr's class and
///    threshold, the corpora's glove-100d vectors); glove-100d itself opens as words (words=N);
///  - anything else is a file or folder, read by the first registered loader that accepts it;
///    "PATH?key=value,..." gives it options, checked against the options the loader declares
///    (sdk::LoaderInfo::options, listed by `setscope-cli plugins`): an unknown key or a bad
///    value is an error naming the loader;
///  - any of these followed by "+pointsets" (or "+pointsets=THRESHOLD"): its images as point
///    sets of bright pixels (see imagesAsPointsets), e.g. "fashion-mnist+pointsets".
/// Blocking (reads the files); call it from a worker thread in the GUI. The loader reports
/// progress to context.sink and polls context.control for cancel (job::Cancelled).
/// Throws sdk::InputError (bad file) or std::invalid_argument (bad name / options).
data::Dataset openDataset(const std::string& spec, const plugin::Registry& registry, const OpenContext& context = {});

/// The word vectors a corpus option `vectors=SPEC` names (data::CorpusLoaderOptions):
/// "glove-100d" (the fetched built-in; sdk::InputError naming the fetch command when it is
/// not fetched), "train" / "fasttext" (fastText trained on the corpus), "file PATH" or PATH,
/// and "" ($SETSCOPE_WORD_VECTORS when set, else fastText trained on the corpus).
data::DocumentSource wordVectorSource(const std::string& spec);

} // namespace setscope::catalog
