// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
//
// Batched log-domain Sinkhorn. With K = -C/ε and the scaled potentials u = f/ε, v = g/ε,
// one iteration is
//     u_i = -LSE_j (K_ij + v_j + log b_j),     v_j = -LSE_i (K_ij + u_i + log a_i),
// and the plan is P_ij = exp(K_ij + u_i + v_j + log a_i + log b_j). After a v update the
// column marginals are exact, and the row marginals of that plan are a_i exp(u_i - u'_i),
// where u' is the next u update: the convergence test costs no extra pass over K.
//
// Pairs are padded to (B, max na, max nb); padding carries log-weight -inf, so it adds
// exact zeros to every log-sum-exp and to the plan. A pair that converges leaves the
// working batch (its potentials are stored), so the remaining iterations only touch the
// pairs still running.

#include "core/ot/Sinkhorn.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

namespace setscope::ot {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

torch::Device resolveDevice(const std::string& name)
{
    if (name == "cpu")
        return torch::kCPU;
    if (name == "auto" || name.empty())
        return torch::cuda::is_available() ? torch::Device(torch::kCUDA) : torch::Device(torch::kCPU);
    std::optional<torch::Device> device;
    try {
        device.emplace(name);
    } catch (const c10::Error&) {
    }
    if (!device || !(device->is_cpu() || device->is_cuda()))
        throw std::invalid_argument("sinkhorn: unknown device '" + name + "' (cpu, cuda, cuda:N, auto)");
    if (device->is_cuda()) {
        if (!torch::cuda::is_available())
            throw std::invalid_argument("sinkhorn: device '" + name +
                                        "' requested but CUDA is not available (this LibTorch build has no CUDA "
                                        "support or no GPU is visible); use device \"cpu\"");
        if (device->has_index() && device->index() >= static_cast<int>(torch::cuda::device_count()))
            throw std::invalid_argument("sinkhorn: device '" + name + "' does not exist (" +
                                        std::to_string(torch::cuda::device_count()) + " CUDA devices)");
    }
    return *device;
}

void validateBatch(const std::vector<PointSet>& as, const std::vector<PointSet>& bs)
{
    if (as.size() != bs.size())
        throw OtError("sinkhorn: the batch has " + std::to_string(as.size()) + " sets A but " +
                      std::to_string(bs.size()) + " sets B");
    for (std::size_t k = 0; k < as.size(); ++k) {
        const std::string pair = "pair " + std::to_string(k) + ": ";
        validate(as[k], pair + "set A");
        validate(bs[k], pair + "set B");
        if (as[k].d != bs[k].d)
            throw OtError(pair + "sets have different dimensions (" + std::to_string(as[k].d) + " and " +
                          std::to_string(bs[k].d) + ")");
    }
}

/// A batch padded to (B, na, nb, d): the largest sizes and dimension in it. Padded
/// coordinates are 0, which changes none of the ground distances (zero components add
/// nothing to dot products or norms), so pairs of different dimensions share a batch.
struct Batch {
    std::int64_t size = 0, na = 0, nb = 0, d = 0;
    std::vector<std::int64_t> nas, nbs;
    torch::Tensor x, y;         // (B, na, d), (B, nb, d) float64
    torch::Tensor logA, logB;   // (B, na), (B, nb): log of the normalised weights, -inf for padding
    torch::Tensor valid;        // (B, na, nb) bool: real (i, j) entries
};

torch::Tensor packPoints(const std::vector<PointSet>& sets, std::int64_t n, std::int64_t d)
{
    const auto count = static_cast<std::int64_t>(sets.size());
    torch::Tensor t = torch::zeros({count, n, d}, torch::kFloat32);
    float* out = t.data_ptr<float>();
    for (std::int64_t k = 0; k < count; ++k) {
        const PointSet& s = sets[static_cast<std::size_t>(k)];
        for (std::int64_t i = 0; i < s.n; ++i)
            std::copy_n(s.points + i * s.d, s.d, out + (k * n + i) * d);
    }
    return t;
}

torch::Tensor packLogWeights(const std::vector<PointSet>& sets, std::int64_t n)
{
    const auto count = static_cast<std::int64_t>(sets.size());
    torch::Tensor t = torch::full({count, n}, -kInf, torch::kFloat64);
    double* out = t.data_ptr<double>();
    for (std::int64_t k = 0; k < count; ++k) {
        const PointSet& s = sets[static_cast<std::size_t>(k)];
        double total = 0.0;
        for (std::int64_t i = 0; i < s.n; ++i)
            total += s.weights[i];
        for (std::int64_t i = 0; i < s.n; ++i)
            out[k * n + i] = std::log(static_cast<double>(s.weights[i]) / total); // log 0 = -inf: no mass
    }
    return t;
}

Batch pack(const std::vector<PointSet>& as, const std::vector<PointSet>& bs, const torch::Device& device)
{
    Batch b;
    b.size = static_cast<std::int64_t>(as.size());
    for (std::size_t k = 0; k < as.size(); ++k) {
        b.nas.push_back(as[k].n);
        b.nbs.push_back(bs[k].n);
        b.na = std::max(b.na, as[k].n);
        b.nb = std::max(b.nb, bs[k].n);
        b.d = std::max<std::int64_t>(b.d, as[k].d);
    }
    const auto f64 = torch::TensorOptions().dtype(torch::kFloat64).device(device);
    b.x = packPoints(as, b.na, b.d).to(f64);
    b.y = packPoints(bs, b.nb, b.d).to(f64);
    b.logA = packLogWeights(as, b.na).to(device);
    b.logB = packLogWeights(bs, b.nb).to(device);
    const auto i64 = torch::TensorOptions().dtype(torch::kInt64);
    const torch::Tensor na = torch::tensor(b.nas, i64).to(device);
    const torch::Tensor nb = torch::tensor(b.nbs, i64).to(device);
    const auto idx = torch::TensorOptions().dtype(torch::kInt64).device(device);
    const torch::Tensor rowOk = torch::arange(b.na, idx).unsqueeze(0) < na.unsqueeze(1); // (B, na)
    const torch::Tensor colOk = torch::arange(b.nb, idx).unsqueeze(0) < nb.unsqueeze(1); // (B, nb)
    b.valid = rowOk.unsqueeze(2).logical_and(colOk.unsqueeze(1));
    return b;
}

/// (B, na, nb) ground distances, 0 on padding; the definitions and the cancellation
/// guard of ot::costMatrix, as tensor operations on the batch's device.
torch::Tensor costMatrices(const Batch& b, GroundDistance ground)
{
    const torch::Tensor dot = torch::bmm(b.x, b.y.transpose(1, 2));
    const torch::Tensor nx = b.x.pow(2).sum(2);
    const torch::Tensor ny = b.y.pow(2).sum(2);
    torch::Tensor c;
    switch (ground) {
    case GroundDistance::Euclidean:
    case GroundDistance::SquaredEuclidean: {
        const torch::Tensor s = nx.unsqueeze(2) + ny.unsqueeze(1);
        c = s - 2.0 * dot;
        // Near-duplicates lose every digit to cancellation in the expansion: recompute
        // those few directly, so that equal elements are at distance exactly 0.
        const torch::Tensor redo = (c < 1e-6 * s).logical_and(b.valid).nonzero();
        if (redo.size(0) > 0) {
            const torch::Tensor k = redo.select(1, 0), i = redo.select(1, 1), j = redo.select(1, 2);
            const torch::Tensor diff = b.x.index({k, i}) - b.y.index({k, j});
            c.index_put_({k, i, j}, diff.pow(2).sum(1));
        }
        c.clamp_min_(0.0);
        if (ground == GroundDistance::Euclidean)
            c.sqrt_();
        break;
    }
    case GroundDistance::Cosine: {
        const torch::Tensor den = nx.sqrt().unsqueeze(2) * ny.sqrt().unsqueeze(1);
        c = torch::where(den > 0, (1.0 - dot / den).clamp(0.0, 2.0), torch::ones_like(dot));
        break;
    }
    }
    return c.masked_fill(b.valid.logical_not(), 0.0);
}

/// (B) cost scale of each pair: the lower median of its na x nb entries, else their mean,
/// else 1.
torch::Tensor costScale(const torch::Tensor& c, const Batch& b)
{
    std::vector<std::int64_t> middle;
    std::vector<double> count;
    for (std::size_t k = 0; k < b.nas.size(); ++k) {
        const std::int64_t n = b.nas[k] * b.nbs[k];
        middle.push_back((n - 1) / 2);
        count.push_back(static_cast<double>(n));
    }
    // Padding sorts last.
    const torch::Tensor sorted = std::get<0>(c.masked_fill(b.valid.logical_not(), kInf).reshape({b.size, -1}).sort(1));
    const torch::Tensor median =
        sorted.gather(1, torch::tensor(middle, torch::kInt64).to(c.device()).unsqueeze(1)).squeeze(1);
    const torch::Tensor mean = c.sum({1, 2}) / torch::tensor(count, torch::kFloat64).to(c.device());
    return torch::where(median > 0, median, torch::where(mean > 0, mean, torch::ones_like(mean)));
}

std::vector<double> toVector(const torch::Tensor& t)
{
    const torch::Tensor cpu = t.to(torch::kCPU, torch::kFloat64).contiguous();
    return {cpu.data_ptr<double>(), cpu.data_ptr<double>() + cpu.numel()};
}

} // namespace

