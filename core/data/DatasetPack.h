// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// Dataset packs (docs/DATASETS.md, "Dataset packs"): one self-contained file holding a
// loaded dataset as setscope sees it -- its sets (values and weights, bit for bit), splits,
// label sets, element text, images and edges -- so that it opens on a machine that has
// neither the source files nor the word vectors. Columns that repeat across elements (a
// document's word vectors: the same word in many documents) are stored once, each element
// pointing at its row, so a pack of documents holds only the vocabulary they use.

#include <setscope/sdk/DatasetSink.h>
#include <setscope/sdk/Registrar.h>

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>

namespace setscope::data {

class Dataset;

/// The first 16 bytes of every pack.
inline constexpr std::string_view kPackMagic{"setscope-pack\n\x1a\0", 16};
/// The file extension `setscope-cli export --format pack` suggests (the loader goes by the
/// magic bytes, not by the name).
inline constexpr const char* kPackExtension = ".setpack";

/// What a pack records besides the dataset, and what writing it found.
struct PackSummary {
    std::string source;               ///< the spec the dataset was opened with (informational)
    std::uint64_t bytes = 0;          ///< the file's size
    int sharedColumns = 0;            ///< leading columns stored once per distinct row (0: none)
    std::uint64_t distinctRows = 0;   ///< rows of those columns in the pack
    std::uint64_t elements = 0;
    std::uint64_t items = 0;
};

/// Writes `ds` as a pack into `out` (the caller checks the stream; see writeDatasetPackFile).
/// `source` is recorded as where it came from. Returns what was written.
PackSummary writeDatasetPack(std::ostream& out, const Dataset& ds, const std::string& source);

/// The same to `path`, atomically (util::writeFileAtomically: the previous file or the whole
/// new one), creating its folder. Throws std::runtime_error naming the file when it cannot be
/// written.
PackSummary writeDatasetPackFile(const std::string& path, const Dataset& ds, const std::string& source);

struct PackReadOptions {
    /// Compare the pack's XXH3-64 checksum with its bytes. Off only for the fuzz target, so
    /// that mutated inputs reach the checks behind it (a fuzzer cannot fix up checksums).
    bool verifyChecksum = true;
};

/// Reads a pack held in memory into `sink` (`origin` names it in errors). Every count the
/// pack declares is checked against the bytes that back it before anything is allocated for
/// it, and the dataset it describes against util::memoryBudget() (sink.reserve() as well).
/// Throws sdk::InputError(origin, "section NAME, byte offset N", why).
void readDatasetPack(std::string_view bytes, const std::string& origin, sdk::DatasetSink& sink,
                     const PackReadOptions& options = {});

/// Reads the pack file at `path` into `sink` (the file's size is weighed against the memory
/// budget before it is read). Throws sdk::InputError naming the file.
void loadDatasetPack(const std::string& path, sdk::DatasetSink& sink, const PackReadOptions& options = {});

/// True when `path` is a regular file that starts with kPackMagic.
bool looksLikeDatasetPack(const std::string& path);

/// The registry's loader "pack": recognised by its magic bytes, whatever the file's name.
sdk::LoaderInfo datasetPackLoaderInfo();

} // namespace setscope::data
