// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/DatasetSink.h>
#include <setscope/sdk/Options.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace setscope::sdk {

class SetEncoder;   // <setscope/sdk/Model.h>
class MetricLoss;   // <setscope/sdk/Model.h>
struct EncoderSpec; // <setscope/sdk/Model.h>
struct LossSpec;    // <setscope/sdk/Model.h>

/// A dataset reader. `canLoad` is asked first (cheaply: extension, magic bytes, or a
/// directory layout); `load` then fills the sink or throws InputError.
struct LoaderInfo {
    std::string name;                    ///< e.g. "idx"
    std::string description;             ///< one line for `setscope-cli plugins`
    std::vector<std::string> extensions; ///< lower-case, with the dot (".gz", ".npy")
    std::function<bool(const std::string& path)> canLoad;
    std::function<void(const std::string& path, DatasetSink& sink)> load;
};

using EncoderFactory = std::function<std::shared_ptr<SetEncoder>(const EncoderSpec&)>;
using LossFactory = std::function<std::shared_ptr<MetricLoss>(const LossSpec&)>;

struct EncoderInfo {
    std::string name;
    std::string description;
    EncoderFactory create;
};

struct LossInfo {
    std::string name;
    std::string description;
    OptionSchema options; ///< checked and defaulted by the host before create() sees them
    LossFactory create;
};

/// What a plugin registers its features with. The host implements it; it is only valid
/// during the plugin's register call, which runs on the host's main thread.
class Registrar {
public:
    virtual ~Registrar() = default;
    virtual void addLoader(LoaderInfo info) = 0;
    virtual void addEncoder(EncoderInfo info) = 0;
    virtual void addLoss(LossInfo info) = 0;
};

} // namespace setscope::sdk
