// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Fixture texts of tst_Fetch.cpp. They live here because moc cannot parse raw string
// literals that hold quotes (it then finds no Q_OBJECT class in the test source).
#pragma once

#include "tests/support/TimeFactor.h"

#include <QProcess>
#include <QString>
#include <QtGlobal>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <sys/types.h>

namespace fixtures {

inline void writeFile(const std::filesystem::path& p, const std::string& text)
{
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
}

/// A real Debian package at `out` (built with dpkg-deb -b) holding `files` (path under /
/// -> content). Returns "" on success, else dpkg-deb's message.
inline std::string makeDeb(const std::filesystem::path& out, const std::string& pkg,
                           const std::map<std::string, std::string>& files)
{
    const std::filesystem::path tree = out.parent_path() / ("tree-" + pkg);
    std::filesystem::remove_all(tree);
    writeFile(tree / "DEBIAN" / "control", "Package: " + pkg +
                                               "\nVersion: 1.0-test\nArchitecture: all\nMaintainer: setscope tests "
                                               "<tests@example.org>\nDescription: fixture\n fixture package\n");
    for (const auto& [path, content] : files)
        writeFile(tree / path, content);
    QProcess p;
    p.start("dpkg-deb", {"--root-owner-group", "-Znone", "-b", QString::fromStdString(tree.string()),
                         QString::fromStdString(out.string())});
    if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
        return "dpkg-deb -b " + out.string() + " failed: " + p.readAllStandardError().toStdString();
    return {};
}

/// Sets an environment variable for the scope, restores the old value (or its absence) at the
/// end, also when a QVERIFY returns early.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const std::string& value)
        : m_name(name)
    {
        if (qEnvironmentVariableIsSet(name))
            m_old = qgetenv(name);
        qputenv(name, QByteArray::fromStdString(value));
    }
    ~ScopedEnv()
    {
        if (m_old)
            qputenv(m_name, *m_old);
        else
            qunsetenv(m_name);
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    const char* m_name;
    std::optional<QByteArray> m_old;
};

/// Waits (up to `timeout`) until the fake apt-get's FAKE_SLOW file exists and returns the pids
/// in it (its shell, its sleeping child); empty on timeout. The file is renamed into place
/// complete, so once it exists it is whole.
inline std::vector<pid_t> waitForSlowPids(const std::filesystem::path& file,
                                          std::chrono::milliseconds timeout = std::chrono::seconds(60))
{
    const auto deadline = std::chrono::steady_clock::now() + timeout * setscope::testing::timeFactor();
    while (std::chrono::steady_clock::now() < deadline) {
        std::ifstream in(file);
        std::vector<pid_t> pids;
        for (long p; in >> p;)
            pids.push_back(static_cast<pid_t>(p));
        if (pids.size() == 2)
            return pids;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return {};
}

/// True when process `pid` has ended (gone, or a zombie waiting for its reaper).
inline bool processEnded(pid_t pid)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto close = stat.rfind(')');
    return stat.empty() || (close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z');
}

/// Waits (up to `timeout`, scaled for sanitizer builds) until `pid` has ended.
inline bool waitUntilEnded(pid_t pid, std::chrono::milliseconds timeout = std::chrono::seconds(30))
{
    return setscope::testing::waitUntil([pid] { return processEnded(pid); }, timeout);
}

inline const char* kGloveJson =
    R"({"precision":8,"l2NormIndex":4,"wordIndex":5,"size":4,"dimensions":4,)"
    R"("words":["the","cat","new york","é"],"vectors":{"the":[0.5,-1.25,2,3e-2,1.0,0],)"
    R"("cat":[1,2,3,4,5.47,1],"new york":[0,0,0,0,0,2],"é":[-0.5,0.25,-2,8,8.3,3]},"unkVector":[0,0,0,0,0,-1]})";

inline const char* kFakeAptGet = R"(#!/bin/sh
echo "apt-get $*" >> "$FAKE_LOG"
case "$1" in
download)
  if [ -n "$FAKE_SLOW" ]; then
    # A download that never ends by itself: sleeps an hour in a child. The pids of this
    # shell and of that child go to the file $FAKE_SLOW (renamed into place when complete).
    sleep 3600 & echo "$$ $!" > "$FAKE_SLOW.tmp" && mv "$FAKE_SLOW.tmp" "$FAKE_SLOW"; wait; exit 1
  fi
  if [ -n "$FAKE_FAIL" ]; then
    echo "Ign:1 http://deb.debian.org/debian bookworm/main amd64 $2 all 1.0"
    echo "Err:1 http://deb.debian.org/debian bookworm/main amd64 $2 all 1.0"
    echo "  Temporary failure resolving 'deb.debian.org'"
    echo "E: Failed to fetch http://deb.debian.org/debian/pool/main/$2_1.0_all.deb  Temporary failure resolving 'deb.debian.org'" >&2
    exit 100
  fi
  if [ ! -f "$FAKE_REPO/$2.deb" ]; then echo "E: Unable to locate package $2" >&2; exit 100; fi
  cp "$FAKE_REPO/$2.deb" "./$2_1.0-test_all.deb" && echo "Get:1 fake $2";;
update)
  for a in "$@"; do case "$a" in Dir::State::Lists=*) d="${a#Dir::State::Lists=}";; esac; done
  [ -d "$d/partial" ] || { echo "E: no partial dir" >&2; exit 100; }
  if [ -n "$FAKE_FAIL" ]; then echo "W: Failed to fetch http://deb.debian.org/debian/dists/bookworm/InRelease  Temporary failure resolving 'deb.debian.org'"; exit 0; fi
  cp "$FAKE_REPO"/lists/* "$d/";;
*) echo "E: fake apt-get does not know $1" >&2; exit 100;;
esac
)";

inline const char* kFakeNpm = R"(#!/bin/sh
echo "npm $*" >> "$FAKE_LOG"
[ "$1" = pack ] || { echo "npm ERR! fake npm only packs" >&2; exit 1; }
prev=""; dest=""
for a in "$@"; do [ "$prev" = "--pack-destination" ] && dest="$a"; prev="$a"; done
if [ -n "$FAKE_FAIL" ]; then
  echo "npm ERR! code EAI_AGAIN" >&2
  echo "npm ERR! request to https://registry.npmjs.org/$2 failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org" >&2
  exit 1
fi
if [ ! -f "$FAKE_REPO/$2.tgz" ]; then echo "npm ERR! code E404" >&2; echo "npm ERR! 404 Not Found - GET https://registry.npmjs.org/$2" >&2; exit 1; fi
cp "$FAKE_REPO/$2.tgz" "$dest/$2-9.9.9.tgz" && echo "$2-9.9.9.tgz"
)";

} // namespace fixtures