std::vector<std::vector<double>> sinkhornCostMatrices(const std::vector<PointSet>& as,
                                                      const std::vector<PointSet>& bs, GroundDistance ground,
                                                      const std::string& device)
{
    const torch::Device dev = resolveDevice(device);
    validateBatch(as, bs);
    if (as.empty())
        return {};
    torch::InferenceMode inference;
    const Batch batch = pack(as, bs, dev);
    const torch::Tensor c = costMatrices(batch, ground).cpu().contiguous();
    std::vector<std::vector<double>> out(as.size());
    for (std::int64_t k = 0; k < batch.size; ++k) {
        const torch::Tensor ck = c[k].narrow(0, 0, batch.nas[static_cast<std::size_t>(k)])
                                     .narrow(1, 0, batch.nbs[static_cast<std::size_t>(k)]);
        out[static_cast<std::size_t>(k)] = toVector(ck);
    }
    return out;
}

std::vector<SinkhornResult> sinkhorn(const std::vector<PointSet>& as, const std::vector<PointSet>& bs,
                                     const SinkhornOptions& options)
{
    if (!(options.epsilon > 0.0) || !std::isfinite(options.epsilon))
        throw std::invalid_argument("sinkhorn: epsilon must be finite and > 0 (got " +
                                    std::to_string(options.epsilon) + ")");
    if (options.maxIterations < 1)
        throw std::invalid_argument("sinkhorn: maxIterations must be >= 1 (got " +
                                    std::to_string(options.maxIterations) + ")");
    if (!(options.tolerance >= 0.0))
        throw std::invalid_argument("sinkhorn: tolerance must be >= 0");
    const torch::Device dev = resolveDevice(options.device);
    validateBatch(as, bs);
    if (as.empty())
        return {};

    torch::InferenceMode inference;
    const Batch batch = pack(as, bs, dev);
    const std::int64_t B = batch.size;
    const torch::Tensor c = costMatrices(batch, options.ground);
    const torch::Tensor eps = costScale(c, batch) * options.epsilon; // (B)
    const torch::Tensor k = c.neg().div(eps.view({B, 1, 1}));

    // The working set: the pairs still iterating (rows of these tensors), ids[r] their pair.
    struct Working {
        torch::Tensor ids, k, logA, logB, a, u, v;
        void keep(const torch::Tensor& rows)
        {
            for (torch::Tensor* t : {&ids, &k, &logA, &logB, &a, &u, &v})
                *t = t->index_select(0, rows);
        }
    } w;
    w.ids = torch::arange(B, torch::TensorOptions().dtype(torch::kInt64).device(dev));
    w.k = k;
    w.logA = batch.logA;
    w.logB = batch.logB;
    w.a = batch.logA.exp();
    w.u = torch::zeros({B, batch.na}, c.options());
    w.v = torch::zeros({B, batch.nb}, c.options());
    // Final potentials of every pair.
    torch::Tensor u = w.u.clone(), v = w.v.clone();
    std::vector<int> iterations(static_cast<std::size_t>(B), options.maxIterations);
    std::vector<bool> converged(static_cast<std::size_t>(B), false);

    for (int it = 1; it <= options.maxIterations; ++it) {
        torch::Tensor uNext = torch::logsumexp(w.k + (w.v + w.logB).unsqueeze(1), {2}).neg_();
        if (it > 1) {
            // Row-marginal L1 error of the plan (u, v), whose columns are exact. Rows of
            // zero mass may overflow exp(); their term is 0 by definition.
            const torch::Tensor err =
                (w.a * (w.u - uNext).exp().sub_(1.0).abs_()).masked_fill_(w.a == 0, 0.0).sum(1);
            const torch::Tensor done = (err < options.tolerance).cpu();
            if (done.any().item<bool>()) {
                const torch::Tensor ids = w.ids.cpu();
                const bool* doneFlags = done.data_ptr<bool>();
                const std::int64_t* idOf = ids.data_ptr<std::int64_t>();
                std::vector<std::int64_t> keep;
                for (std::int64_t r = 0; r < done.size(0); ++r) {
                    const auto p = static_cast<std::size_t>(idOf[r]);
                    if (doneFlags[r]) {
                        iterations[p] = it - 1;
                        converged[p] = true;
                    } else {
                        keep.push_back(r);
                    }
                }
                u.index_copy_(0, w.ids, w.u);
                v.index_copy_(0, w.ids, w.v);
                if (keep.empty()) {
                    w.ids = torch::Tensor();
                    break;
                }
                const torch::Tensor rows = torch::tensor(keep, torch::kInt64).to(dev);
                w.keep(rows);
                uNext = uNext.index_select(0, rows);
            }
        }
        w.u = uNext;
        w.v = torch::logsumexp(w.k + (w.u + w.logA).unsqueeze(2), {1}).neg_();
    }
    if (w.ids.defined()) {
        u.index_copy_(0, w.ids, w.u);
        v.index_copy_(0, w.ids, w.v);
    }

    const torch::Tensor logPlan = k + (u + batch.logA).unsqueeze(2) + (v + batch.logB).unsqueeze(1);
    const torch::Tensor plan = logPlan.exp();
    const torch::Tensor cost = (plan * c).sum({1, 2});
    const torch::Tensor rowError = (plan.sum(2) - batch.logA.exp()).abs().sum(1);
    const torch::Tensor colError = (plan.sum(1) - batch.logB.exp()).abs().sum(1);
    const std::vector<double> costs = toVector(cost);
    const std::vector<double> errors = toVector(rowError + colError);
    const std::vector<double> epsilons = toVector(eps);
    const torch::Tensor plans = options.plans ? plan.cpu().contiguous() : torch::Tensor();

    std::vector<SinkhornResult> results(static_cast<std::size_t>(B));
    for (std::int64_t p = 0; p < B; ++p) {
        const auto q = static_cast<std::size_t>(p);
        SinkhornResult& r = results[q];
        r.cost = costs[q];
        r.iterations = iterations[q];
        r.marginalError = errors[q];
        r.converged = converged[q] || r.marginalError < options.tolerance;
        r.epsilon = epsilons[q];
        if (options.plans)
            r.plan = toVector(plans[p].narrow(0, 0, batch.nas[q]).narrow(1, 0, batch.nbs[q]));
    }
    return results;
}

} // namespace setscope::ot
