// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/DatasetSink.h>
#include <setscope/sdk/Options.h>
#include <setscope/sdk/Registrar.h>

#include <string>

namespace setscope::data {

/// How to read a Kusner WMD .mat file.
struct KusnerMatOptions {
    /// Which train/test split to use: row `split` (1-based, as in MATLAB) of TR and TE.
    /// The published files hold five; a file holding fewer rejects a larger number.
    /// Ignored by the xtr/xte family, whose split is fixed by the file.
    int split = 1;
    /// Append each word's normalised term frequency (its weight) as one more feature:
    /// the papers' 300 + 1 = 301-d input (seed 001 §6.2.1).
    bool appendTermFrequency = false;

    /// The wmd-mat loader's options: split, tf. Defaults as above.
    static sdk::OptionSchema schema();
    /// From values resolved against schema().
    static KusnerMatOptions fromValues(const sdk::OptionValues& values);
};

/// True for a file whose name ends in .mat (case-insensitive). Cheap: does not open it.
bool looksLikeKusnerMat(const std::string& path);

/// Loads a document dataset in the format of Kusner et al. 2015 ("From Word Embeddings to
/// Document Distances"; bbcsport-emd_tr_te_split.mat and its siblings), MATLAB v5/v7 or
/// v7.3 (HDF5), through matio. Two field families are recognised:
///  - X, BOW_X, Y, TR, TE and words (or the_words): X{i} is a D x n_i matrix whose column j
///    is the vector of word j of document i, BOW_X{i} its 1 x n_i counts, words{i} a cell
///    of n_i strings, Y the N labels, TR / TE one row of 1-based document indices per split.
///    Documents in neither row of the chosen split are kept as Val (and counted in a note).
///    Without TR and TE every document is Train.
///  - xtr, xte, BOW_xtr, BOW_xte, ytr, yte, words_tr, words_te (20news, ohsumed, r8, ...):
///    the xtr documents are Train, then the xte documents are Test.
/// Each document becomes one item: its word vectors as float32 elements (D, or D + 1 with
/// appendTermFrequency), weights = counts / their sum, element text = the words. Label set
/// "fine" has one class per distinct label value, named by the value and sorted
/// numerically. Empty documents (n_i = 0) are dropped and counted in a note; missing word
/// strings are allowed (a note says so).
///
/// Throws InputError naming the file and the field and document ("X{17}", "TR(2,40)") for
/// a file that is not a MAT-file or is truncated, missing fields (the message lists the
/// fields present), count mismatches, indices outside 1..N or not integers, indices in
/// both TR and TE, NaN or infinity, a word-vector dimension differing between documents,
/// or a split number the file does not hold.
///
/// Runs on the caller's thread. matio and the serial HDF5 library are not thread-safe, so
/// concurrent calls take turns on a process-wide lock.
void loadKusnerMat(const std::string& path, sdk::DatasetSink& sink, const KusnerMatOptions& options = {});

/// The registry's loader "wmd-mat".
sdk::LoaderInfo kusnerMatLoaderInfo();

} // namespace setscope::data
