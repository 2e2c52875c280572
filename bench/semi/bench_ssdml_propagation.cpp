// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Times seed 004's partition step on random Gaussian features: the kNN graph (FAISS exact),
// the affinity propagation (c + 1 labelled solves + one per unlabelled item) and the mining.
// Gaussian features in 128-d make the kNN graph close to an expander: a hard case for the
// solver's iteration count, none for its memory.
#include "../BenchUtil.h"

#include "core/semi/AffinityPropagation.h"
#include "core/semi/TripletMining.h"

#include <omp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

using namespace setscope;

int main(int argc, char** argv)
{
    const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : 10000;
    const int d = argc > 2 ? std::atoi(argv[2]) : 128;
    const std::int64_t labelled = argc > 3 ? std::atoll(argv[3]) : 1000;
    const int classes = argc > 4 ? std::atoi(argv[4]) : 10;
    const int k = argc > 5 ? std::atoi(argv[5]) : 10;
    std::mt19937 rng(1);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> x(static_cast<std::size_t>(n * d));
    for (float& v : x)
        v = normal(rng);
    std::vector<std::int32_t> y(static_cast<std::size_t>(n), -1);
    for (std::int64_t i = 0; i < labelled; ++i)
        y[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(i % classes);

    using Clock = std::chrono::steady_clock;
    const auto secs = [](Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };
    semi::PropagationOptions o;
    o.k = k;
    const double cpu0 = bench::processCpuSeconds();
    const auto t0 = Clock::now();
    const semi::KnnGraph g = semi::buildKnnGraph({x.data(), n, d}, k);
    const auto t1 = Clock::now();
    const semi::NeighbourhoodAffinities na = semi::propagate(g, y, o);
    const auto t2 = Clock::now();
    const std::vector<semi::Triplet> triplets = semi::mineTriplets(na);
    const auto t3 = Clock::now();
    std::printf("n %lld  d %d  labelled %lld  classes %d  k %d  gamma %.2f  threads %d\n", (long long)n, d,
                (long long)labelled, classes, k, o.gamma, omp_get_max_threads());
    std::printf("kNN graph     %8.2f s\n", secs(t0, t1));
    std::printf("propagation   %8.2f s  (%lld column solves)\n", secs(t1, t2),
                (long long)(n - labelled + classes + 1));
    std::printf("mining        %8.3f s  (%zu triplets)\n", secs(t2, t3), triplets.size());
    std::printf("total         %8.2f s wall, %.2f s CPU, load average %s\n", secs(t0, t3),
                bench::processCpuSeconds() - cpu0, bench::loadAverage().c_str());
    return 0;
}
