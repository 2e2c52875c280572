// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/mesh/PointCloudLoader.h"

#include "core/job/Job.h"
#include "core/util/Text.h"

#include <setscope/sdk/Errors.h>

#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

namespace fs = std::filesystem;

namespace setscope::data::mesh {

using sdk::InputError;
using sdk::Split;

namespace {

/// Fraction of each category that goes to train when the folder has no train/test split.
constexpr double kTrainFraction = 0.8;

struct FileJob {
    fs::path path;
    std::string relative; ///< relative to the root, '/' separators: seeds and splits
    int category = 0;
    Split split = Split::Train;
};

struct FileResult {
    std::optional<std::vector<float>> points;
    std::string error;
    bool withReplacement = false;
    std::size_t skippedFaces = 0;
    std::vector<std::string> warnings;
};

std::vector<fs::path> meshFilesIn(const fs::path& dir)
{
    std::vector<fs::path> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file(ec) && isMeshFile(it->path().string()))
            out.push_back(it->path());
    std::sort(out.begin(), out.end());
    return out;
}

/// The train / test sub-folder of `dir` ("train", "Train", ...), empty when absent.
fs::path splitFolder(const fs::path& dir, const std::string& lowerName)
{
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_directory(ec) && util::toLower(it->path().filename().string()) == lowerName)
            return it->path();
    return {};
}

