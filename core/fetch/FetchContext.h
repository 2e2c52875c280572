// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/fetch/Subprocess.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace setscope::job {
class JobControl;
class ProgressSink;
} // namespace setscope::job

namespace setscope::fetch {

/// What a fetcher works with: a scratch folder (deleted afterwards), the output folder
/// (renamed into place only when the fetch completes), the manifest being built, progress
/// and cancel. The steps below run the registries' own clients (apt-get, dpkg-deb, npm);
/// they block the calling thread and honour cancel within a second.
class FetchContext {
public:
    /// `workDir` and `outDir` must exist. `sink` and `control` may be nullptr.
    FetchContext(std::string sourceName, std::string workDir, std::string outDir, job::ProgressSink* sink,
                 job::JobControl* control);

    const std::string& sourceName() const { return m_name; }
    /// Scratch space on the same file system as the data root; removed after the fetch.
    const std::string& workDir() const { return m_workDir; }
    /// Where the fetcher writes the dataset.
    const std::string& outDir() const { return m_outDir; }
    /// The manifest (written as MANIFEST.json last). The fetcher may add keys; "packages"
    /// is filled by the steps below, "counts" and "notes" by count() and note().
    nlohmann::json& manifest() { return m_manifest; }

    void progress(std::int64_t done, std::int64_t total, const std::string& what);
    void message(const std::string& text);
    /// Records a number in manifest["counts"][key].
    void count(const std::string& key, std::int64_t value);
    /// Records a line in manifest["notes"] and shows it as a message.
    void note(const std::string& text);
    /// Throws job::Cancelled when cancel was requested.
    void checkpoint();
    job::JobControl* control() const { return m_control; }

    /// Runs a command with this fetch's cancel and an output log (each line as a message
    /// only when `verbose`).
    CommandResult run(const std::vector<std::string>& argv, const std::string& workingDir = {}, bool verbose = false);

    /// `apt-get download PKG` into a scratch folder (works as root or as a user, installs
    /// nothing), then `dpkg-deb -x` into workDir()/deb-PKG/root. Returns that folder (the
    /// package's files under their installed paths, e.g. root/usr/share/...). Records
    /// {registry: debian, name, version} in manifest["packages"].
    /// Throws FetchError saying the Debian archive could not be reached, or has no such
    /// package, with apt-get's own message.
    std::string debianPackage(const std::string& pkg);

    /// `npm pack SPEC --pack-destination DIR --ignore-scripts` and extraction of the .tgz
    /// (libarchive) without its "package/" prefix into workDir()/npm-NAME. Returns that
    /// folder. Records {registry: npm, name, version} from its package.json.
    std::string npmPackage(const std::string& spec);

    /// A private `apt-get update` into workDir()/apt-lists (the system's sources; the
    /// system's lists and caches are not touched): Packages and Translation-en indexes,
    /// stored uncompressed (Acquire::GzipIndexes=false; Debian's docker images would keep
    /// them lz4-compressed otherwise). Returns the folder. Needs root or a user apt lets
    /// run `update` with a private lists dir (apt itself decides).
    std::string aptLists();

    /// The files in an aptLists() folder whose names end with `suffix` ("_Packages",
    /// "_i18n_Translation-en"), sorted.
    static std::vector<std::string> aptListFiles(const std::string& listsDir, const std::string& suffix);

    /// Copies `from` to outDir()/relativeTo, creating folders. Returns the new path.
    std::string keepFile(const std::string& from, const std::string& relativeTo);

private:
    std::string m_name;
    std::string m_workDir;
    std::string m_outDir;
    job::ProgressSink* m_sink;
    job::JobControl* m_control;
    nlohmann::json m_manifest;
};

/// Finds a file named `fileName` anywhere below `root` (first in path order); "" if none.
std::string findFileNamed(const std::string& root, const std::string& fileName);

/// Extracts a .tar / .tar.gz / .tgz into `dest` (libarchive), optionally dropping each
/// member's first path component ("package/" in npm tarballs); refuses absolute and ".."
/// members, hard links whose target is such a name (a target inside lands inside), devices,
/// FIFOs and sockets, and writing through symlinks. Returns the number of regular files
/// written. Throws FetchError naming the archive and the member.
/// `control` (may be nullptr) is polled between blocks: cancel throws job::Cancelled.
/// `maxBytes` bounds what the members may write in all (a small compressed tar can expand to
/// gigabytes): 0 = the space free in the file system of `dest` when extraction starts. A
/// member whose declared size would cross the bound is refused before any of it is written,
/// and the bytes actually written are counted against it as well.
std::size_t extractTarball(const std::string& tarball, const std::string& dest, bool stripFirstComponent,
                           job::JobControl* control = nullptr, std::uint64_t maxBytes = 0);

} // namespace setscope::fetch
