// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// Fuzz targets: one function per reader of outside bytes. Each takes any bytes, runs the
// reader on them and returns normally when the reader accepted them or refused them with
// sdk::InputError (or the one documented exception type of that reader, named at its
// function below); anything else (another exception, a crash, a sanitizer report, a hang,
// memory beyond libFuzzer's -rss_limit_mb) is a finding. The same functions run under
// libFuzzer (tests/fuzz/run.sh, clang-14) and, over the checked-in corpus and every
// regression input, as the ordinary CTest test fuzz_corpus (tst_FuzzCorpus.cpp).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace setscope::fuzz {

/// The bytes as a file (the readers take paths): a per-process file under $TMPDIR (or
/// /tmp), removed by the destructor.
class TempFile {
public:
    TempFile(const std::uint8_t* data, std::size_t size, const char* suffix);
    ~TempFile();
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    const std::string& path() const { return m_path; }

private:
    std::string m_path;
};

/// A per-process folder under $TMPDIR (or /tmp) for readers that take a folder or several
/// files, removed with everything in it by the destructor.
class TempDir {
public:
    explicit TempDir(const char* name);
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::string& path() const { return m_path; }
    /// Writes `bytes` to path()/name and returns its path.
    std::string write(const std::string& name, std::string_view bytes) const;

private:
    std::string m_path;
};

/// What separates the files of one fuzz input for readers of several files.
inline constexpr std::string_view kSeparator = "\n@@@@\n";

/// The bytes cut at every kSeparator into at most `parts` pieces (the last piece keeps any
/// further separators); missing pieces are empty. Lays one fuzz input out as several files.
std::vector<std::string_view> splitInput(const std::uint8_t* data, std::size_t size, std::size_t parts);

/// data::checkMatV5Claims, the size-claim walk of MAT v5/v7 files (with a 64 MiB budget).
void matClaims(const std::uint8_t* data, std::size_t size);

/// data::readIdx on the bytes, then data::loadIdx of a folder holding the input split at
/// kSeparator into train-images-idx3-ubyte and train-labels-idx1-ubyte.
void idx(const std::uint8_t* data, std::size_t size);
/// data::readNpy, then data::loadNpy of the input split at kSeparator into X.npy and X.csv.
void npy(const std::uint8_t* data, std::size_t size);
/// data::readCsv (',' and, by the first byte, ';' or TAB) and data::loadCsvVectors into a
/// DatasetBuilder, finished.
void csv(const std::uint8_t* data, std::size_t size);
/// data::readDatasetPack on the bytes (checksum unchecked: a fuzzer cannot fix it up; a
/// crafted pack has it right anyway) into a DatasetBuilder, finished; then data::loadDatasetPack
/// of the bytes as a file, checksum checked.
void pack(const std::uint8_t* data, std::size_t size);
/// data::readCorpusTsv, then tokenizing every document (data::tokenizeCorpus).
void corpusTsv(const std::uint8_t* data, std::size_t size);
/// data::loadWordVectors with the format chosen by the first byte (auto, word2vec text and
/// binary, GloVe, fastText .bin, setscope's cache), no cache written.
void wordVectors(const std::uint8_t* data, std::size_t size);
/// data::loadTuDataset of a folder: the input split at kSeparator into DS_A, DS_graph_indicator,
/// DS_graph_labels, DS_node_labels and DS_node_attributes .txt.
void tuDataset(const std::uint8_t* data, std::size_t size);
/// data::loadSdf (readSdf + the graphs as a dataset).
void sdf(const std::uint8_t* data, std::size_t size);
/// data::mesh::readOff / readPly / readObj / readStl / readXyz.
void meshOff(const std::uint8_t* data, std::size_t size);
void meshPly(const std::uint8_t* data, std::size_t size);
void meshObj(const std::uint8_t* data, std::size_t size);
void meshStl(const std::uint8_t* data, std::size_t size);
void meshXyz(const std::uint8_t* data, std::size_t size);
/// ot::inspectPairwiseFile and ot::DistanceMatrix::open (every value of an accepted matrix
/// read once). Both refuse with std::runtime_error naming the file (their documented type).
void pairwiseCache(const std::uint8_t* data, std::size_t size);
/// plugin::checkPluginInfo on an info block laid out from the bytes: structSize,
/// abiVersion, then NUL-separated strings; fields not given hold the host's values, and
/// the bytes beyond structSize are poisoned under AddressSanitizer. Accepting a block
/// shorter than this ABI's layout throws std::logic_error (a finding in any build).
void pluginInfo(const std::uint8_t* data, std::size_t size);
/// The fetchers' parsers of downloaded text, chosen by the first byte:
/// fetch::parseJavaProperties, fetch::digitsCsvToIdx, fetch::gloveJsonToWord2vec,
/// corpora::writeWordnetGlosses (data.noun), corpora::writeBrown (one file),
/// corpora::writeDebianDescriptions (Packages and Translation-en split at kSeparator).
/// Refusals: sdk::InputError or fetch::FetchError.
void fetchLists(const std::uint8_t* data, std::size_t size);
/// The fetchers' archive readers, chosen by the first byte: fetch::extractTarball (tar,
/// any compression) and fetch::extractFurnitureCatalog (a .sh3f zip). Refusals:
/// sdk::InputError or fetch::FetchError.
void fetchArchives(const std::uint8_t* data, std::size_t size);
/// project::ProjectStore::open of the bytes as a project file, then its integrity check
/// and a read of every table the store offers. Refusal: project::ProjectError.
void projectFile(const std::uint8_t* data, std::size_t size);
/// A checkpoint read: train::checkTorchArchiveFile (CRCs unchecked), torch's InputArchive of
/// the bytes, then train::loadChecked into a small model (sdk::InputError when one refuses).
void checkpoint(const std::uint8_t* data, std::size_t size);
/// train::checkTorchArchive alone (no LibTorch), from memory and from a file, which must
/// agree. Refusal: sdk::InputError.
void torchArchive(const std::uint8_t* data, std::size_t size);

} // namespace setscope::fuzz
