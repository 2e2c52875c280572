// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/train/run/GradientSync.h"

#include "core/data/Dataset.h"
#include "core/dist/Communicator.h"
#include "core/train/run/RunContext.h"
#include "core/train/run/Stages.h"
#include "core/util/Hash.h"

#include <nlohmann/json.hpp>

#include <span>
#include <stdexcept>

namespace setscope::train::run {

namespace {

/// Float tensors (parameters, float buffers) of rank 0 to every rank, in place. Other buffers
/// (a batch norm's step counter) stay each rank's.
void broadcastTensors(dist::Communicator& comm, const std::vector<torch::Tensor>& tensors)
{
    std::vector<torch::Tensor> flat;
    for (const torch::Tensor& t : tensors)
        if (t.defined() && t.scalar_type() == torch::kFloat32)
            flat.push_back(t.detach().to(torch::kCPU).reshape({-1}));
    if (flat.empty())
        return;
    torch::Tensor all = torch::cat(flat).contiguous();
    comm.broadcast(std::span<float>(all.data_ptr<float>(), static_cast<std::size_t>(all.numel())), 0);
    torch::NoGradGuard noGrad;
    std::int64_t at = 0;
    for (const torch::Tensor& t : tensors)
        if (t.defined() && t.scalar_type() == torch::kFloat32) {
            const std::int64_t n = t.numel();
            t.detach().copy_(all.slice(0, at, at + n).view(t.sizes()));
            at += n;
        }
}

/// Sums the gradients of `params` over the ranks together with `lossSum`, which it returns
/// summed. A parameter no rank gave a gradient keeps none (the optimizer skips it, as in a
/// single process); one that some rank did gets the sum, zeros standing in for the others.
double allreduceGradients(dist::Communicator& comm, const std::vector<torch::Tensor>& params, double lossSum)
{
    std::int64_t n = 0;
    for (const torch::Tensor& p : params)
        n += p.numel();
    const auto np = static_cast<std::int64_t>(params.size());
    // Gradients, then one "has a gradient" flag per parameter.
    torch::Tensor buf = torch::zeros({n + np}, torch::kFloat32);
    float* b = buf.data_ptr<float>();
    std::int64_t at = 0;
    for (std::int64_t k = 0; k < np; ++k) {
        const torch::Tensor& p = params[static_cast<std::size_t>(k)];
        if (p.grad().defined()) {
            buf.slice(0, at, at + p.numel()).copy_(p.grad().detach().reshape({-1}).to(torch::kCPU, torch::kFloat32));
            b[n + k] = 1.0f;
        }
        at += p.numel();
    }
    comm.allreduceSum(std::span<float>(b, static_cast<std::size_t>(n + np)));
    double losses[1] = {lossSum};
    comm.allreduceSum(std::span<double>(losses));
    torch::NoGradGuard noGrad;
    at = 0;
    for (std::int64_t k = 0; k < np; ++k) {
        const torch::Tensor& p = params[static_cast<std::size_t>(k)];
        if (b[n + k] > 0.0f) {
            const torch::Tensor g = buf.slice(0, at, at + p.numel()).view(p.sizes()).to(p.device(), p.scalar_type());
            if (p.grad().defined())
                p.mutable_grad().copy_(g);
            else
                p.mutable_grad() = g.clone();
        }
        at += p.numel();
    }
    return losses[0];
}

} // namespace

GradientSync::GradientSync(const RunContext& ctx)
    : m_ctx(ctx)
{
}

bool GradientSync::distributed() const { return m_ctx.comm != nullptr; }

void GradientSync::checkSameRun(std::int64_t total, std::int64_t startStep) const
{
    if (!m_ctx.comm)
        return;
    dist::Communicator& comm = *m_ctx.comm;
    const TrainerConfig& cfg = m_ctx.jobConfig;
    const data::Dataset& ds = m_ctx.ds;
    nlohmann::json mine = cfg.toJson();
    for (const char* k : {"checkpoint_dir", "checkpoint_every", "snapshot_every", "snapshot_items", "evaluate_each_epoch",
                          "evaluate_every", "device", "resume_from", "resume_overrides", "init_from"})
        mine.erase(k);
    mine["dataset_hash"] = ds.contentHash();
    // The labels the run reads (a project's edited labels are not in every dataset's hash).
    if (const data::LabelSet* ls = ds.labelSet(cfg.labelSet))
        mine["labels_hash"] = util::hashBytes(ls->labels.data(), ls->labels.size() * sizeof(std::int32_t));
    mine["dataset_items"] = ds.size();
    mine["total_steps"] = total;
    mine["start_step"] = startStep;
    std::string first = mine.dump();
    comm.broadcast(first, 0);
    const nlohmann::json lead = nlohmann::json::parse(first);
    if (lead == mine)
        return;
    std::string diff;
    for (const auto& [k, v] : mine.items())
        if (!lead.contains(k) || lead.at(k) != v)
            diff += (diff.empty() ? "" : ", ") + k + " " + (lead.contains(k) ? lead.at(k).dump() : "-") + " \u2192 " + v.dump();
    throw std::invalid_argument("rank " + std::to_string(comm.rank()) + " runs another training than rank 0 (" + diff +
                                "): every rank must run the same command on the same data");
}

void GradientSync::startStage(const ActiveStage& stage, sdk::SetEncoder& encoder) const
{
    if (!m_ctx.comm)
        return;
    std::vector<torch::Tensor> state = stage.gradParams;
    for (const torch::Tensor& b : encoder.buffers())
        state.push_back(b);
    if (stage.keyEnc)
        for (const torch::Tensor& p : stage.keyEnc->encoder().parameters())
            state.push_back(p);
    broadcastTensors(*m_ctx.comm, state);
    std::int64_t values = 0;
    for (const torch::Tensor& p : stage.gradParams)
        values += p.numel();
    const int shards = m_ctx.cfg.batchShards;
    m_ctx.message(m_ctx.comm->describe() + ": " + std::to_string(shards / m_ctx.world) + " of the " +
                  std::to_string(shards) + " parts of each batch; " + std::to_string(values) +
                  " gradient values summed per step");
}

std::pair<int, int> GradientSync::parts() const
{
    const int shards = m_ctx.cfg.batchShards;
    return {m_ctx.rank * shards / m_ctx.world, (m_ctx.rank + 1) * shards / m_ctx.world};
}

double GradientSync::sumGradients(const ActiveStage& stage, double lossSum) const
{
    return m_ctx.comm ? allreduceGradients(*m_ctx.comm, stage.gradParams, lossSum) : lossSum;
}

} // namespace setscope::train::run
