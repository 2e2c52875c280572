// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// A TCP port for a test's server (a c10d TCPStore): one nobody listens on at the moment of asking.

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace setscope::testing {

/// A loopback port the kernel handed out for port 0, released again (another process could take
/// it before the test binds it; the kernel does not hand the same port out again at once).
inline int freePort()
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t n = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &n);
    ::close(fd);
    return ntohs(a.sin_port);
}

} // namespace setscope::testing
