// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/dist/Communicator.h"

#include <cstring>

namespace setscope::dist {

void Communicator::broadcast(std::vector<std::int64_t>& values, int root)
{
    std::int64_t n = static_cast<std::int64_t>(values.size());
    broadcast(std::span<std::int64_t>(&n, 1), root);
    values.resize(static_cast<std::size_t>(n));
    if (n > 0)
        broadcast(std::span<std::int64_t>(values), root);
}

void Communicator::broadcast(std::string& bytes, int root)
{
    std::vector<std::int64_t> words((bytes.size() + 7) / 8 + 1, 0);
    words[0] = static_cast<std::int64_t>(bytes.size());
    if (!bytes.empty())
        std::memcpy(words.data() + 1, bytes.data(), bytes.size());
    broadcast(words, root);
    const auto n = static_cast<std::size_t>(words.at(0));
    bytes.assign(reinterpret_cast<const char*>(words.data() + 1), n);
}

} // namespace setscope::dist
