// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <string>

namespace torch::nn {
class Module;
}
namespace torch::serialize {
class InputArchive;
}

namespace setscope::train {

/// Loads `module`'s parameters and buffers from `archive` (as torch::nn::Module::load does,
/// children from nested archives) after checking that the archive holds every one of them
/// with the shape and type the module has. Module::load alone takes whatever the file holds
/// (it swaps the module's tensor for the file's, Tensor::set_), so weights of another shape
/// load without complaint and fail later, inside forward(), with an error that names
/// neither the file nor the layer.
///
/// Throws sdk::InputError(file, "", "<what>: '<layer.name>' is 16 x 50 in the file, 8 x 50
/// in the model") — `what` says whose weights they are ("the weights of model mlp") — and
/// leaves the module unchanged when the check fails.
void loadChecked(torch::nn::Module& module, torch::serialize::InputArchive& archive, const std::string& file,
                 const std::string& what);

} // namespace setscope::train
