// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Fuzz targets of the checkpoint reader (see FuzzTargets.h): setscope's archive check, then
// LibTorch's archive reader, as TrainingJob's openArchive() calls them, then
// train::loadChecked into a small model with a child module, parameters and buffers of two
// types; and the archive check alone (torch_archive, without LibTorch: fast).
#include "tests/fuzz/targets/FuzzTargets.h"

#include "core/train/ArchiveCheck.h"
#include "core/train/CheckedLoad.h"

#include <setscope/sdk/Errors.h>

#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/serialize/input-archive.h>

namespace setscope::fuzz {

void checkpoint(const std::uint8_t* data, std::size_t size)
{
    const TempFile f(data, size, ".pt");
    // CRCs unchecked: a fuzzer cannot fix them up, and a crafted file has them right anyway.
    try {
        train::checkTorchArchiveFile(f.path(), {.verifyCrc = false});
    } catch (const sdk::InputError&) {
        return; // openArchive() lets this through to the caller as it is
    }
    torch::serialize::InputArchive ar;
    try {
        ar.load_from(f.path(), torch::Device(torch::kCPU));
    } catch (const c10::Error&) {
        // TrainingJob's openArchive() turns this into sdk::InputError ("cannot read checkpoint").
        return;
    } catch (const std::exception&) {
        // And this too (torch::jit::ErrorReport for a type name it cannot parse is no
        // c10::Error; it escaped openArchive until the checkpoint target found it).
        return;
    }
    torch::nn::Sequential model(torch::nn::Linear(4, 3), torch::nn::BatchNorm1d(3));
    try {
        train::loadChecked(*model, ar, f.path(), "the weights of the fuzz model");
        // Accepted: the weights have the model's shapes, so a forward pass must run.
        (void)model->forward(torch::zeros({2, 4}));
    } catch (const sdk::InputError&) {
    }
}

} // namespace setscope::fuzz
