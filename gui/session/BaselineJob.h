// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/eval/Evaluate.h"
#include "core/job/Job.h"

#include <memory>
#include <mutex>
#include <string>

namespace setscope::data {
class Dataset;
}

namespace setscope::gui {

/// Scores the raw vectors of a plain vector dataset (eval::evaluateRaw: kNN accuracy and
/// Recall@K), the baseline a learned metric must beat, on a worker thread. Takes seconds
/// to tens of seconds (Fashion-MNIST: 10 000 test queries against 60 000 references);
/// cancellable between chunks. result() is valid once status() is Finished.
class BaselineJob final : public job::Job {
public:
    BaselineJob(std::shared_ptr<const data::Dataset> dataset, std::string labelSet);
    ~BaselineJob() override;

    const std::string& labelSet() const { return m_labelSet; }
    eval::Evaluation result() const;

protected:
    void run() override;

private:
    std::shared_ptr<const data::Dataset> m_dataset;
    std::string m_labelSet;
    mutable std::mutex m_mutex;
    eval::Evaluation m_result;
};

} // namespace setscope::gui
