// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The gradient all-reduce of a distributed training step (docs/DISTRIBUTED.md "Measured"): 2
// ranks on this machine sum --floats float32 values (default 4.9 M, the attention encoder's
// parameters) through setscope's dist::Communicator (c10d ProcessGroupGloo over a file store),
// --reps times after 3 warm-ups; then torch.distributed's all_reduce with the Gloo backend
// (python3-torch, allreduce_reference.py) on the same size in the same run, and the ratio.
//   build/bench/dist/bench_allreduce [--floats 4900000] [--reps 20]
#include "../BenchUtil.h"
#include "core/dist/Gloo.h"
#include "core/dist/LocalLaunch.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

using namespace setscope;

namespace {

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

/// One rank: rank 0 writes the median seconds of an all-reduce to `result`.
int rankMain(const dist::Rendezvous& r, std::int64_t floats, int reps, const std::string& result)
{
    auto comm = dist::connectGloo(r);
    std::vector<float> g(static_cast<std::size_t>(floats), 1.0f + static_cast<float>(r.rank));
    std::vector<double> t;
    for (int k = 0; k < reps + 3; ++k) {
        comm->barrier();
        const auto t0 = std::chrono::steady_clock::now();
        comm->allreduceSum(std::span<float>(g));
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (k >= 3)
            t.push_back(s);
    }
    if (r.rank == 0)
        if (FILE* f = std::fopen(result.c_str(), "w")) {
            std::fprintf(f, "%.6f\n", median(t));
            std::fclose(f);
        }
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    std::int64_t floats = 4'900'000;
    int reps = 20;
    std::string result;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--floats")
            floats = std::atoll(argv[i + 1]);
        else if (a == "--reps")
            reps = std::atoi(argv[i + 1]);
        else if (a == "--result")
            result = argv[i + 1];
    }
    if (const auto r = dist::rendezvousFromEnvironment())
        return rankMain(*r, floats, reps, result);

    std::printf("all-reduce of %lld float32 (%.1f MB) between 2 ranks on this machine, median of %d (load %s)\n",
                static_cast<long long>(floats), 4e-6 * static_cast<double>(floats), reps, bench::loadAverage().c_str());
    std::fflush(stdout);
    const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
    const std::string tmp = std::filesystem::temp_directory_path() / ("bench_allreduce_" + std::to_string(::getpid()));
    dist::LocalLaunch l;
    l.argv = {self, "--floats", std::to_string(floats), "--reps", std::to_string(reps), "--result", tmp};
    l.ranks = 2;
    if (const int rc = dist::runLocalRanks(l); rc != 0) {
        std::fprintf(stderr, "the ranks failed (%d)\n", rc);
        return 1;
    }
    double ours = 0;
    if (FILE* f = std::fopen(tmp.c_str(), "r")) {
        if (std::fscanf(f, "%lf", &ours) != 1)
            ours = 0;
        std::fclose(f);
    }
    std::filesystem::remove(tmp);
    std::fprintf(stderr, "setscope (c10d ProcessGroupGloo via dist::Communicator): %.1f ms, %.2f GB/s of gradient\n",
                 ours * 1e3, 4e-9 * static_cast<double>(floats) / ours);

    const std::string cmd = "/usr/bin/python3 " + std::string(SETSCOPE_SOURCE_DIR) +
                            "/bench/dist/allreduce_reference.py --floats " + std::to_string(floats) + " --reps " +
                            std::to_string(reps);
    double ref = 0;
    if (FILE* p = ::popen(cmd.c_str(), "r")) {
        char line[256];
        while (std::fgets(line, sizeof line, p))
            if (std::sscanf(line, "reference %lf", &ref) == 1)
                break;
        ::pclose(p);
    }
    if (ref <= 0) {
        std::fprintf(stderr, "reference (python3-torch torch.distributed gloo): not available (apt-get install python3-torch)\n");
        return 0;
    }
    std::fprintf(stderr, "reference (torch.distributed all_reduce, gloo, python3-torch): %.1f ms\n", ref * 1e3);
    std::fprintf(stderr, "ratio setscope / reference: %.2f\n", ours / ref);
    return 0;
}
