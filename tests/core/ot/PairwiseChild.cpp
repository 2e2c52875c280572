// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Child process of tst_ot_pairwise: computes the EMD matrix of a synthetic dataset into a
// cache directory and prints "<done> <total>" (pairs) on its own line at every progress
// report, flushed, so that the parent can kill it mid-way.
//
//   tst_ot_pairwise_child <cacheDir> <synthetic spec> <threads>
#include "core/data/Synthetic.h"
#include "core/ot/PairwiseMatrix.h"

#include <cstdio>
#include <exception>
#include <memory>
#include <string>

namespace {

class PrintSink final : public setscope::train::ProgressSink {
public:
    void progress(std::int64_t done, std::int64_t total, const std::string&) override
    {
        std::printf("%lld %lld\n", static_cast<long long>(done), static_cast<long long>(total));
        std::fflush(stdout);
    }
    void finished(setscope::train::JobStatus, const std::string& detail) override
    {
        if (!detail.empty())
            std::fprintf(stderr, "tst_ot_pairwise_child: %s\n", detail.c_str());
    }
};

} // namespace

int main(int argc, char** argv)
{
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s <cacheDir> <synthetic spec> <threads>\n", argv[0]);
        return 2;
    }
    using namespace setscope;
    try {
        const auto ds = std::make_shared<const data::Dataset>(
            data::makeHierarchicalGaussians(data::SyntheticSpec::parse(argv[2])));
        ot::PairwiseOptions o;
        o.cacheDir = argv[1];
        o.threads = std::stoi(argv[3]);
        ot::PairwiseJob job(ds, o);
        PrintSink sink;
        return job.runHere(&sink) == train::JobStatus::Finished ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "tst_ot_pairwise_child: %s\n", e.what());
        return 1;
    }
}
