// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/dist/LocalLaunch.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace setscope::dist {

namespace {

std::atomic<int> g_signal{0};
extern "C" void onLauncherSignal(int s) { g_signal = s; }

/// Removes a directory tree when the launch ends (the FileStore's file and the directory).
struct TempDir {
    std::filesystem::path path;
    ~TempDir()
    {
        std::error_code ec;
        if (!path.empty())
            std::filesystem::remove_all(path, ec);
    }
};

bool isSet(const std::string& entry, const char* name)
{
    const std::size_t n = std::strlen(name);
    return entry.size() > n && entry.compare(0, n, name) == 0 && entry[n] == '=';
}

} // namespace

int runLocalRanks(const LocalLaunch& launch)
{
    if (launch.ranks < 1)
        throw std::invalid_argument("--nproc must be at least 1");
    if (launch.argv.empty())
        throw std::invalid_argument("nothing to launch");

    TempDir dir;
    {
        const char* tmp = std::getenv("TMPDIR");
        std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/setscope-ranks-XXXXXX";
        if (!::mkdtemp(tmpl.data()))
            throw std::runtime_error(tmpl + ": cannot create a directory for the ranks' store: " + std::strerror(errno));
        dir.path = tmpl;
    }
    const std::string store = (dir.path / "store").string();

    static const char* const kOwn[] = {"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "SETSCOPE_DIST_STORE"};
    std::vector<std::string> base;
    for (char** e = environ; *e; ++e) {
        const std::string entry(*e);
        bool own = false;
        for (const char* n : kOwn)
            own = own || isSet(entry, n);
        if (!own)
            base.push_back(entry);
    }
    base.insert(base.end(), launch.env.begin(), launch.env.end());

    struct sigaction sa {};
    sa.sa_handler = onLauncherSignal;
    sigemptyset(&sa.sa_mask);
    struct sigaction oldInt {}, oldTerm {};
    g_signal = 0;
    ::sigaction(SIGINT, &sa, &oldInt);
    ::sigaction(SIGTERM, &sa, &oldTerm);
    struct RestoreSignals {
        struct sigaction i, t;
        ~RestoreSignals()
        {
            ::sigaction(SIGINT, &i, nullptr);
            ::sigaction(SIGTERM, &t, nullptr);
        }
    } restore{oldInt, oldTerm};

    std::vector<pid_t> pids(static_cast<std::size_t>(launch.ranks), -1);
    auto killAll = [&](int sig) {
        for (pid_t p : pids)
            if (p > 0)
                ::kill(p, sig);
    };
    for (int r = 0; r < launch.ranks; ++r) {
        std::vector<std::string> env = base;
        env.push_back("RANK=" + std::to_string(r));
        env.push_back("WORLD_SIZE=" + std::to_string(launch.ranks));
        env.push_back("LOCAL_RANK=" + std::to_string(r));
        env.push_back("LOCAL_WORLD_SIZE=" + std::to_string(launch.ranks));
        env.push_back("SETSCOPE_DIST_STORE=file:" + store);
        std::vector<char*> envp, argv;
        for (std::string& s : env)
            envp.push_back(s.data());
        envp.push_back(nullptr);
        std::vector<std::string> args = launch.argv;
        for (std::string& s : args)
            argv.push_back(s.data());
        argv.push_back(nullptr);

        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        if (r > 0)
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
        posix_spawnattr_t attr;
        posix_spawnattr_init(&attr);
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
        posix_spawnattr_setpgroup(&attr, 0);
        pid_t pid = -1;
        const int rc = ::posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), envp.data());
        posix_spawn_file_actions_destroy(&actions);
        posix_spawnattr_destroy(&attr);
        if (rc != 0) {
            killAll(SIGKILL);
            for (pid_t p : pids)
                if (p > 0)
                    ::waitpid(p, nullptr, 0);
            throw std::runtime_error(launch.argv[0] + ": cannot start rank " + std::to_string(r) + ": " + std::strerror(rc));
        }
        pids[static_cast<std::size_t>(r)] = pid;
    }

    int result = 0;
    int running = launch.ranks;
    std::chrono::steady_clock::time_point failedAt{};
    bool killed = false;
    bool interrupted = false;
    while (running > 0) {
        if (const int s = g_signal.exchange(0); s != 0) {
            killAll(s);
            interrupted = true;
        }
        int status = 0;
        const pid_t p = ::waitpid(-1, &status, WNOHANG);
        if (p < 0 && errno != EINTR)
            break;
        if (p <= 0) {
            if (result != 0 && !killed && std::chrono::steady_clock::now() - failedAt > launch.grace) {
                std::fprintf(stderr, "setscope-cli: %d rank(s) still running %lld s after the failure: killing them\n",
                             running, static_cast<long long>(std::chrono::duration_cast<std::chrono::seconds>(launch.grace).count()));
                killAll(SIGKILL);
                killed = true;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            continue;
        }
        int rank = -1;
        for (std::size_t r = 0; r < pids.size(); ++r)
            if (pids[r] == p) {
                rank = static_cast<int>(r);
                pids[r] = -1;
            }
        if (rank < 0)
            continue; // not one of ours
        --running;
        const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        if (code != 0 && result == 0) {
            result = code;
            failedAt = std::chrono::steady_clock::now();
            if (interrupted)
                continue; // the ranks were told to stop: some cancel, some see their partner go
            if (WIFSIGNALED(status))
                std::fprintf(stderr, "setscope-cli: rank %d of %d was killed by signal %d (%s)\n", rank, launch.ranks,
                             WTERMSIG(status), strsignal(WTERMSIG(status)));
            else
                std::fprintf(stderr, "setscope-cli: rank %d of %d exited with code %d\n", rank, launch.ranks, code);
        }
    }
    // After an interrupt the run was cancelled, whichever rank noticed first: a rank that found
    // its partner gone (exit 1) must not make it look failed.
    if (interrupted && result != 0)
        return 130;
    return result;
}

} // namespace setscope::dist
