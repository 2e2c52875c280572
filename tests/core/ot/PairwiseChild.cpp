// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Child process of tst_ot_pairwise: computes the EMD matrix of a synthetic dataset into a
// cache directory and prints "<done> <total>" (pairs) on its own line at every progress
// report, flushed, so that the parent can kill it mid-way. With <holdAt>, the first report
// of at least that many pairs pauses the job (each worker stops before its next pair) and
// the child waits to be killed: a parent that reacts late still finds it unfinished.
//
//   tst_ot_pairwise_child <cacheDir> <synthetic spec> <threads> [<holdAt>]
#include "core/data/Synthetic.h"
#include "core/ot/PairwiseMatrix.h"

#include <cstdio>
#include <exception>
#include <memory>
#include <string>

namespace {

class PrintSink final : public setscope::job::ProgressSink {
public:
    setscope::ot::PairwiseJob* job = nullptr;
    std::int64_t holdAt = -1;

    // On the job's thread.
    void progress(std::int64_t done, std::int64_t total, const std::string&) override
    {
        if (holdAt >= 0 && done >= holdAt && job && !job->paused())
            job->pause();
        std::printf("%lld %lld\n", static_cast<long long>(done), static_cast<long long>(total));
        std::fflush(stdout);
    }
    void finished(setscope::job::JobStatus, const std::string& detail) override
    {
        if (!detail.empty())
            std::fprintf(stderr, "tst_ot_pairwise_child: %s\n", detail.c_str());
    }
};

} // namespace

int main(int argc, char** argv)
{
    if (argc != 4 && argc != 5) {
        std::fprintf(stderr, "usage: %s <cacheDir> <synthetic spec> <threads> [<holdAt>]\n", argv[0]);
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
        sink.job = &job;
        if (argc == 5)
            sink.holdAt = std::stoll(argv[4]);
        return job.runHere(&sink) == job::JobStatus::Finished ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "tst_ot_pairwise_child: %s\n", e.what());
        return 1;
    }
}
