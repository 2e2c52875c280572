// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/plugin/PluginInfo.h"

#include <setscope/sdk/Plugin.h>

#include <cstddef>
#include <cstring>

namespace setscope::plugin {

namespace {

std::string orNull(const char* s) { return s ? std::string(s) : std::string("(null)"); }

/// True when the block holds the field at `offset` (structSize says which fields exist).
bool has(const SetscopePluginInfo* info, std::size_t offset, std::size_t size)
{
    return info && info->structSize >= offset + size;
}

std::string mismatch(const SetscopePluginInfo* info, const SetscopePluginInfo& host)
{
    if (!has(info, offsetof(SetscopePluginInfo, abiVersion), sizeof info->abiVersion))
        return "it returned no plugin information";
    if (info->abiVersion != host.abiVersion)
        return "it was built for plugin ABI " + std::to_string(info->abiVersion) + ", this setscope has ABI " +
               std::to_string(host.abiVersion) + "; rebuild the plugin against this setscope's SDK";
    // The fields below are read only when the block says it has them: a block shorter than
    // its ABI's layout is refused, never read past its end.
    if (info->structSize < sizeof(SetscopePluginInfo))
        return "its plugin information has " + std::to_string(info->structSize) + " bytes, plugin ABI " +
               std::to_string(host.abiVersion) + " has " + std::to_string(sizeof(SetscopePluginInfo)) +
               "; it was not built with the SETSCOPE_PLUGIN macro of this setscope's SDK";
    if (std::strcmp(orNull(info->torchVersion).c_str(), host.torchVersion) != 0)
        return "it was built with LibTorch " + orNull(info->torchVersion) + ", this setscope uses LibTorch " +
               host.torchVersion + "; rebuild the plugin with the same LibTorch (CMAKE_PREFIX_PATH)";
    if (std::strcmp(orNull(info->cxxAbi).c_str(), host.cxxAbi) != 0)
        return "it was built with C++ library ABI " + orNull(info->cxxAbi) + ", this setscope uses " + host.cxxAbi;
    if (std::strcmp(orNull(info->buildType).c_str(), host.buildType) != 0)
        return "it is a " + orNull(info->buildType) + " build and this setscope is a " + host.buildType +
               " build; build both the same way (CMAKE_BUILD_TYPE)";
    return {};
}

} // namespace

PluginInfoCheck checkPluginInfo(const SetscopePluginInfo* info, const SetscopePluginInfo& host)
{
    PluginInfoCheck c;
    c.why = mismatch(info, host);
    c.name = has(info, offsetof(SetscopePluginInfo, name), sizeof info->name) ? orNull(info->name) : std::string("?");
    c.version = has(info, offsetof(SetscopePluginInfo, version), sizeof info->version) ? orNull(info->version)
                                                                                          : std::string();
    return c;
}

} // namespace setscope::plugin
