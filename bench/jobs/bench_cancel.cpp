// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Cancel latency of setscope's long jobs, in wall-clock time: from the cancel request to the
// job's end (Job::wait() returning, or the call throwing job::Cancelled). The promise is
// "within a second" (docs/ARCHITECTURE.md). Tests check what makes it true without a clock
// (how many units of work a job does after a cancel, how often it polls); this program
// measures the seconds, which depend on the machine and its load, so they live here.
//
//   build/bench/jobs/bench_cancel [--repeats 5]
//
// Each case starts the work, waits until it is under way (a counter or a progress report),
// cancels and times the stop. No reference tool exists for this number: nothing to compare.
#include "core/builtins/Builtins.h"
#include "core/data/Dataset.h"
#include "core/data/Synthetic.h"
#include "core/data/text/FastTextTrainer.h"
#include "core/fetch/Subprocess.h"
#include "core/job/JobLoadContext.h"
#include "core/layout/LayoutJob.h"
#include "core/ot/PairwiseMatrix.h"
#include "core/plugin/Registry.h"
#include "core/train/TrainingJob.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

namespace fs = std::filesystem;
using namespace setscope;
using Clock = std::chrono::steady_clock;

namespace {

double msSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

/// Polls `ready` every millisecond for up to 120 s; false on timeout.
bool waitFor(const std::function<bool()>& ready)
{
    const auto deadline = Clock::now() + std::chrono::seconds(120);
    while (!ready()) {
        if (Clock::now() > deadline)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

/// One kind of job: `once` starts it, waits until it is under way, cancels it and returns the
/// milliseconds from the cancel request to its end (-1 when it never got going or did not end
/// as cancelled).
struct Case {
    std::string name;
    std::function<double()> once;
};

std::shared_ptr<const data::Dataset> synthetic(const std::string& spec)
{
    return std::make_shared<const data::Dataset>(data::makeHierarchicalGaussians(data::SyntheticSpec::parse(spec)));
}

std::shared_ptr<const job::EmbeddingSnapshot> randomSnapshot(int n, int dim, std::uint32_t seed)
{
    auto s = std::make_shared<job::EmbeddingSnapshot>();
    s->dim = dim;
    s->step = 1;
    std::mt19937 rng(seed);
    std::normal_distribution<float> g;
    for (int i = 0; i < n; ++i)
        s->items.push_back(i);
    s->vectors.resize(static_cast<std::size_t>(n) * static_cast<std::size_t>(dim));
    for (float& v : s->vectors)
        v = g(rng);
    return s;
}

double timeJobCancel(job::Job& job, const std::function<bool()>& underWay)
{
    job.start(nullptr);
    if (!waitFor(underWay)) {
        job.cancel();
        job.wait();
        return -1.0;
    }
    const auto t0 = Clock::now();
    job.cancel();
    job.wait();
    const double ms = msSince(t0);
    return job.status() == job::JobStatus::Cancelled ? ms : -1.0;
}

} // namespace

int main(int argc, char** argv)
{
    int repeats = 5;
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], "--repeats") == 0)
            repeats = std::max(1, std::atoi(argv[i + 1]));

    plugin::Registry registry;
    builtins::registerBuiltins(registry);
    const fs::path tmp = fs::temp_directory_path() / ("setscope-bench-cancel-" + std::to_string(::getpid()));
    fs::create_directories(tmp);

    const auto vectors = synthetic("dim=64,coarse=4,fine=4,points=2000");
    const auto sets = synthetic("dim=8,coarse=2,fine=2,points=60,set=48");

    std::vector<Case> cases;
    cases.push_back({"training (MLP, triplet, 128-item batches), cancel at step 20", [&] {
                         train::TrainerConfig c;
                         c.device = "cpu";
                         c.epochs = 1000;
                         c.snapshotEvery = 0;
                         c.evaluateEachEpoch = false;
                         train::TrainingJob job(vectors, c, registry);
                         return timeJobCancel(job, [&] { return job.counters().done.load() >= 20; });
                     }});
    cases.push_back({"t-SNE map of 3 000 x 64 (exact), cancel at iteration 20", [&] {
                         layout::LayoutJob::Options o;
                         o.tsne.maxIterations = 1000000;
                         layout::LayoutJob job(o);
                         job.submit(randomSnapshot(3000, 64, 7));
                         return timeJobCancel(job, [&] {
                             auto l = job.layouts().latest();
                             return l && l->iteration >= 20;
                         });
                     }});
    cases.push_back({"t-SNE input affinities of 8 000 x 64, cancel 50 ms in", [&] {
                         layout::LayoutJob job(layout::LayoutJob::Options{});
                         job.submit(randomSnapshot(8000, 64, 8));
                         const auto started = Clock::now();
                         return timeJobCancel(job, [&] { return msSince(started) >= 50.0; });
                     }});
    cases.push_back({"pairwise EMD matrix of 240 sets of 48, cancel after 200 pairs", [&] {
                         ot::PairwiseOptions o;
                         o.cacheDir = (tmp / "pairwise").string();
                         fs::remove_all(o.cacheDir);
                         ot::PairwiseJob job(sets, o);
                         return timeJobCancel(job, [&] { return job.pairsComputed() >= 200; });
                     }});
    cases.push_back({"fastText skip-gram training, cancel at its first progress report", [&] {
                         std::vector<std::vector<std::string>> docs;
                         for (int r = 0; r < 2000; ++r) {
                             std::vector<std::string> d;
                             for (int k = 0; k < 100; ++k)
                                 d.push_back("w" + std::to_string((r * 7 + k * 13) % 3000));
                             docs.push_back(std::move(d));
                         }
                         data::FastTextOptions o;
                         o.dim = 100;
                         o.epoch = 1000;
                         o.threads = 2;
                         job::JobControl control;
                         struct Sink : job::ProgressSink {
                             std::atomic<bool> reported{false};
                             void progress(std::int64_t, std::int64_t, const std::string&) override { reported = true; }
                         } sink;
                         std::atomic<bool> cancelled{false};
                         job::JobLoadContext context(&sink, &control);
                         std::thread worker([&] {
                             try {
                                 data::trainWordVectors(docs, o, (tmp / "ft").string(), &context);
                             } catch (const job::Cancelled&) {
                                 cancelled = true;
                             }
                         });
                         const bool going = waitFor([&] { return sink.reported.load(); });
                         const auto t0 = Clock::now();
                         control.requestCancel();
                         worker.join();
                         const double ms = msSince(t0);
                         return going && cancelled ? ms : -1.0;
                     }});
    cases.push_back({"external command (a download: sleep 3600), cancel 200 ms in", [&] {
                         job::JobControl control;
                         std::atomic<bool> cancelled{false};
                         std::thread worker([&] {
                             fetch::CommandOptions o;
                             o.control = &control;
                             try {
                                 fetch::runCommand({"sleep", "3600"}, o);
                             } catch (const job::Cancelled&) {
                                 cancelled = true;
                             }
                         });
                         std::this_thread::sleep_for(std::chrono::milliseconds(200));
                         const auto t0 = Clock::now();
                         control.requestCancel();
                         worker.join();
                         const double ms = msSince(t0);
                         return cancelled ? ms : -1.0;
                     }});

    std::printf("cancel latency (ms from the request to the job's end), %d repeats, %u hardware threads\n", repeats,
                std::thread::hardware_concurrency());
    std::printf("%-70s %9s %9s\n", "job", "median", "max");
    bool allUnderASecond = true;
    for (const Case& c : cases) {
        std::vector<double> ms;
        bool failed = false;
        for (int r = 0; r < repeats; ++r) {
            const double v = c.once();
            if (v < 0)
                failed = true;
            ms.push_back(v);
        }
        std::sort(ms.begin(), ms.end());
        if (failed) {
            std::printf("%-70s %19s\n", c.name.c_str(), "did not cancel");
            allUnderASecond = false;
            continue;
        }
        const double median = ms[ms.size() / 2], mx = ms.back();
        allUnderASecond = allUnderASecond && mx < 1000.0;
        std::printf("%-70s %9.1f %9.1f\n", c.name.c_str(), median, mx);
    }
    fs::remove_all(tmp);
    std::printf("%s\n", allUnderASecond ? "every cancel ended within a second" : "NOT every cancel ended within a second");
    return allUnderASecond ? 0 : 1;
}
