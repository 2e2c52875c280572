// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "tests/fuzz/targets/FuzzTargets.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <unistd.h>

namespace setscope::fuzz {

TempFile::TempFile(const std::uint8_t* data, std::size_t size, const char* suffix)
{
    const char* dir = std::getenv("TMPDIR");
    m_path = std::string(dir && *dir ? dir : "/tmp") + "/setscope-fuzz-" + std::to_string(::getpid()) + suffix;
    std::ofstream out(m_path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out)
        throw std::runtime_error("cannot write " + m_path);
}

TempFile::~TempFile() { std::remove(m_path.c_str()); }

TempDir::TempDir(const char* name)
{
    const char* dir = std::getenv("TMPDIR");
    m_path = std::string(dir && *dir ? dir : "/tmp") + "/setscope-fuzz-" + std::to_string(::getpid()) + "-" + name;
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec); // what a crashed run left
    if (!std::filesystem::create_directories(m_path, ec) && ec)
        throw std::runtime_error("cannot create " + m_path + ": " + ec.message());
}

TempDir::~TempDir()
{
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
}

std::string TempDir::write(const std::string& name, std::string_view bytes) const
{
    const std::string p = m_path + "/" + name;
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out)
        throw std::runtime_error("cannot write " + p);
    return p;
}

std::vector<std::string_view> splitInput(const std::uint8_t* data, std::size_t size, std::size_t parts)
{
    std::string_view rest(reinterpret_cast<const char*>(data), size);
    std::vector<std::string_view> out;
    while (out.size() + 1 < parts) {
        const auto at = rest.find(kSeparator);
        if (at == std::string_view::npos)
            break;
        out.push_back(rest.substr(0, at));
        rest.remove_prefix(at + kSeparator.size());
    }
    out.push_back(rest);
    out.resize(parts);
    return out;
}

} // namespace setscope::fuzz
