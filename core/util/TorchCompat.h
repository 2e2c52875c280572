// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// Where LibTorch 1.13 (Debian 12's libtorch-dev, what CI builds against) and LibTorch 2.x
// (PyTorch's wheels, what the CUDA machines have) differ for setscope. For Torch sources only
// (setscope_core_torch, Torch tests). What was compared, and found the same in both, is listed
// in docs/BENCHMARKS.md "GPU" (LibTorch 2.x); the differences that are not API -- the archive
// writer's version record, Gloo's headers, CMake -- are handled where they arise
// (core/train/ArchiveCheck.cpp, cmake/SetscopeDependencies.cmake, tools/gpu/).

#include <c10/core/ScalarType.h>
#include <c10/core/TensorOptions.h>
#include <torch/version.h>

namespace setscope::torchcompat {

/// LibTorch's version as one number: 10000 major + 100 minor + patch (11300, 21100).
inline constexpr int kTorchVersion = TORCH_VERSION_MAJOR * 10000 + TORCH_VERSION_MINOR * 100 + TORCH_VERSION_PATCH;

/// Options of a host (CPU) tensor of element type T. The old spelling, at::CPU(ScalarType),
/// returns at::DeprecatedTypeProperties: the legacy type API, deprecated in 1.13 and kept in
/// 2.x for old code only; TensorOptions is the API both versions document.
template <class T>
c10::TensorOptions hostOptions()
{
    return c10::TensorOptions().dtype(c10::CppTypeToScalarType<T>::value).device(c10::kCPU);
}

} // namespace setscope::torchcompat
