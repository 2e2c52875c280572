// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

// LibTorch's process-wide state as a run uses it: the default generators, the calling thread's
// intra-op threads, the device of a rank. Internal to core/train (includes Torch).

#include <torch/torch.h>

#include <mutex>
#include <string>
#include <utility>

namespace setscope::train::run {

/// Seeding the default generator and drawing the initial weights from it must not interleave
/// with another job doing the same (LibTorch's default generator is process-wide).
std::mutex& initMutex();

/// The state of LibTorch's default generator of `device` (the CPU's, or the CUDA device's),
/// which dropout draws from during the steps. A checkpoint stores it so that a run resumed
/// mid-stage draws what the uninterrupted run drew (each stage start reseeds it). Callers hold
/// initMutex() (other jobs seed it). The CUDA generator's state is written and restored the
/// same way (tested where a GPU is visible: train_device_parity.cudaGeneratorContinuesExactly,
/// label cuda).
torch::Tensor generatorState(const torch::Device& device);
void setGeneratorState(const torch::Device& device, const torch::Tensor& state);

/// Runs `build` (which builds a module whose initial weights are overwritten at once: a key
/// encoder, a published copy) under initMutex() with the CPU generator's state put back
/// afterwards, so that it does not move the generator the steps draw from. Returns its result.
template <class Build>
auto withoutDrawing(Build build)
{
    std::lock_guard lock(initMutex());
    auto gen = at::detail::getDefaultCPUGenerator();
    const at::Tensor state = gen.get_state();
    auto built = build();
    gen.set_state(state);
    return built;
}

/// Sets the intra-op threads of the calling thread only. With LibTorch's OpenMP backend the
/// count is the thread's OpenMP ICV, which at::set_num_threads() would also write into a
/// process-wide default that every new thread (the next job, the layout job) starts from.
/// The thread's lazy initialisation runs first, so it cannot later overwrite the count.
/// With a native thread-pool backend the pool is process-wide: the count is left alone.
/// Returns how many threads the steps use, in words.
std::string setThreadsHere(int threads);

/// The device of one rank of a distributed run on a machine with GPUs (docs/DISTRIBUTED.md): a
/// `resolved` device of "cuda" (no index, as "auto" and "cuda" resolve) becomes the local rank's
/// GPU, "cuda:<localRank mod GPUs>" -- one GPU per rank where there are enough, ranks sharing
/// them round robin where not (torchrun's LOCAL_RANK convention). An explicit "cuda:N", "cpu" and
/// a process that is no rank (localRank < 0) keep `resolved`.
std::string deviceForRank(const std::string& resolved, int localRank);

} // namespace setscope::train::run
