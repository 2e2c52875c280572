// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Training throughput of the self-attention set encoder (issue 9), against the padded
// reference the papers' public code follows (../shared/bench/encoder_reference.py: Debian's
// PyTorch, every set zero-padded to the largest set of the dataset, no mask), in one run.
//
//   build/bench/nn/bench_encoder [--sizes-file F] [--batches 8] [--ref-batches 4] [--threads 2]
//                                [--chunk-batches 16] [--group-tokens N] [--seed 0] [--dim 301]
//                                [--reference PATH] [--python /usr/bin/python3] [--no-reference]
//
// Both sides run the same step on batches of 64 sets drawn (with replacement) from the same
// pool of set sizes: z = model(x); d = cdist(z, z)^2; loss = relu(mean(diag(d, 1)) - mean(d)
// + 0.1); Adam 1e-5; random features; the paper's model (5 layers, 7 heads, ff 1000, dropout
// 0.1, rho 512-256-64). setscope groups the drawn sets into batches of similar size
// (nn::sizeBucketedBatches, chunks of --chunk-batches batches) and masks the padding.
// Without --sizes-file, the pool is 737 BBCSport-like sizes (gamma(2, 60) clipped to 5..452,
// std::mt19937 seeded with --seed), written to a file that the reference reads too.
// Each side's time covers its batches (building the inputs included), not model creation.
// Both sides run with this process's environment; on a machine shared with other work, run
// with OMP_WAIT_POLICY=passive (see docs/BENCHMARKS.md, issue 9).
#include "bench/BenchUtil.h"
#include "core/nn/SelfAttentionEncoder.h"
#include "core/nn/SizeBuckets.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace setscope;

