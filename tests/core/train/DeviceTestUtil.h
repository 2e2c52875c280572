// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// What the device tests share (tst_DeviceParity, tst_DeviceTransfers): small training runs
// through TrainingJob's public API, the weights of the checkpoints they write, and their
// differences.

#include "core/data/Dataset.h"
#include "core/data/Synthetic.h"
#include "core/plugin/Registry.h"
#include "core/train/TrainingJob.h"

#include <torch/serialize/input-archive.h>
#include <torch/types.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace setscope::testing {

/// Sets of `set` points of dimension `dim` (set = 1: plain vectors), 2 coarse x 2 fine classes.
inline std::shared_ptr<const data::Dataset> deviceTestDataset(int dim, int set, int points = 24)
{
    data::SyntheticSpec s;
    s.dim = dim;
    s.coarseClasses = 2;
    s.finePerCoarse = 2;
    s.pointsPerFine = points;
    s.setSize = set;
    s.seed = 5;
    return std::make_shared<const data::Dataset>(data::makeHierarchicalGaussians(s));
}

/// A run's losses per step and its checkpoints, as the job reported them.
struct RunRecord : train::TrainingSink {
    std::mutex m;
    std::map<std::int64_t, double> losses;
    std::map<std::int64_t, std::string> checkpoints;
    job::JobStatus status = job::JobStatus::Idle;
    std::string detail;
    void stepLoss(std::int64_t step, double loss) override
    {
        std::lock_guard l(m);
        losses[step] = loss;
    }
    void checkpointWritten(std::int64_t step, const std::string& path) override
    {
        std::lock_guard l(m);
        checkpoints[step] = path;
    }
    void finished(job::JobStatus s, const std::string& d) override
    {
        std::lock_guard l(m);
        status = s;
        detail = d;
    }
};

/// Every tensor of the encoder's weights in a checkpoint, by name, as float64 on the CPU.
inline std::map<std::string, torch::Tensor> checkpointWeights(const std::string& path)
{
    std::map<std::string, torch::Tensor> out;
    torch::serialize::InputArchive root, model;
    root.load_from(path, torch::kCPU);
    root.read("model", model);
    std::function<void(torch::serialize::InputArchive&, const std::string&)> walk =
        [&](torch::serialize::InputArchive& ar, const std::string& prefix) {
            for (const std::string& key : ar.keys()) {
                torch::Tensor t;
                torch::serialize::InputArchive sub;
                if (ar.try_read(key, t, false) || ar.try_read(key, t, true))
                    out[prefix + key] = t.to(torch::kCPU, torch::kFloat64);
                else if (ar.try_read(key, sub))
                    walk(sub, prefix + key + "/");
            }
        };
    walk(model, "");
    return out;
}

/// max over tensors of max |a - b| (infinity when the two do not hold the same tensors).
inline double maxAbsDifference(const std::map<std::string, torch::Tensor>& a, const std::map<std::string, torch::Tensor>& b)
{
    if (a.empty() || a.size() != b.size())
        return std::numeric_limits<double>::infinity();
    double d = 0;
    for (const auto& [name, t] : a) {
        const auto it = b.find(name);
        if (it == b.end() || !t.sizes().equals(it->second.sizes()))
            return std::numeric_limits<double>::infinity();
        if (t.numel() > 0)
            d = std::max(d, (t - it->second).abs().max().item<double>());
    }
    return d;
}

/// a - b, tensor by tensor (same names required).
inline std::map<std::string, torch::Tensor> difference(const std::map<std::string, torch::Tensor>& a,
                                                      const std::map<std::string, torch::Tensor>& b)
{
    std::map<std::string, torch::Tensor> out;
    for (const auto& [name, t] : a)
        if (const auto it = b.find(name); it != b.end() && t.sizes().equals(it->second.sizes()))
            out[name] = t - it->second;
    return out;
}

inline double maxAbs(const std::map<std::string, torch::Tensor>& a)
{
    double m = 0;
    for (const auto& [name, t] : a)
        if (t.numel() > 0)
            m = std::max(m, t.abs().max().item<double>());
    return m;
}

} // namespace setscope::testing

#include <ATen/record_function.h>

#include <atomic>
#include <cstring>

