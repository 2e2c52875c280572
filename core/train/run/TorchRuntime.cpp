// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/train/run/TorchRuntime.h"

#include "core/train/TrainingJob.h"

#if AT_PARALLEL_OPENMP
#include <omp.h>
#endif

#include <stdexcept>

namespace setscope::train {

namespace run {

std::mutex& initMutex()
{
    static std::mutex m;
    return m;
}

torch::Tensor generatorState(const torch::Device& device)
{
    at::Generator g = device.is_cuda() ? at::globalContext().defaultGenerator(device) : at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(g.mutex());
    return g.get_state();
}

void setGeneratorState(const torch::Device& device, const torch::Tensor& state)
{
    at::Generator g = device.is_cuda() ? at::globalContext().defaultGenerator(device) : at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(g.mutex());
    g.set_state(state.cpu());
}

std::string setThreadsHere(int threads)
{
#if AT_PARALLEL_OPENMP
    at::internal::lazy_init_num_threads();
    if (threads > 0)
        omp_set_num_threads(threads);
    return std::to_string(at::get_num_threads()) + " intra-op threads";
#else
    return threads > 0 ? "the process's intra-op threads (this LibTorch's thread pool is process-wide, "
                         "--threads is ignored)"
                       : "the process's intra-op threads";
#endif
}

std::string deviceForRank(const std::string& resolved, int localRank)
{
    if (localRank < 0 || resolved != "cuda")
        return resolved;
    const auto gpus = static_cast<int>(torch::cuda::device_count());
    return "cuda:" + std::to_string(gpus > 0 ? localRank % gpus : 0);
}

} // namespace run

int intraOpThreadsHere() { return at::get_num_threads(); }

bool cudaAvailable() { return torch::cuda::is_available(); }

std::string resolveDevice(const std::string& requested)
{
    if (requested == "cpu")
        return "cpu";
    if (requested == "auto" || requested.empty())
        return torch::cuda::is_available() ? "cuda" : "cpu";
    if (requested.rfind("cuda", 0) == 0) {
        if (!torch::cuda::is_available())
            throw std::invalid_argument("device '" + requested +
                                        "' requested but CUDA is not available (this LibTorch build has no CUDA "
                                        "support or no GPU is visible); use --device cpu");
        const torch::Device d(requested); // validates "cuda:N" syntax
        if (d.has_index() && d.index() >= static_cast<int>(torch::cuda::device_count()))
            throw std::invalid_argument("device '" + requested + "' does not exist (" +
                                        std::to_string(torch::cuda::device_count()) + " CUDA devices)");
        return requested;
    }
    throw std::invalid_argument("unknown device '" + requested + "' (auto, cpu, cuda, cuda:N)");
}

} // namespace setscope::train
