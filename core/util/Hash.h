// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace setscope::util {

/// Incremental 128-bit content hash (xxHash XXH3-128). Not cryptographic: it keys caches
/// and detects changed inputs. Hex output is 32 lowercase characters.
class ContentHasher {
public:
    ContentHasher();
    ~ContentHasher();
    ContentHasher(const ContentHasher&) = delete;
    ContentHasher& operator=(const ContentHasher&) = delete;

    void update(const void* data, std::size_t bytes);
    void update(const std::string& s);
    /// Hashes the whole file; throws sdk::InputError when it cannot be read.
    void updateFile(const std::string& path);
    std::string hex() const;

private:
    struct State;
    std::unique_ptr<State> m_state;
};

std::string hashFile(const std::string& path);
std::string hashBytes(const void* data, std::size_t bytes);

} // namespace setscope::util
