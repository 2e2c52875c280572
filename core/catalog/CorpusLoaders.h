// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// The document loaders: a corpus file or folder read as sets of word vectors. They live here,
// not in core/data, because their word vectors come from the catalogue: the option vectors=
// (glove-100d, train, a file), else $SETSCOPE_WORD_VECTORS ("file PATH", a path, or "train
// fasttext"), else fastText skip-gram trained on the corpus itself (cached).

#include <setscope/sdk/Registrar.h>

namespace setscope::catalog {

/// The registry's loader "corpus-tsv": corpus.tsv lines 'label<TAB>text[<TAB>split]'.
sdk::LoaderInfo corpusTsvLoaderInfo();
/// The registry's loader "corpus-folder": a folder root/<class>/[train|test/]*.txt.
sdk::LoaderInfo corpusFolderLoaderInfo();

} // namespace setscope::catalog
