// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Fuzz targets of the text readers: corpus TSV, word vectors (see FuzzTargets.h).
#include "tests/fuzz/targets/FuzzTargets.h"

#include "core/data/text/Corpus.h"
#include "core/data/text/Tokenizer.h"
#include "core/data/text/WordVectors.h"

#include <setscope/sdk/Errors.h>

namespace setscope::fuzz {

void corpusTsv(const std::uint8_t* data, std::size_t size)
{
    const TempFile f(data, size, ".tsv");
    try {
        const data::Corpus c = data::readCorpusTsv(f.path());
        static const data::Tokenizer tok;
        for (const std::string& text : c.texts)
            (void)tok.tokenize(text);
    } catch (const sdk::InputError&) {
    }
}

void wordVectors(const std::uint8_t* data, std::size_t size)
{
    using data::WordVectorFormat;
    static constexpr WordVectorFormat kFormats[] = {WordVectorFormat::Auto,      WordVectorFormat::Word2VecText,
                                                    WordVectorFormat::Word2VecBinary, WordVectorFormat::GloveText,
                                                    WordVectorFormat::FastTextBin,    WordVectorFormat::Cache};
    // The first byte picks the format; the rest is the file (so Auto sees every format's seeds).
    const WordVectorFormat format = size == 0 ? WordVectorFormat::Auto : kFormats[data[0] % 6];
    const TempFile f(size == 0 ? data : data + 1, size == 0 ? 0 : size - 1, ".vec");
    data::WordVectorOptions o;
    o.format = format;
    o.useCache = false;
    try {
        const data::WordVectors wv = data::loadWordVectors(f.path(), o);
        for (std::size_t i = 0; i < wv.size(); ++i)
            (void)wv.find(wv.words()[i]);
        if (wv.hasSubwords() && wv.dim() > 0) {
            std::vector<float> out(static_cast<std::size_t>(wv.dim()));
            (void)wv.subwordVector("setscope", out.data());
        }
    } catch (const sdk::InputError&) {
    }
}

} // namespace setscope::fuzz
