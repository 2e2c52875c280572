// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/job/EmbeddingSnapshot.h"
#include "core/job/Job.h"
#include "core/model/ModelHandle.h"

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace setscope::data {
class Dataset;
}

namespace setscope::train::run {

/// Embeds the items of each snapshot on a thread of its own, so that a snapshot of every item
/// (seconds to minutes with the attention encoder on a large corpus) does not pause training:
/// the training thread only hands over a copy of the weights (a model::ModelHandle). At most one
/// snapshot waits while another is embedded; a third submit() waits for room (so every
/// requested snapshot is published, in order, and memory stays bounded). Its own JobControl:
/// the job's pause does not park it (a pause lets the snapshot in hand finish).
class SnapshotEmbedder {
public:
    SnapshotEmbedder(const data::Dataset& ds, std::vector<std::int64_t> items, job::SnapshotBuffer& out)
        : m_ds(ds)
        , m_items(std::move(items))
        , m_out(out)
    {
    }
    SnapshotEmbedder(const SnapshotEmbedder&) = delete;
    SnapshotEmbedder& operator=(const SnapshotEmbedder&) = delete;
    /// Abandons what is left (a failed or cancelled run) and joins.
    ~SnapshotEmbedder() { abort(); }

    /// Queues `meta` (step, epoch, loss) to be filled with `model`'s embedding of the items.
    /// Waits while a snapshot is already queued; throws job::Cancelled when `control` is
    /// cancelled meanwhile, and the embedder's error if it failed.
    void submit(std::shared_ptr<const model::ModelHandle> model, std::shared_ptr<job::EmbeddingSnapshot> meta,
                job::JobControl& control)
    {
        std::unique_lock lock(m_mutex);
        if (!m_thread.joinable())
            m_thread = std::thread([this] { loop(); });
        while (m_pending && m_error.empty()) {
            m_cv.wait_for(lock, std::chrono::milliseconds(20));
            lock.unlock();
            control.checkpoint();
            lock.lock();
        }
        if (!m_error.empty())
            throw std::runtime_error("embedding a snapshot: " + m_error);
        m_pending = Request{std::move(model), std::move(meta)};
        m_cv.notify_all();
    }
    /// Waits until every submitted snapshot is published (the end of a run), then joins;
    /// throws when embedding one failed (as it would have failed the run on its own thread).
    void finish()
    {
        {
            std::unique_lock lock(m_mutex);
            m_cv.wait(lock, [this] { return (!m_pending && !m_busy) || !m_error.empty(); });
            m_stop = true;
            m_cv.notify_all();
        }
        if (m_thread.joinable())
            m_thread.join();
        if (!m_error.empty())
            throw std::runtime_error("embedding a snapshot: " + m_error);
    }
    void abort()
    {
        {
            std::lock_guard lock(m_mutex);
            m_stop = true;
            m_pending.reset();
            m_control.requestCancel();
            m_cv.notify_all();
        }
        if (m_thread.joinable())
            m_thread.join();
    }

private:
    struct Request {
        std::shared_ptr<const model::ModelHandle> model;
        std::shared_ptr<job::EmbeddingSnapshot> snapshot;
    };

    void loop()
    {
        for (;;) {
            Request r;
            {
                std::unique_lock lock(m_mutex);
                m_cv.wait(lock, [this] { return m_pending || m_stop; });
                if (!m_pending)
                    return; // stopped with nothing left
                r = std::move(*m_pending);
                m_pending.reset();
                m_busy = true;
                m_cv.notify_all(); // room for the next submit()
            }
            try {
                r.snapshot->vectors = r.model->embed(m_ds, m_items, &m_control);
                m_out.publish(std::move(r.snapshot));
            } catch (const job::Cancelled&) {
                std::lock_guard lock(m_mutex);
                m_busy = false;
                m_cv.notify_all();
                return;
            } catch (const std::exception& e) {
                std::lock_guard lock(m_mutex);
                m_error = e.what();
                m_busy = false;
                m_cv.notify_all();
                return;
            }
            std::lock_guard lock(m_mutex);
            m_busy = false;
            m_cv.notify_all();
        }
    }

    const data::Dataset& m_ds;
    const std::vector<std::int64_t> m_items;
    job::SnapshotBuffer& m_out;
    job::JobControl m_control;
    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::optional<Request> m_pending;
    bool m_busy = false;
    bool m_stop = false;
    std::string m_error;
    std::thread m_thread; ///< declared last: joined (by abort()) before the members it uses go
};

} // namespace setscope::train::run
