// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "tests/fuzz/targets/FuzzTargets.h"

#include "core/data/MatV5Check.h"

#include <setscope/sdk/Errors.h>

#include <cstdio>
#include <cstdlib>
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

void matClaims(const std::uint8_t* data, std::size_t size)
{
    const TempFile f(data, size, ".mat");
    try {
        data::checkMatV5Claims(f.path(), std::uint64_t(64) << 20);
    } catch (const sdk::InputError&) {
        // A refusal with a message: the expected outcome for most inputs.
    }
}

} // namespace setscope::fuzz
