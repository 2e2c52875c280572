// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <string>

struct SetscopePluginInfo;

namespace setscope::plugin {

/// What the host reads from a plugin's info block before it calls into the plugin.
struct PluginInfoCheck {
    std::string name;    ///< "?" when the block has none
    std::string version;
    std::string why;     ///< why the block does not match the host's: a sentence for the user; "" = it matches
};

/// Reads a plugin's info block (what its setscope_plugin_info() returned; may be null) and
/// compares it with the host's (sdk::hostInfo()). Reads only the fields the block's
/// structSize says it has; a block shorter than this ABI's layout is refused. Registry::
/// loadPlugin refuses the plugin when `why` is not empty.
PluginInfoCheck checkPluginInfo(const SetscopePluginInfo* info, const SetscopePluginInfo& host);

} // namespace setscope::plugin
