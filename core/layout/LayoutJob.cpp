// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/layout/LayoutJob.h"
#include "core/util/Numeric.h"

#include "core/layout/Pca.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>

namespace setscope::layout {

namespace {

// Idle polling period: short enough that a new snapshot is picked up within a frame or
// two, long enough to cost nothing; cancel is checked on each poll.
constexpr auto kIdlePoll = std::chrono::milliseconds(15);
// Spread (RMS) given to new items when the previous map is a single point.
constexpr double kColdInitSpread = 1e-2;

using util::sz;

void checkSnapshot(const job::EmbeddingSnapshot& s)
{
    const std::size_t n = s.items.size();
    if (n > 0 && s.dim < 1)
        throw std::invalid_argument("layout: snapshot of step " + std::to_string(s.step)
                                    + " has dimension " + std::to_string(s.dim));
    if (s.vectors.size() != n * static_cast<std::size_t>(std::max(s.dim, 0)))
        throw std::invalid_argument("layout: snapshot of step " + std::to_string(s.step) + " has "
                                    + std::to_string(s.vectors.size()) + " values for "
                                    + std::to_string(n) + " items of dimension "
                                    + std::to_string(s.dim));
}

// PCA to 2-D; a 1-D embedding gets a zero second coordinate.
std::vector<float> pca2(const job::EmbeddingSnapshot& s)
{
    const auto n = static_cast<std::int64_t>(s.items.size());
    if (n == 0)
        return {};
    if (s.dim >= 2)
        return pca(s.vectors.data(), n, s.dim, 2);
    const std::vector<float> one = pca(s.vectors.data(), n, s.dim, 1);
    std::vector<float> xy(sz(2 * n), 0.0f);
    for (std::int64_t i = 0; i < n; ++i)
        xy[sz(2 * i)] = one[sz(i)];
    return xy;
}

// Mean and RMS distance to the mean of a 2-D point list.
struct Spread {
    double cx = 0.0;
    double cy = 0.0;
    double rms = 0.0;
};

Spread spreadOf(const std::vector<float>& xy)
{
    Spread s;
    const std::size_t n = xy.size() / 2;
    if (n == 0)
        return s;
    for (std::size_t i = 0; i < n; ++i) {
        s.cx += xy[2 * i];
        s.cy += xy[2 * i + 1];
    }
    s.cx /= static_cast<double>(n);
    s.cy /= static_cast<double>(n);
    double ss = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        const double dx = xy[2 * i] - s.cx;
        const double dy = xy[2 * i + 1] - s.cy;
        ss += dx * dx + dy * dy;
    }
    s.rms = std::sqrt(ss / static_cast<double>(n));
    return s;
}

} // namespace

LayoutJob::LayoutJob(Options options)
    : m_opt(std::move(options))
{
    m_opt.publishEvery = std::max(1, m_opt.publishEvery);
    m_opt.minIterationsPerSnapshot = std::max(0, m_opt.minIterationsPerSnapshot);
    m_opt.warmIterations = std::max(0, m_opt.warmIterations);
}

LayoutJob::~LayoutJob() { stopAndWait(); }

void LayoutJob::submit(std::shared_ptr<const job::EmbeddingSnapshot> snapshot)
{
    if (snapshot)
        m_in.publish(std::move(snapshot));
}