std::vector<fs::path> categoryFolders(const fs::path& root)
{
    std::vector<fs::path> out;
    std::error_code ec;
    for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (it->is_directory(ec) && !name.empty() && name[0] != '.')
            out.push_back(it->path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::string joinFirst(const std::vector<std::string>& items, std::size_t n)
{
    std::string s;
    for (std::size_t i = 0; i < items.size() && i < n; ++i)
        s += (i ? ", " : "") + items[i];
    if (items.size() > n)
        s += ", ...";
    return s;
}

FileResult processFile(const FileJob& job, const PointCloudOptions& options)
{
    FileResult r;
    try {
        const TriangleMesh m = readMeshFile(job.path.string());
        std::mt19937_64 rng(fileSeed(options.sampling.seed, job.relative));
        r.points = meshToPointCloud(m, options.sampling, rng, job.path.string(), &r.withReplacement);
        r.skippedFaces = m.skippedFaces;
        r.warnings = m.warnings;
    } catch (const std::bad_alloc&) {
        r.error = job.path.string() + ": out of memory while reading it";
    } catch (const std::exception& e) {
        r.error = e.what();
    }
    return r;
}

} // namespace

void loadMeshFile(const std::string& path, sdk::DatasetSink& sink, const PointCloudOptions& options)
{
    const TriangleMesh m = readMeshFile(path);
    const fs::path p(path);
    std::mt19937_64 rng(fileSeed(options.sampling.seed, p.filename().string()));
    bool repl = false;
    const std::vector<float> pts = meshToPointCloud(m, options.sampling, rng, path, &repl);
    sink.setName(p.stem().string());
    sink.setDimension(3);
    sink.addItem(pts.data(), nullptr, static_cast<std::size_t>(options.sampling.points), Split::Train);
    sink.addSourceFile(path);
    for (const std::string& w : m.warnings)
        sink.note(w);
    if (m.skippedFaces)
        sink.note(path + ": " + std::to_string(m.skippedFaces) + " faces with fewer than 3 corners (lines, points) were skipped");
    if (repl)
        sink.note(path + ": only " + std::to_string(m.vertexCount()) + " points for " +
                  std::to_string(options.sampling.points) + ": the rest were drawn again (with replacement)");
}

bool looksLikePointCloudFolder(const std::string& path)
{
    std::error_code ec;
    if (!fs::is_directory(path, ec))
        return false;
    int looked = 0;
    for (const fs::path& cat : categoryFolders(path)) {
        if (++looked > 64)
            break;
        for (const fs::path& dir : {cat, splitFolder(cat, "train"), splitFolder(cat, "test")}) {
            if (dir.empty())
                continue;
            int seen = 0;
            for (fs::directory_iterator it(dir, ec), end; !ec && it != end && seen < 64; it.increment(ec), ++seen)
                if (isMeshFile(it->path().string()) && it->is_regular_file(ec))
                    return true;
        }
    }
    return false;
}

sdk::OptionSchema PointCloudOptions::fileSchema()
{
    using sdk::OptionSpec;
    const SamplingOptions d;
    return {
        OptionSpec::integer("points", d.points, 1, 1 << 20, "points sampled per shape (area-weighted on the surface)"),
        OptionSpec::integer("seed", static_cast<std::int64_t>(d.seed), 0, 9.0e15,
                            "seeds the sampling (mixed with each file's path)"),
        OptionSpec::flag("jitter", d.jitter, "add clipped Gaussian noise after normalising (PointNet's)"),
    };
}

sdk::OptionSchema PointCloudOptions::folderSchema()
{
    sdk::OptionSchema s = fileSchema();
    s.push_back(sdk::OptionSpec::integer("threads", 0, 0, 1024,
                                         "worker threads (0: all cores); the result does not depend on it"));
    return s;
}

PointCloudOptions PointCloudOptions::fromValues(const sdk::OptionValues& v)
{
    PointCloudOptions p;
    p.sampling.points = static_cast<int>(v.integer("points"));
    p.sampling.seed = static_cast<std::uint64_t>(v.integer("seed"));
    p.sampling.jitter = v.flag("jitter");
    if (v.values().count("threads"))
        p.threads = static_cast<int>(v.integer("threads"));
    return p;
}

void loadPointCloudFolder(const std::string& rootPath, sdk::DatasetSink& sink, const PointCloudOptions& options,
                          sdk::LoadContext* context)
{
    const fs::path root(rootPath);
    std::error_code ec;
    if (!fs::is_directory(root, ec))
        throw InputError(rootPath, "", "not a folder (expected root/<category>/[train|test]/*.off ...)");
    if (options.sampling.points < 1)
        throw std::invalid_argument("loadPointCloudFolder: points must be positive");
    if (context)
        context->checkpoint(); // cancel before any work; waits while paused

    // 1. The file list, in (category, split folder, file name) order.
    std::vector<std::string> categories;
    std::vector<FileJob> jobs;
    std::vector<std::string> hashSplit;
    std::size_t ignoredLoose = 0;
    auto relative = [&](const fs::path& p) { return p.lexically_relative(root).generic_string(); };
    for (const fs::path& catDir : categoryFolders(root)) {
        const fs::path tr = splitFolder(catDir, "train"), te = splitFolder(catDir, "test");
        std::vector<FileJob> cat;
        const int id = static_cast<int>(categories.size());
        if (!tr.empty() || !te.empty()) {
            for (const auto& [dir, split] : {std::pair{tr, Split::Train}, std::pair{te, Split::Test}})
                if (!dir.empty())
                    for (const fs::path& f : meshFilesIn(dir))
                        cat.push_back({f, relative(f), id, split});
            ignoredLoose += meshFilesIn(catDir).size();
        } else {
            for (const fs::path& f : meshFilesIn(catDir))
                cat.push_back({f, relative(f), id, Split::Train});
            // Deterministic 80/20: rank the files by the hash of their relative path.
            std::vector<std::pair<std::uint64_t, std::size_t>> order;
            for (std::size_t i = 0; i < cat.size(); ++i)
                order.emplace_back(XXH3_64bits(cat[i].relative.data(), cat[i].relative.size()), i);
            std::sort(order.begin(), order.end());
            const auto nTrain = static_cast<std::size_t>(std::llround(kTrainFraction * static_cast<double>(cat.size())));
            for (std::size_t r = nTrain; r < order.size(); ++r)
                cat[order[r].second].split = Split::Test;
            if (!cat.empty())
                hashSplit.push_back(catDir.filename().string());
        }
        if (cat.empty())
            continue;
        categories.push_back(catDir.filename().string());
        jobs.insert(jobs.end(), cat.begin(), cat.end());
    }
    if (jobs.empty())
        throw InputError(rootPath, "",
                         "no mesh files found: expected root/<category>/[train|test]/*.{off,ply,obj,stl,xyz}");

    // 2. Read and sample on worker threads; results land by index, so the order (and, with
    //    per-file seeds, the values) do not depend on the thread count.
    const std::size_t total = jobs.size();
    std::vector<FileResult> results(total);
    std::atomic<std::size_t> next{0}, done{0};
    std::atomic<bool> stop{false};
    std::mutex mutex;
    std::condition_variable finished;
    unsigned nThreads = options.threads > 0 ? static_cast<unsigned>(options.threads) : std::thread::hardware_concurrency();
    nThreads = std::max(1u, std::min<unsigned>(nThreads, static_cast<unsigned>(total)));
    auto worker = [&] {
        for (;;) {
            while (context && context->paused() && !stop.load())
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
            if (stop.load())
                return;
            const std::size_t i = next.fetch_add(1);
            if (i >= total)
                return;
            results[i] = processFile(jobs[i], options);
            if (done.fetch_add(1) + 1 == total) {
                std::lock_guard lock(mutex);
                finished.notify_all();
            }
        }
    };
    {
        std::vector<std::jthread> threads;
        struct StopOnExit { // an exception on this thread must not leave workers running
            std::atomic<bool>& stop;
            ~StopOnExit() { stop.store(true); }
        };
        // Declared after `threads`: destroyed first, so workers see stop before the joins.
        StopOnExit guard{stop};
        for (unsigned t = 0; t < nThreads; ++t)
            threads.emplace_back(worker);
        std::unique_lock lock(mutex);
        while (done.load() < total) {
            finished.wait_for(lock, std::chrono::milliseconds(100));
            if (context)
                context->progress(static_cast<std::int64_t>(done.load()), static_cast<std::int64_t>(total),
                                  "sampling point clouds");
            if (context && context->cancelRequested()) {
                stop.store(true);
                lock.unlock();
                for (auto& th : threads)
                    th.join();
                context->checkpoint();
                throw job::Cancelled(); // a context whose checkpoint() did not throw
            }
        }
    }

    // 3. Failures: tolerated up to the limit, always counted and quoted.
    std::vector<std::string> errors;
    std::size_t withReplacement = 0, skippedFaces = 0;
    std::vector<std::string> warnings;
    for (const FileResult& r : results) {
        if (!r.points)
            errors.push_back(r.error);
        withReplacement += r.withReplacement ? 1 : 0;
        skippedFaces += r.skippedFaces;
        warnings.insert(warnings.end(), r.warnings.begin(), r.warnings.end());
    }
    const std::size_t quoted = static_cast<std::size_t>(std::max(options.quotedFailures, 1));
    if (errors.size() == total)
        throw InputError(rootPath, "", "none of the " + std::to_string(total) + " files could be read; first: " +
                                           joinFirst(errors, quoted));
    if (static_cast<double>(errors.size()) > options.maxFailedFraction * static_cast<double>(total))
        throw InputError(rootPath, "",
                         std::to_string(errors.size()) + " of " + std::to_string(total) +
                             " files could not be read (more than " +
                             std::to_string(static_cast<int>(std::lround(options.maxFailedFraction * 100))) +
                             " %); first: " + joinFirst(errors, quoted));

    // 4. The dataset.
    const auto n = static_cast<std::size_t>(options.sampling.points);
    sink.setName(root.filename().empty() ? root.parent_path().filename().string() : root.filename().string());
    sink.setDimension(3);
    sink.reserve(total - errors.size(), (total - errors.size()) * n);
    sink.defineLabelSet("fine", categories);
    for (std::size_t i = 0; i < total; ++i) {
        if (!results[i].points)
            continue;
        const std::size_t item = sink.addItem(results[i].points->data(), nullptr, n, jobs[i].split);
        sink.setLabel("fine", item, jobs[i].category);
        sink.addSourceFile(jobs[i].path.string());
    }
    if (!errors.empty())
        sink.note(std::to_string(errors.size()) + " of " + std::to_string(total) +
                  " files could not be read and were skipped; first: " + joinFirst(errors, quoted));
    if (!hashSplit.empty())
        sink.note("no train/test folders in " + std::to_string(hashSplit.size()) + " categories (" + joinFirst(hashSplit, 5) +
                  "): split 80/20 per category by the XXH3 hash of each file's relative path");
    if (ignoredLoose)
        sink.note(std::to_string(ignoredLoose) +
                  " mesh files beside train/test folders were ignored (only train/ and test/ are read there)");
    if (withReplacement)
        sink.note(std::to_string(withReplacement) + " point sets had fewer than " + std::to_string(n) +
                  " points: the rest were drawn again (with replacement)");
    if (skippedFaces)
        sink.note(std::to_string(skippedFaces) + " faces with fewer than 3 corners (lines, points) were skipped");
    if (!warnings.empty())
        sink.note(std::to_string(warnings.size()) + " warnings; first: " + joinFirst(warnings, quoted));
    if (context)
        context->progress(static_cast<std::int64_t>(total), static_cast<std::int64_t>(total), "sampling point clouds");
}

sdk::LoaderInfo meshLoaderInfo()
{
    return {"mesh", "one mesh or point file (OFF, PLY, OBJ, STL, XYZ) as a point cloud of 1024 points in the unit sphere",
            meshExtensions(),
            PointCloudOptions::fileSchema(),
            [](const std::string& p) {
                std::error_code ec;
                return isMeshFile(p) && std::filesystem::is_regular_file(p, ec);
            },
            [](const std::string& p, const sdk::OptionValues& o, sdk::DatasetSink& s, sdk::LoadContext&) {
                loadMeshFile(p, s, PointCloudOptions::fromValues(o));
            }};
}

sdk::LoaderInfo pointCloudFolderLoaderInfo()
{
    return {"pointcloud-folder",
            "folder per category of meshes (ModelNet40 layout root/<category>/[train|test]/*.off) as point clouds",
            {""},
            PointCloudOptions::folderSchema(),
            [](const std::string& p) { return looksLikePointCloudFolder(p); },
            [](const std::string& p, const sdk::OptionValues& o, sdk::DatasetSink& s, sdk::LoadContext& c) {
                loadPointCloudFolder(p, s, PointCloudOptions::fromValues(o), &c);
            }};
}

} // namespace setscope::data::mesh
