// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/catalog/CorpusLoaders.h"

#include "core/catalog/DatasetCatalog.h"
#include "core/data/text/Corpus.h"
#include "core/data/text/Documents.h"
#include "core/util/Text.h"

namespace setscope::catalog {

namespace {

void loadCorpus(const std::string& path, const sdk::OptionValues& options, sdk::DatasetSink& sink,
                sdk::LoadContext& context)
{
    const data::CorpusLoaderOptions o = data::CorpusLoaderOptions::fromValues(options);
    data::DocumentSource vectors = wordVectorSource(o.vectors);
    vectors.fastText = o.fastText;
    data::loadDocuments(path, vectors, o.documents, sink, &context);
}

} // namespace

sdk::LoaderInfo corpusTsvLoaderInfo()
{
    return {"corpus-tsv", "documents as sets of word vectors: corpus.tsv lines 'label<TAB>text[<TAB>split]'",
            {".tsv"},
            data::CorpusLoaderOptions::schema(),
            [](const std::string& p) { return util::lowerExtension(p) == ".tsv"; },
            loadCorpus};
}

sdk::LoaderInfo corpusFolderLoaderInfo()
{
    return {"corpus-folder", "documents as sets of word vectors: a folder root/<class>/[train|test/]*.txt",
            {""},
            data::CorpusLoaderOptions::schema(),
            [](const std::string& p) { return data::looksLikeCorpusFolder(p); },
            loadCorpus};
}

} // namespace setscope::catalog
