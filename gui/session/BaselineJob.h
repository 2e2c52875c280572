// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/eval/Metrics.h"
#include "core/job/Job.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace setscope::data {
class Dataset;
}

namespace setscope::gui {

/// Scores the raw vectors of a plain vector dataset (eval::evaluateRawMetrics: kNN accuracy,
/// both Recall@K, precision@K), the baseline a learned metric must beat, on a worker thread. Takes seconds
/// to tens of seconds (Fashion-MNIST: 10 000 test queries against 60 000 references);
/// cancellable between chunks. result() is valid once status() is Finished.
class BaselineJob final : public job::Job {
public:
    BaselineJob(std::shared_ptr<const data::Dataset> dataset, std::string labelSet);
    ~BaselineJob() override;

    const std::string& labelSet() const { return m_labelSet; }
    /// The standard scores of the raw vectors (eval::standardMetrics()), once finished.
    std::vector<eval::MetricValue> result() const;

protected:
    void run() override;

private:
    std::shared_ptr<const data::Dataset> m_dataset;
    std::string m_labelSet;
    mutable std::mutex m_mutex;
    std::vector<eval::MetricValue> m_result;
};

} // namespace setscope::gui
