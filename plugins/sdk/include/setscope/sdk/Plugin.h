// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

// The plugin entry point. A plugin is a shared library with one translation unit that says
//
//     #include <setscope/sdk/Plugin.h>
//     static void registerAll(setscope::sdk::Registrar& r) { r.addLoader(...); }
//     SETSCOPE_PLUGIN("my-plugin", "1.0", registerAll)
//
// The macro emits two C entry points. The host first calls setscope_plugin_info(), whose
// struct layout never changes, and refuses the plugin (without calling anything else in
// it) when its SDK ABI, LibTorch version, C++ library ABI or build type differ from the
// host's. Only then does it call setscope_plugin_register().
//
// Torch-free: the LibTorch version comes from <setscope/sdk/TorchVersion.h>, generated when
// setscope is built; a plugin that registers models includes <setscope/sdk/Model.h>, which
// refuses to compile against other LibTorch headers than that version.

#include <setscope/sdk/Registrar.h>
#include <setscope/sdk/TorchVersion.h>

#include <cstdint>

/// Bump when anything in <setscope/sdk/...> changes in a way that breaks binaries.
#define SETSCOPE_SDK_ABI_VERSION 7

#ifndef SETSCOPE_PLUGIN_ABI_VERSION
#define SETSCOPE_PLUGIN_ABI_VERSION SETSCOPE_SDK_ABI_VERSION
#endif
#ifndef SETSCOPE_PLUGIN_TORCH_VERSION
#define SETSCOPE_PLUGIN_TORCH_VERSION SETSCOPE_SDK_TORCH_VERSION
#endif

#ifdef NDEBUG
#define SETSCOPE_SDK_BUILD_TYPE "release"
#else
#define SETSCOPE_SDK_BUILD_TYPE "debug"
#endif

#if defined(_GLIBCXX_USE_CXX11_ABI) && _GLIBCXX_USE_CXX11_ABI == 0
#define SETSCOPE_SDK_CXX_ABI "libstdc++-old"
#elif defined(_GLIBCXX_DEBUG)
#define SETSCOPE_SDK_CXX_ABI "libstdc++-cxx11-debug"
#else
#define SETSCOPE_SDK_CXX_ABI "libstdc++-cxx11"
#endif

#if defined(_WIN32)
#define SETSCOPE_PLUGIN_EXPORT __declspec(dllexport)
#else
#define SETSCOPE_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

extern "C" {
/// Frozen layout: fields may only be appended, `structSize` tells how many exist.
struct SetscopePluginInfo {
    std::uint32_t structSize;
    std::uint32_t abiVersion;
    const char* name;
    const char* version;
    const char* torchVersion;
    const char* buildType;
    const char* cxxAbi;
};
}

namespace setscope::sdk {
using PluginInfoFn = const SetscopePluginInfo* (*)();
using PluginRegisterFn = void (*)(Registrar*);
inline constexpr const char* kPluginInfoSymbol = "setscope_plugin_info";
inline constexpr const char* kPluginRegisterSymbol = "setscope_plugin_register";

/// The host's own values, to compare with a plugin's.
inline SetscopePluginInfo hostInfo()
{
    return {sizeof(SetscopePluginInfo), SETSCOPE_SDK_ABI_VERSION, "host", "", SETSCOPE_SDK_TORCH_VERSION,
            SETSCOPE_SDK_BUILD_TYPE, SETSCOPE_SDK_CXX_ABI};
}
} // namespace setscope::sdk

#define SETSCOPE_PLUGIN(NAME, VERSION, REGISTER_FN)                                          \
    extern "C" SETSCOPE_PLUGIN_EXPORT const SetscopePluginInfo* setscope_plugin_info()     \
    {                                                                                        \
        static const SetscopePluginInfo info{sizeof(SetscopePluginInfo),                       \
                                               SETSCOPE_PLUGIN_ABI_VERSION, NAME, VERSION,   \
                                               SETSCOPE_PLUGIN_TORCH_VERSION,                \
                                               SETSCOPE_SDK_BUILD_TYPE, SETSCOPE_SDK_CXX_ABI};\
        return &info;                                                                        \
    }                                                                                        \
    extern "C" SETSCOPE_PLUGIN_EXPORT void setscope_plugin_register(setscope::sdk::Registrar* r) \
    {                                                                                        \
        REGISTER_FN(*r);                                                                     \
    }