namespace {

using bench::loadAverage;

struct Args {
    std::string sizesFile;
    std::string reference;
    std::string python = "/usr/bin/python3";
    std::int64_t batches = 8;
    std::int64_t refBatches = 4;
    std::int64_t threads = 2;
    std::int64_t chunkBatches = 16;
    std::int64_t dim = 301;
    std::int64_t groupTokens = -1; // -1: the encoder's default
    std::uint64_t seed = 0;
    bool runReference = true;
};

/// The variables that decide how the two thread pools (libgomp for Torch's own kernels,
/// OpenBLAS's pthreads for the matrix products) wait between jobs: on a busy machine, active
/// waiting costs more than the work (docs/BENCHMARKS.md). The reference inherits them.
std::string threadEnvironment()
{
    std::string out;
    for (const char* k : {"OMP_WAIT_POLICY", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OPENBLAS_THREAD_TIMEOUT"}) {
        const char* v = std::getenv(k);
        out += std::string(out.empty() ? "" : " ") + k + "=" + (v ? v : "(unset)");
    }
    return out;
}

/// The reference script: next to the source tree as ../shared/bench/ (the main checkout) or
/// in any parent folder's shared/bench/ (a worktree under /work/wt/NAME).
std::string findReference()
{
    for (fs::path dir = fs::path(SETSCOPE_SOURCE_DIR); !dir.empty(); dir = dir.parent_path()) {
        const fs::path p = dir / "shared" / "bench" / "encoder_reference.py";
        if (fs::exists(p))
            return p.string();
        if (dir == dir.parent_path())
            break;
    }
    return {};
}

std::vector<std::int64_t> readSizes(const std::string& path)
{
    std::ifstream f(path);
    if (!f)
        throw std::runtime_error("cannot read sizes file " + path);
    std::vector<std::int64_t> sizes;
    std::string line;
    while (std::getline(f, line)) {
        if (line.find_first_not_of(" \t\r") == std::string::npos)
            continue;
        const long long v = std::stoll(line);
        if (v < 1)
            throw std::runtime_error(path + ": set sizes must be >= 1, got " + line);
        sizes.push_back(v);
    }
    if (sizes.empty())
        throw std::runtime_error(path + ": no set sizes");
    return sizes;
}

std::string writeDefaultSizes(std::uint64_t seed)
{
    std::mt19937 rng(static_cast<std::uint32_t>(seed));
    std::gamma_distribution<double> g(2.0, 60.0);
    const fs::path path = fs::temp_directory_path() / ("setscope_bench_sizes_seed" + std::to_string(seed) + ".txt");
    std::ofstream f(path);
    for (int i = 0; i < 737; ++i)
        f << std::clamp<std::int64_t>(static_cast<std::int64_t>(g(rng)), 5, 452) << '\n';
    if (!f)
        throw std::runtime_error("cannot write " + path.string());
    return path.string();
}

std::string shellQuote(const std::string& s)
{
    std::string q = "'";
    for (char c : s)
        q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

struct Ours {
    double setsPerSecond = 0;
    double seconds = 0;
    double meanSetSize = 0;
    nn::PaddingCount padding; ///< of the batches, each padded to its longest set
    nn::PaddingCount grouped; ///< as the encoder runs them (group_tokens)
    std::int64_t groupTokens = 0;
    std::int64_t sets = 0;
};

/// The padding as SelfAttentionEncoder runs a batch with group_tokens = `budget`: rows sorted
/// by size, longest first, in groups of at most `budget` slots (mirrors poolGrouped).
nn::PaddingCount groupedPadding(std::vector<std::int64_t> sizes, std::int64_t budget)
{
    const std::int64_t longest = *std::max_element(sizes.begin(), sizes.end());
    if (budget == 0 || static_cast<std::int64_t>(sizes.size()) * longest <= budget)
        return nn::paddingCount(sizes);
    std::sort(sizes.rbegin(), sizes.rend());
    nn::PaddingCount c;
    for (std::size_t i = 0; i < sizes.size();) {
        const std::int64_t len = std::max<std::int64_t>(1, sizes[i]);
        const auto rows = std::min<std::size_t>(sizes.size() - i, static_cast<std::size_t>(std::max<std::int64_t>(1, budget / len)));
        c += nn::paddingCount(std::vector<std::int64_t>(sizes.begin() + static_cast<std::ptrdiff_t>(i),
                                                        sizes.begin() + static_cast<std::ptrdiff_t>(i + rows)));
        i += rows;
    }
    return c;
}

Ours runOurs(const Args& a, const std::vector<std::int64_t>& pool)
{
    // The same draw as the reference: 64 x batches sizes from the pool, with replacement.
    std::mt19937_64 rng(a.seed);
    std::uniform_int_distribution<std::size_t> pick(0, pool.size() - 1);
    std::vector<std::int64_t> sizes(static_cast<std::size_t>(64 * a.batches));
    for (auto& s : sizes)
        s = pool[pick(rng)];
    std::vector<std::int64_t> items(sizes.size());
    for (std::size_t i = 0; i < items.size(); ++i)
        items[i] = static_cast<std::int64_t>(i);
    const auto batches = nn::sizeBucketedBatches(items, sizes, {64, a.chunkBatches, a.seed});

    torch::manual_seed(static_cast<std::uint64_t>(a.seed));
    sdk::EncoderSpec spec;
    spec.inputDim = a.dim;
    spec.outputDim = 64;
    if (a.groupTokens >= 0)
        spec.options = sdk::OptionValues::resolve(nn::SelfAttentionEncoderImpl::schema(), {{"group-tokens", std::to_string(a.groupTokens)}}, "selfattn");
    Ours o;
    nn::SelfAttentionEncoder model(spec);
    model->train();
    o.groupTokens = model->groupTokens();
    torch::optim::Adam opt(model->parameters(), torch::optim::AdamOptions(1e-5));

    const auto t0 = std::chrono::steady_clock::now();
    for (const auto& batch : batches) {
        std::vector<std::int64_t> bs;
        for (std::int64_t i : batch)
            bs.push_back(sizes[static_cast<std::size_t>(i)]);
        o.padding += nn::paddingCount(bs);
        o.grouped += groupedPadding(bs, o.groupTokens);
        const auto b = static_cast<std::int64_t>(bs.size());
        const std::int64_t s = *std::max_element(bs.begin(), bs.end());
        torch::Tensor x = torch::zeros({b, s, a.dim});
        for (std::int64_t k = 0; k < b; ++k)
            x[k].narrow(0, 0, bs[static_cast<std::size_t>(k)]).normal_();
        const torch::Tensor n = torch::tensor(bs).unsqueeze(1);
        const torch::Tensor mask = torch::arange(s).unsqueeze(0) < n;
        const torch::Tensor z = model->forward({x, mask.to(torch::kFloat32), mask});
        const torch::Tensor d = torch::cdist(z, z).pow(2);
        const torch::Tensor loss = torch::relu(d.diagonal(1).mean() - d.mean() + 0.1);
        opt.zero_grad();
        loss.backward();
        opt.step();
        o.sets += b;
    }
    o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    o.setsPerSecond = static_cast<double>(o.sets) / o.seconds;
    o.meanSetSize = static_cast<double>(o.padding.real) / static_cast<double>(o.sets);
    return o;
}

nlohmann::json runReference(const Args& a, const std::string& script, const std::string& sizesFile)
{
    const std::string cmd = shellQuote(a.python) + " " + shellQuote(script) + " --sizes-file " + shellQuote(sizesFile) +
                            " --threads " + std::to_string(a.threads) + " --batches " + std::to_string(a.refBatches) +
                            " --dim " + std::to_string(a.dim) + " --seed " + std::to_string(a.seed);
    std::cout << "reference: " << cmd << std::endl;
    FILE* p = popen(cmd.c_str(), "r");
    if (!p)
        throw std::runtime_error("cannot start " + cmd);
    std::string out;
    char buf[4096];
    while (std::fgets(buf, sizeof buf, p))
        out += buf;
    const int rc = pclose(p);
    if (rc != 0)
        throw std::runtime_error("the reference failed (status " + std::to_string(rc) + "): " + out +
                                 "\n(python3-torch missing? apt-get install python3-torch)");
    const auto brace = out.rfind('{');
    if (brace == std::string::npos)
        throw std::runtime_error("no JSON from the reference: " + out);
    return nlohmann::json::parse(out.substr(brace));
}

Args parseArgs(int argc, char** argv)
{
    Args a;
    for (int i = 1; i < argc; ++i) {
        const std::string k = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc)
                throw std::invalid_argument(k + " needs a value");
            return argv[++i];
        };
        if (k == "--sizes-file")
            a.sizesFile = value();
        else if (k == "--reference")
            a.reference = value();
        else if (k == "--python")
            a.python = value();
        else if (k == "--batches")
            a.batches = std::stoll(value());
        else if (k == "--ref-batches")
            a.refBatches = std::stoll(value());
        else if (k == "--threads")
            a.threads = std::stoll(value());
        else if (k == "--chunk-batches")
            a.chunkBatches = std::stoll(value());
        else if (k == "--dim")
            a.dim = std::stoll(value());
        else if (k == "--group-tokens")
            a.groupTokens = std::stoll(value());
        else if (k == "--seed")
            a.seed = std::stoull(value());
        else if (k == "--no-reference")
            a.runReference = false;
        else
            throw std::invalid_argument("unknown argument " + k + " (see the comment at the top of bench_encoder.cpp)");
    }
    if (a.batches < 1 || a.refBatches < 1 || a.threads < 1 || a.chunkBatches < 1 || a.dim < 1)
        throw std::invalid_argument("--batches, --ref-batches, --threads, --chunk-batches and --dim must be >= 1");
    return a;
}

} // namespace

