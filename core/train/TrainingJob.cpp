// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/train/TrainingJob.h"

#include "core/data/Dataset.h"
#include "core/dist/Communicator.h"
#include "core/train/RunPlan.h"
#include "core/train/run/TrainingRun.h"

#include <chrono>
#include <thread>

namespace setscope::train {

TrainingJob::TrainingJob(std::shared_ptr<const data::Dataset> dataset, TrainerConfig config,
                         const plugin::Registry& registry, std::shared_ptr<const data::Dataset> external)
    : m_dataset(std::move(dataset))
    , m_external(std::move(external))
    , m_config(applyPreset(std::move(config), registry)) // the recorded config names the encoder it builds
    , m_registry(registry)
{
    m_config.validate();
}

TrainingJob::~TrainingJob() { stopAndWait(); }

void TrainingJob::run()
{
    // Whoever started the job (Job::start, Job::runHere, through a Job* or not) gets the
    // training events when its sink can take them.
    m_trainingSink = dynamic_cast<TrainingSink*>(sink());
    try {
        run::TrainingRun(*m_dataset, m_external.get(), m_config, m_registry, m_comm.get(), *this).run();
    } catch (const dist::PeerLost&) {
        // An interrupted multi-process run: every rank is told to cancel at about the same moment
        // (the launcher passes the signal on, or each rank finds its launcher gone), the first to
        // notice leaves, and its partners' next collective fails, possibly before their own
        // cancel request has arrived (the CLI polls its signals every 50 ms). Such a failure is
        // the cancel it was about to be, and is recorded as one: up to a second is given for the
        // request to arrive (issue 29 §5). A rank that really failed leaves this a failure.
        for (int k = 0; k < 100 && !control().cancelRequested(); ++k)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        if (control().cancelRequested())
            throw job::Cancelled();
        throw;
    }
}

void TrainingJob::setCounters(std::int64_t done, std::int64_t total, int epoch, double loss)
{
    job::ProgressCounters& c = mutableCounters();
    c.lastLoss = loss;
    c.epoch = epoch;
    c.done = done;
    c.total = total;
}

} // namespace setscope::train