namespace setscope::testing {

/// Counts, through LibTorch's RecordFunction observer (process-wide, every thread), the
/// operator calls through which data can move between host and device or the host waits for
/// the device: aten::to (every .to(), of a dtype too) and among them those given a device (the
/// places a GPU run moves data; on a CPU run the same calls, no-ops there), aten::_to_copy (a
/// .to() that copies: another dtype, or another device), aten::copy_ between two devices (the
/// copies themselves), and aten::_local_scalar_dense (item(): a device-to-host read that waits
/// for the device).
class TransferCounter {
public:
    struct Counts {
        long to = 0;
        long toDevice = 0;
        long toCopy = 0;
        long copyAcross = 0;
        long scalar = 0;
        Counts operator-(const Counts& o) const
        {
            return {to - o.to, toDevice - o.toDevice, toCopy - o.toCopy, copyAcross - o.copyAcross, scalar - o.scalar};
        }
        bool operator==(const Counts&) const = default;
    };

    TransferCounter()
    {
        s_active = this;
        m_handle = at::addGlobalCallback(at::RecordFunctionCallback(&onStart).needsInputs(true));
    }
    ~TransferCounter()
    {
        at::removeCallback(m_handle);
        s_active = nullptr;
    }
    TransferCounter(const TransferCounter&) = delete;
    TransferCounter& operator=(const TransferCounter&) = delete;

    Counts counts() const { return {m_to.load(), m_toDevice.load(), m_toCopy.load(), m_copyAcross.load(), m_scalar.load()}; }

private:
    static std::unique_ptr<at::ObserverContext> onStart(const at::RecordFunction& fn)
    {
        TransferCounter* c = s_active;
        if (!c)
            return nullptr;
        const char* n = fn.name();
        if (std::strcmp(n, "aten::to") == 0) {
            ++c->m_to;
            for (const c10::IValue& v : fn.inputs())
                if (v.isDevice()) {
                    ++c->m_toDevice;
                    break;
                }
        } else if (std::strcmp(n, "aten::_to_copy") == 0) {
            ++c->m_toCopy;
        } else if (std::strcmp(n, "aten::_local_scalar_dense") == 0) {
            ++c->m_scalar;
        } else if (std::strcmp(n, "aten::copy_") == 0) {
            const auto in = fn.inputs();
            if (in.size() >= 2 && in[0].isTensor() && in[1].isTensor() &&
                in[0].toTensor().device() != in[1].toTensor().device())
                ++c->m_copyAcross;
        }
        return nullptr;
    }

    static inline std::atomic<TransferCounter*> s_active{nullptr};
    at::CallbackHandle m_handle = 0;
    std::atomic<long> m_to{0}, m_toDevice{0}, m_toCopy{0}, m_copyAcross{0}, m_scalar{0};
};

} // namespace setscope::testing

namespace setscope::testing {

/// The operator calls (TransferCounter) of steps 3 and 4 of a run of `recipe` with `model` on
/// `device`, batches of `batch` sets: a run of 4 steps minus a run of 2 (what both runs do once,
/// set-up and the final evaluation, cancels). No epoch ends within the 4 steps.
struct StepTransfers {
    TransferCounter::Counts twoSteps;
    std::string error;
};
inline StepTransfers transfersOfTwoSteps(const plugin::Registry& registry, const std::shared_ptr<const data::Dataset>& ds,
                                         const std::string& recipe, const std::string& model, const std::string& device,
                                         int batch)
{
    auto countRun = [&](std::int64_t steps, TransferCounter::Counts& out) -> std::string {
        train::TrainerConfig c;
        c.recipe = recipe;
        c.model = model;
        c.embeddingDim = 8;
        c.epochs = 1000;
        c.maxSteps = steps;
        c.seed = 3;
        c.device = device;
        c.threads = 1;
        c.samplerOptions = {{"batch-size", std::to_string(batch)}};
        c.validationFraction = 0;
        c.snapshotEvery = 0;
        c.evaluateEachEpoch = false;
        c.emdCache = "off";
        if (model == "selfattn")
            c.modelOptions = {{"layers", "2"}, {"heads", "2"}, {"ff", "32"}, {"rho", "32"}};
        RunRecord rec;
        train::TrainingJob job(ds, c, registry);
        TransferCounter counter;
        job.runHere(&rec);
        out = counter.counts();
        return rec.status == job::JobStatus::Finished ? std::string() : rec.detail;
    };
    StepTransfers t;
    TransferCounter::Counts two, four;
    t.error = countRun(2, two);
    if (t.error.empty())
        t.error = countRun(4, four);
    t.twoSteps = four - two;
    return t;
}

} // namespace setscope::testing
