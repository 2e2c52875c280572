// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Fixture texts of tst_Fetch.cpp. They live here because moc cannot parse raw string
// literals that hold quotes (it then finds no Q_OBJECT class in the test source).
#pragma once

#include <QProcess>
#include <QString>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

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

inline const char* kGloveJson =
    R"({"precision":8,"l2NormIndex":4,"wordIndex":5,"size":4,"dimensions":4,)"
    R"("words":["the","cat","new york","é"],"vectors":{"the":[0.5,-1.25,2,3e-2,1.0,0],)"
    R"("cat":[1,2,3,4,5.47,1],"new york":[0,0,0,0,0,2],"é":[-0.5,0.25,-2,8,8.3,3]},"unkVector":[0,0,0,0,0,-1]})";

inline const char* kFakeAptGet = R"(#!/bin/sh
echo "apt-get $*" >> "$FAKE_LOG"
case "$1" in
download)
  if [ -n "$FAKE_SLOW" ]; then sleep 30; fi
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
