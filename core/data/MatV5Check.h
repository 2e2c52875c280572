// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstdint>
#include <string>

namespace setscope::data {

/// What the structure of a MAT-file claims, as checkMatV5Claims() counted it.
struct MatClaims {
    bool checked = false;          ///< false: not a v5/v7 file (v7.3 is HDF5), nothing was walked
    std::uint64_t variables = 0;   ///< top-level variables
    std::uint64_t arrays = 0;      ///< array headers, nested cells and struct fields included
    std::uint64_t elements = 0;    ///< numeric and character elements
    std::uint64_t memoryBytes = 0; ///< what reading it all costs matio, estimated (see the .cpp)
};

/// Walks a MATLAB v5 / v7 MAT-file's structure — every data element's tag, every array's
/// flags, dimensions and name, nested cell arrays and structs, compressed (v7) variables
/// inflated on the fly through a 64 KB window, the data itself skipped — and checks each
/// size a header claims against the bytes that back it, before matio reads anything:
///
/// - an element's byte count against what is left of the file (or of its parent element);
/// - an array's dimensions: non-negative, their product without overflow;
/// - a cell array of n cells or a struct of n x fields values against the bytes that follow
///   (each needs a tag of at least 8 bytes), numeric and character data against
///   n x the stored type's size, sparse index arrays against the columns;
/// - the memory all of it would take once read (`memoryBytes`) against `memoryBudget`.
///
/// So a 1.5 KB file that claims 10^12 cells is refused after reading its few headers, with
/// no allocation proportional to any claim: matio (1.5.23) allocates what the headers say
/// before it finds that the bytes are missing. Throws sdk::InputError naming the file, the
/// variable (e.g. "X{3}") and the byte offset (for a compressed variable, the offset of the
/// variable and the offset inside its inflated stream). Files that are not v5/v7 (v7.3 is
/// HDF5, read by HDF5's own checks; v4 has no header) are returned with checked = false;
/// callers tell them apart by the header as before.
MatClaims checkMatV5Claims(const std::string& path, std::uint64_t memoryBudget);

} // namespace setscope::data
