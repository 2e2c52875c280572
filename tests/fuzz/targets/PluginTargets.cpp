// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Fuzz target of the plugin info block check (see FuzzTargets.h). Plugins are never dlopen'ed
// here: the block a plugin's setscope_plugin_info() returns is laid out from the bytes.
#include "tests/fuzz/targets/FuzzTargets.h"

#include "core/plugin/PluginInfo.h"

#include <setscope/sdk/Plugin.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/asan_interface.h>
#endif
#endif

namespace setscope::fuzz {

void pluginInfo(const std::uint8_t* data, std::size_t size)
{
    // Bytes: u32 structSize, u32 abiVersion, then NUL-separated strings: name, version,
    // torchVersion, buildType, cxxAbi (a missing one is a null pointer).
    std::uint32_t head[2] = {0, 0};
    std::memcpy(head, data, std::min<std::size_t>(size, sizeof head));
    std::vector<std::string> strings;
    const char* const text = reinterpret_cast<const char*>(data) + std::min<std::size_t>(size, sizeof head);
    const std::size_t textSize = size - std::min<std::size_t>(size, sizeof head);
    for (std::size_t p = 0; p < textSize && strings.size() < 5;) {
        const std::size_t n = strnlen(text + p, textSize - p);
        strings.emplace_back(text + p, n);
        p += n + 1;
    }
    // Fields the bytes do not give hold the host's values: the block that a lenient check
    // would accept.
    const SetscopePluginInfo host = sdk::hostInfo();
    SetscopePluginInfo block = host;
    block.structSize = head[0];
    block.abiVersion = head[1];
    const char** fields[] = {&block.name, &block.version, &block.torchVersion, &block.buildType, &block.cxxAbi};
    for (std::size_t i = 0; i < strings.size(); ++i)
        *fields[i] = strings[i].c_str();
    // The plugin declares only its first structSize bytes: what lies beyond is not its block.
    // Under AddressSanitizer those bytes are poisoned, so reading them is a report; in any
    // build, accepting a block shorter than this ABI's layout is a finding.
    const std::size_t declared = std::min<std::size_t>(block.structSize, sizeof block);
    // ASan poisons whole 8-byte granules; the first one (structSize, abiVersion) stays
    // readable, as the host must read structSize to know anything.
    const std::size_t poisonFrom = std::max<std::size_t>(8, (declared + 7) / 8 * 8);
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SETSCOPE_FUZZ_POISON 1
#endif
#endif
#ifdef SETSCOPE_FUZZ_POISON
    if (poisonFrom < sizeof block)
        ASAN_POISON_MEMORY_REGION(reinterpret_cast<char*>(&block) + poisonFrom, sizeof block - poisonFrom);
#endif
    const plugin::PluginInfoCheck c = plugin::checkPluginInfo(&block, host);
#ifdef SETSCOPE_FUZZ_POISON
    ASAN_UNPOISON_MEMORY_REGION(&block, sizeof block);
#endif
    (void)poisonFrom;
    if (block.structSize < sizeof block && c.why.empty())
        throw std::logic_error("accepted a plugin info block of " + std::to_string(block.structSize) + " bytes");
    (void)plugin::checkPluginInfo(nullptr, sdk::hostInfo());
}

} // namespace setscope::fuzz
