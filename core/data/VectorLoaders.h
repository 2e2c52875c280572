// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/DatasetSink.h>
#include <setscope/sdk/Registrar.h>

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace setscope::data {

/// A NumPy .npy array converted to float32 (C order).
struct NpyArray {
    std::vector<std::uint64_t> shape;
    std::vector<float> data;
};

/// Reads a .npy file (format versions 1-3; dtypes f4, f8, u1, i1, i2, i4, i8, either byte
/// order, C or Fortran order). Throws InputError naming the file and byte offset. The header
/// is checked against the file's size and, with `extraBytesPerValue` more bytes per value for
/// what the caller will build from the array, against util::memoryBudget() before the payload
/// is read.
NpyArray readNpy(const std::string& path, std::uint64_t extraBytesPerValue = 0);

/// Writes a float32 C-order .npy file (format 1.0). Throws std::runtime_error on I/O errors.
void writeNpy(const std::string& path, const float* data, const std::vector<std::uint64_t>& shape);
/// The same into a stream (the caller checks it), e.g. inside util::writeFileAtomically.
void writeNpy(std::ostream& out, const float* data, const std::vector<std::uint64_t>& shape);

/// `X.npy` vectors (N x D: plain vectors; N x S x D: sets of S elements) with an optional
/// metadata table beside it: `X.csv` or `X.labels.csv`, one row per item, whose columns
/// named `label` / `fine`, `coarse`, `label:<name>` become label sets and `split`
/// (train / val / test) sets the split. Without a table, items are unlabelled and train.
void loadNpy(const std::string& path, sdk::DatasetSink& sink);

/// A CSV table of vectors: every column is a numeric feature except the metadata columns
/// (`label` / `fine`, `coarse`, `label:<name>`, `split`, `id`). A header row is required.
void loadCsvVectors(const std::string& path, sdk::DatasetSink& sink);

/// The registry's loaders "npy" and "csv".
sdk::LoaderInfo npyLoaderInfo();
sdk::LoaderInfo csvLoaderInfo();

} // namespace setscope::data