int main(int argc, char** argv)
{
    try {
        Args a = parseArgs(argc, argv);
        torch::set_num_threads(static_cast<int>(a.threads));
        const std::string sizesFile = a.sizesFile.empty() ? writeDefaultSizes(a.seed) : a.sizesFile;
        const std::vector<std::int64_t> pool = readSizes(sizesFile);
        std::int64_t poolMax = *std::max_element(pool.begin(), pool.end());
        double poolMean = 0;
        for (std::int64_t s : pool)
            poolMean += static_cast<double>(s);
        poolMean /= static_cast<double>(pool.size());
        std::printf("sizes: %s (%zu sets, mean %.1f, max %lld); threads %lld; dim %lld; load average at start %s\n"
                    "environment: %s\n",
                    sizesFile.c_str(), pool.size(), poolMean, static_cast<long long>(poolMax),
                    static_cast<long long>(a.threads), static_cast<long long>(a.dim), loadAverage().c_str(),
                    threadEnvironment().c_str());

        const Ours o = runOurs(a, pool);
        std::printf("setscope : %7.2f sets/s  (%lld sets in %lld batches, bucketed by size in chunks of %lld batches, "
                    "%.1f s; mean set size %.1f; padding share %.3f of the batches, %.3f as run in groups of <= %lld slots)\n",
                    o.setsPerSecond, static_cast<long long>(o.sets), static_cast<long long>(a.batches),
                    static_cast<long long>(a.chunkBatches), o.seconds, o.meanSetSize, o.padding.share(),
                    o.grouped.share(), static_cast<long long>(o.groupTokens));
        std::fflush(stdout);
        if (!a.runReference)
            return 0;
        const std::string script = a.reference.empty() ? findReference() : a.reference;
        if (script.empty() || !fs::exists(script))
            throw std::runtime_error("encoder_reference.py not found (looked for shared/bench/ above " +
                                     std::string(SETSCOPE_SOURCE_DIR) + "); pass --reference PATH");
        const nlohmann::json r = runReference(a, script, sizesFile);
        const double refRate = r.at("sets_per_s").get<double>();
        std::printf("reference: %7.2f sets/s  (%lld sets in %lld batches padded to %d, %.1f s; mean set size %.1f; "
                    "padding share %.3f; torch %s)\n",
                    refRate, static_cast<long long>(64 * a.refBatches), static_cast<long long>(a.refBatches),
                    r.at("padded_to").get<int>(), r.at("seconds").get<double>(), r.at("mean_set_size").get<double>(),
                    r.at("padding_fraction").get<double>(), r.at("torch").get<std::string>().c_str());
        // The two sides draw their sets from the pool with different generators: real elements
        // per second shows that a difference of the draws' mean size does not make the ratio.
        const double refElements = refRate * r.at("mean_set_size").get<double>();
        std::printf("ratio    : %.2fx the reference's sets/s (target >= 5x), %.2fx its real elements/s; "
                    "padding share %.3f vs %.3f; load average at end %s\n",
                    o.setsPerSecond / refRate, o.setsPerSecond * o.meanSetSize / refElements, o.padding.share(),
                    r.at("padding_fraction").get<double>(), loadAverage().c_str());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_encoder: %s\n", e.what());
        return 1;
    }
}