void LayoutJob::run()
{
    std::shared_ptr<const job::EmbeddingSnapshot> current; // the snapshot being mapped
    std::shared_ptr<const Layout> previous;                   // the last published map
    std::unique_ptr<FastTsne> tsne;
    std::shared_ptr<const job::EmbeddingSnapshot> mapped; // the snapshot `tsne` was built for
    int iterationsOnCurrent = 0;
    int target = 0; // t-SNE iterations planned for the current snapshot

    auto publish = [&](std::vector<float> xy, int iteration, bool converged) {
        auto l = std::make_shared<Layout>();
        l->items = current->items;
        l->xy = std::move(xy);
        l->sourceStep = current->step;
        l->iteration = iteration;
        l->converged = converged;
        previous = l;
        m_out.publish(std::move(l));
    };

    // Sets up the map of `current`: PCA, or a cold / warm t-SNE start.
    auto begin = [&]() {
        checkSnapshot(*current);
        iterationsOnCurrent = 0;
        const auto n = static_cast<std::int64_t>(current->items.size());
        if (m_opt.method == LayoutMethod::Pca || n == 0) {
            tsne.reset();
            publish(pca2(*current), 0, true);
            reportProgress(1, 1, "layout (PCA)");
            return;
        }
        std::vector<float> init = pca2(*current);
        const Spread pcaSpread = spreadOf(init);

        // Warm start: the previous map's position for every item it had (matched by id);
        // new items at their PCA position scaled and moved onto the previous map.
        std::vector<float> warm;
        if (previous && !previous->items.empty()) {
            std::unordered_map<std::int64_t, std::size_t> where;
            where.reserve(previous->items.size());
            for (std::size_t k = 0; k < previous->items.size(); ++k)
                where.emplace(previous->items[k], k);
            const Spread prevSpread = spreadOf(previous->xy);
            // A previous map of one point has no spread to match: use the cold-start spread.
            const double spread = prevSpread.rms > 0.0 ? prevSpread.rms : kColdInitSpread * std::sqrt(2.0);
            const double scale = pcaSpread.rms > 0.0 ? spread / pcaSpread.rms : 0.0;
            warm.resize(sz(2 * n));
            std::size_t matched = 0;
            for (std::int64_t i = 0; i < n; ++i) {
                const auto it = where.find(current->items[sz(i)]);
                if (it != where.end()) {
                    warm[sz(2 * i)] = previous->xy[2 * it->second];
                    warm[sz(2 * i + 1)] = previous->xy[2 * it->second + 1];
                    ++matched;
                } else {
                    warm[sz(2 * i)] = static_cast<float>(
                        prevSpread.cx + (init[sz(2 * i)] - pcaSpread.cx) * scale);
                    warm[sz(2 * i + 1)] = static_cast<float>(
                        prevSpread.cy + (init[sz(2 * i + 1)] - pcaSpread.cy) * scale);
                }
            }
            if (matched == 0)
                warm.clear(); // nothing in common: a cold start is the better start
        }

        if (!warm.empty() && tsne && mapped && mapped->items == current->items) {
            // The same items in the same order (a training snapshot of the same subset): keep
            // the object and its buffers, recompute the affinities only.
            tsne->setInput(current->vectors.data(), n, current->dim, &control());
        } else {
            tsne.reset();
            tsne = std::make_unique<FastTsne>(current->vectors.data(), n, current->dim, m_opt.tsne, &control());
        }
        mapped = current;
        if (!warm.empty()) {
            tsne->initialize(warm.data());
            tsne->setMaxIterations(m_opt.warmIterations);
        } else {
            tsne->initialize(); // cold: FastTsne's PCA start
            tsne->setMaxIterations(m_opt.tsne.maxIterations);
        }
        target = tsne->options().maxIterations;
        publish(tsne->embedding(), 0, tsne->done());
    };

    std::uint64_t seen = 0;
    for (;;) {
        control().checkpoint();

        const std::uint64_t seq = m_in.sequence();
        const bool canSwitch = !tsne || tsne->done()
                               || iterationsOnCurrent >= m_opt.minIterationsPerSnapshot;
        if (seq != seen && canSwitch) {
            seen = seq;
            auto next = m_in.latest();
            if (next && next != current) {
                current = std::move(next);
                begin();
                continue;
            }
        }

        if (tsne && !tsne->done()) {
            const int done = tsne->step(m_opt.publishEvery, &control());
            iterationsOnCurrent += done;
            publish(tsne->embedding(), tsne->iteration(), tsne->done());
            reportProgress(tsne->iteration(), target, "layout (t-SNE)");
            continue;
        }
        std::this_thread::sleep_for(kIdlePoll);
    }
}

} // namespace setscope::layout
