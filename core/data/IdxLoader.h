// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/DatasetSink.h>
#include <setscope/sdk/Registrar.h>

#include <cstdint>
#include <string>
#include <vector>

namespace setscope::data {

/// An IDX array (LeCun's MNIST format): big-endian header, then the payload.
struct IdxArray {
    std::uint8_t type = 0;            ///< 0x08 = unsigned byte (the only type images use)
    std::vector<std::uint32_t> dims;  ///< e.g. {60000, 28, 28}
    std::vector<std::uint8_t> data;   ///< payload, row-major
};

/// Reads an IDX file, gzip-compressed or raw (zlib reads both). Only unsigned-byte
/// payloads are accepted. Throws InputError naming the file and byte offset for a wrong
/// magic number, a truncated payload or trailing bytes.
IdxArray readIdx(const std::string& path);

/// True for a directory holding train-images-idx3-ubyte[.gz], or a file whose name ends
/// in -idx3-ubyte[.gz] / .idx3-ubyte[.gz].
bool looksLikeIdx(const std::string& path);

/// Loads MNIST-layout IDX data into `sink`.
///  - a directory: train-images/train-labels as the train split and, when present,
///    t10k-images/t10k-labels as the test split (the official split);
///  - an images file: its labels file beside it (…-images-idx3… -> …-labels-idx1…);
///    split = test when the name starts with "t10k" or "test", else train.
/// Each image becomes a set of one 784-d vector (pixels / 255) with its pixels as display
/// data. Label set "fine" (10 classes; Fashion-MNIST's names when the path mentions
/// "fashion", digits otherwise) and, for Fashion-MNIST, "coarse" (4 groups, see docs).
void loadIdx(const std::string& path, sdk::DatasetSink& sink);

/// Fashion-MNIST's class names (index = label).
const std::vector<std::string>& fashionMnistClassNames();
/// setscope's coarse grouping of Fashion-MNIST: names and fine->coarse map.
const std::vector<std::string>& fashionMnistCoarseNames();
const std::vector<std::int32_t>& fashionMnistFineToCoarse();

/// Folder of the Fashion-MNIST IDX files: $SETSCOPE_FASHION_MNIST_DIR or
/// /usr/share/datasets/fashion-mnist (Debian package dataset-fashion-mnist).
std::string fashionMnistDir();

/// The registry's loader "idx".
sdk::LoaderInfo idxLoaderInfo();

} // namespace setscope::data
