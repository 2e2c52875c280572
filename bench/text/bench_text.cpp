// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// bench_text glove DIR   : writes a GloVe-6B-100d-sized text file (341 479 x 100) into DIR,
//                          then times the first load (parse + cache) and a cached load.
// bench_text fasttext F  : tokenises text file F (one document per line) and times 300-d
//                          fastText skip-gram training (maxn 0, 5 epochs, 2 threads).
#include "core/data/text/FastTextTrainer.h"
#include "core/data/text/Tokenizer.h"
#include "core/data/text/WordVectors.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

using namespace setscope::data;
using Clock = std::chrono::steady_clock;

static double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

int main(int argc, char** argv)
{
    if (argc < 3)
        return 2;
    const std::string mode = argv[1];
    if (mode == "glove") {
        const std::filesystem::path dir = argv[2];
        std::filesystem::create_directories(dir);
        const auto file = dir / "glove-like.100d.txt";
        if (!std::filesystem::exists(file)) {
            std::mt19937 rng(1);
            std::normal_distribution<float> nd(0.0f, 0.4f);
            std::FILE* f = std::fopen(file.c_str(), "w");
            for (int i = 0; i < 341479; ++i) {
                std::fprintf(f, "w%d", i);
                for (int k = 0; k < 100; ++k)
                    std::fprintf(f, " %.6f", double(nd(rng)));
                std::fputc('\n', f);
            }
            std::fclose(f);
        }
        WordVectorOptions o;
        o.cacheDir = (dir / "cache").string();
        std::filesystem::remove_all(o.cacheDir);
        auto t = Clock::now();
        WordVectors a = loadWordVectors(file.string(), o);
        std::printf("file %.0f MB; first load (parse + write cache): %.2f s, %zu words\n",
                    std::filesystem::file_size(file) / 1e6, since(t), a.size());
        t = Clock::now();
        WordVectors b = loadWordVectors(file.string(), o);
        std::printf("cached load (incl. content hash of the source): %.2f s, fromCache=%d\n", since(t), int(b.fromCache()));
        const auto cache = std::filesystem::directory_iterator(o.cacheDir)->path();
        t = Clock::now();
        WordVectors c = loadWordVectors(cache.string(), o);
        std::printf("cache file %.0f MB opened directly: %.2f s\n", std::filesystem::file_size(cache) / 1e6, since(t));
        return 0;
    }
    if (mode == "fasttext") {
        std::ifstream in(argv[2]);
        const Tokenizer tok;
        std::vector<std::vector<std::string>> docs;
        std::string line;
        std::size_t tokens = 0;
        while (std::getline(in, line)) {
            docs.push_back(tok.tokenize(line));
            tokens += docs.back().size();
        }
        FastTextOptions o;
        if (argc > 3)
            o.threads = std::stoi(argv[3]);
        const std::string cache = "/tmp/bench_text_ft";
        std::filesystem::remove_all(cache);
        auto t = Clock::now();
        WordVectors wv = trainWordVectors(docs, o, cache);
        std::printf("%zu documents, %zu tokens, %zu words, %d-d, %d threads: trained in %.1f s\n", docs.size(), tokens,
                    wv.size(), wv.dim(), o.threads, since(t));
        t = Clock::now();
        WordVectors again = trainWordVectors(docs, o, cache);
        std::printf("second call from the cache: %.2f s (fromCache=%d)\n", since(t), int(again.fromCache()));
        return 0;
    }
    return 2;
}
