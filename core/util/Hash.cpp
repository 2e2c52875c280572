// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/util/Hash.h"

#include <setscope/sdk/Errors.h>

#include <xxhash.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace setscope::util {

struct ContentHasher::State {
    XXH3_state_t* s = nullptr;
};

ContentHasher::ContentHasher()
    : m_state(std::make_unique<State>())
{
    m_state->s = XXH3_createState();
    XXH3_128bits_reset(m_state->s);
}

ContentHasher::~ContentHasher() { XXH3_freeState(m_state->s); }

void ContentHasher::update(const void* data, std::size_t bytes) { XXH3_128bits_update(m_state->s, data, bytes); }

void ContentHasher::update(const std::string& s)
{
    const std::uint64_t n = s.size();
    update(&n, sizeof n); // length prefix: "ab"+"c" differs from "a"+"bc"
    update(s.data(), s.size());
}

void ContentHasher::updateFile(const std::string& path)
{
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f)
        throw sdk::InputError(path, "", std::string("cannot open: ") + std::strerror(errno));
    std::vector<char> buf(1 << 20);
    std::size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), f)) > 0)
        update(buf.data(), n);
    const bool bad = std::ferror(f);
    std::fclose(f);
    if (bad)
        throw sdk::InputError(path, "", "read error while hashing");
}

std::string ContentHasher::hex() const
{
    const XXH128_hash_t h = XXH3_128bits_digest(m_state->s);
    char out[33];
    std::snprintf(out, sizeof out, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                  static_cast<unsigned long long>(h.low64));
    return out;
}

std::string hashFile(const std::string& path)
{
    ContentHasher h;
    h.updateFile(path);
    return h.hex();
}

std::string hashBytes(const void* data, std::size_t bytes)
{
    ContentHasher h;
    h.update(data, bytes);
    return h.hex();
}

} // namespace setscope::util
