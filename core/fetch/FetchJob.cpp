// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/fetch/FetchJob.h"

#include "core/fetch/Catalog.h"
#include "core/fetch/FetchContext.h"
#include "core/util/AtomicFile.h"
#include "core/util/Faults.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace setscope::fetch {

namespace {

class SourceLock {
public:
    SourceLock(const fs::path& path, const std::string& name, job::ProgressSink* sink, job::JobControl* control)
    {
        m_fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (m_fd < 0)
            throw FetchError("cannot create the lock file " + path.string() + ": " + std::strerror(errno));
        bool told = false;
        while (::flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
            if (errno != EWOULDBLOCK && errno != EINTR) {
                const int e = errno;
                ::close(m_fd);
                throw FetchError("cannot lock " + path.string() + ": " + std::strerror(e));
            }
            if (!told && sink)
                sink->message(name + ": another setscope process is fetching it; waiting");
            told = true;
            if (control && control->cancelRequested()) {
                ::close(m_fd);
                throw job::Cancelled();
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
        }
    }
    ~SourceLock()
    {
        if (m_fd >= 0)
            ::close(m_fd); // releases the flock
    }
    SourceLock(const SourceLock&) = delete;
    SourceLock& operator=(const SourceLock&) = delete;

private:
    int m_fd = -1;
};

class RemoveOnExit {
public:
    explicit RemoveOnExit(std::vector<fs::path> paths) : m_paths(std::move(paths)) {}
    ~RemoveOnExit()
    {
        for (const fs::path& p : m_paths) {
            std::error_code ec;
            fs::remove_all(p, ec);
        }
    }

private:
    std::vector<fs::path> m_paths;
};

std::string utcNow()
{
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

std::int64_t bytesBelow(const fs::path& dir)
{
    std::int64_t n = 0;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec); it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (ec)
            break;
        if (it->is_regular_file(ec))
            n += static_cast<std::int64_t>(it->file_size(ec));
    }
    return n;
}

/// Puts `complete` at `target` in one step: an atomic exchange when `target` exists (the
/// old copy ends up in `complete`, removed by the caller), else a rename.
void installAtomically(const fs::path& complete, const fs::path& target)
{
    std::error_code ec;
    const auto fail = [&](int err) {
        throw FetchError(util::faults::describe("cannot put the fetched copy in place at " + target.string() + " (rename)", err));
    };
    if (fs::exists(target, ec)) {
        if (util::faults::renameExchange(complete.c_str(), target.c_str()) == 0)
            return;
        if (errno != EINVAL && errno != ENOSYS)
            fail(errno);
        // File systems without RENAME_EXCHANGE: a short window without the folder.
        const fs::path old = complete.string() + ".old";
        if (util::faults::rename(target.c_str(), old.c_str()) != 0)
            fail(errno);
        if (util::faults::rename(complete.c_str(), target.c_str()) != 0) {
            const int err = errno;
            ::rename(old.c_str(), target.c_str()); // the previous copy back
            fail(err);
        }
        fs::rename(old, complete);
        return;
    }
    if (util::faults::rename(complete.c_str(), target.c_str()) != 0)
        fail(errno);
}

void fetchOne(const SourceInfo& src, bool force, job::ProgressSink* sink, job::JobControl* control, int depth)
{
    if (depth > 8)
        throw FetchError("the requirements of " + src.name + " form a cycle");
    for (const std::string& req : src.dependsOn) {
        const SourceInfo* r = findSource(req);
        if (!r)
            throw FetchError(src.name + " requires " + req + ", which is not a known source");
        if (!isFetched(req))
            fetchOne(*r, false, sink, control, depth + 1);
    }
    if (!src.fetch)
        throw FetchError(src.name + " has no fetcher");

    const fs::path root = dataRoot();
    std::error_code ec;
    fs::create_directories(root, ec);
    if (ec)
        throw FetchError("cannot create the data folder " + root.string() + ": " + ec.message() +
                         " (set SETSCOPE_DATA_DIR to a writable folder)");
    SourceLock lock(root / ("." + src.name + ".lock"), src.name, sink, control);
    // We hold the lock: anything named .NAME.tmp-* / .NAME.work-* is a crashed fetch's.
    const std::string tmpPrefix = "." + src.name + ".tmp-", workPrefix = "." + src.name + ".work-";
    for (const auto& e : fs::directory_iterator(root, ec)) {
        const std::string n = e.path().filename().string();
        if (n.rfind(tmpPrefix, 0) == 0 || n.rfind(workPrefix, 0) == 0)
            fs::remove_all(e.path(), ec);
    }
    if (!force && isFetched(src.name)) {
        if (sink)
            sink->message(src.name + ": already fetched in " + sourceDir(src.name));
        return;
    }
    const fs::path tmp = root / (tmpPrefix + std::to_string(::getpid()));
    const fs::path work = root / (workPrefix + std::to_string(::getpid()));
    RemoveOnExit cleanup({tmp, work});
    fs::create_directories(tmp);
    fs::create_directories(work);

    const auto t0 = std::chrono::steady_clock::now();
    FetchContext ctx(src.name, work.string(), tmp.string(), sink, control);
    src.fetch(ctx);
    ctx.checkpoint();

    nlohmann::json m = ctx.manifest();
    m["source"] = src.name;
    m["title"] = src.title;
    m["kind"] = src.kind;
    m["formatVersion"] = src.formatVersion;
    m["fetched"] = utcNow();
    m["setscopeVersion"] = SETSCOPE_VERSION;
    m["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    m["bytes"] = bytesBelow(tmp);
    util::writeFileAtomically(tmp / "MANIFEST.json", [&](std::ostream& o) { o << m.dump(2) << '\n'; });
    ctx.checkpoint(); // last chance to cancel: nothing is replaced yet
    installAtomically(tmp, root / src.name);
    if (sink) {
        sink->progress(1, 1, src.name + ": done");
        sink->message(src.name + ": fetched into " + (root / src.name).string());
    }
}

} // namespace

void fetchSource(const std::string& name, bool force, job::ProgressSink* sink, job::JobControl* control)
{
    const SourceInfo* src = findSource(name);
    if (!src) {
        std::string known;
        for (const SourceInfo& s : sources())
            known += (known.empty() ? "" : ", ") + s.name;
        throw std::invalid_argument("unknown dataset \"" + name + "\"; the built-in ones are: " + known);
    }
    fetchOne(*src, force, sink, control, 0);
}

class FetchJob::Forwarder final : public job::ProgressSink {
public:
    explicit Forwarder(FetchJob& job) : m_job(job) {}
    void progress(std::int64_t done, std::int64_t total, const std::string& what) override
    {
        m_job.reportProgress(done, total, what);
    }
    void message(const std::string& text) override { m_job.reportMessage(text); }

private:
    FetchJob& m_job;
};

FetchJob::FetchJob(std::string name, bool force)
    : m_name(std::move(name))
    , m_force(force)
{
}

FetchJob::~FetchJob() { stopAndWait(); }

void FetchJob::run()
{
    Forwarder forward(*this);
    fetchSource(m_name, m_force, &forward, &control());
}

} // namespace setscope::fetch
