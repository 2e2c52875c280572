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
#include <fstream>
#include <stdexcept>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/prctl.h>
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

constexpr const char* kStoreFolderPrefix = "setscope-ranks-";
/// Left in the store folder by a launcher that passes an interrupt on to its ranks: it removes
/// the folder itself once they have ended (removeOrphanedStore()).
constexpr const char* kForwardedMark = "interrupt-passed-on";
/// How long a rank interrupted while its launcher looks alive (and did not pass the interrupt
/// on) waits for the launcher to end before leaving the store folder to it.
constexpr std::chrono::seconds kLauncherEndWait{5};

/// Closes both ends of a pipe that are still open.
struct Pipe {
    int fd[2] = {-1, -1};
    ~Pipe()
    {
        for (int f : fd)
            if (f >= 0)
                ::close(f);
    }
    void close(int end)
    {
        if (fd[end] >= 0)
            ::close(fd[end]);
        fd[end] = -1;
    }
};

std::atomic<bool> g_launcherLost{false};

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

} // namespace

std::chrono::milliseconds stopGrace()
{
    if (const char* s = std::getenv("SETSCOPE_DIST_STOP_GRACE"); s && *s) {
        char* end = nullptr;
        const double v = std::strtod(s, &end);
        if (end && *end == '\0' && v > 0 && v < 86400)
            return std::chrono::milliseconds(static_cast<std::int64_t>(v * 1000));
    }
    return std::chrono::seconds(30);
}

namespace {

/// A fresh folder for the ranks' FileStore, under $TMPDIR (else /tmp), removed when the launch ends.
void makeStoreFolder(TempDir& dir)
{
    const char* tmp = std::getenv("TMPDIR");
    std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/" + kStoreFolderPrefix + "XXXXXX";
    if (!::mkdtemp(tmpl.data()))
        throw std::runtime_error(tmpl + ": cannot create a directory for the ranks' store: " + std::strerror(errno));
    dir.path = tmpl;
}

/// This process's environment without the variables a rank gets its own value of, plus the
/// launch's own, the lifeline's read end and this process's pid (watchLauncher()).
std::vector<std::string> rankEnvironment(const LocalLaunch& launch, int lifelineReadEnd)
{
    static const char* const kOwn[] = {"RANK",         "WORLD_SIZE",          "LOCAL_RANK",           "LOCAL_WORLD_SIZE",
                                       "SETSCOPE_DIST_STORE", "SETSCOPE_LAUNCHER_FD", "SETSCOPE_LAUNCHER_PID"};
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
    base.push_back("SETSCOPE_LAUNCHER_FD=" + std::to_string(lifelineReadEnd));
    base.push_back("SETSCOPE_LAUNCHER_PID=" + std::to_string(::getpid()));
    return base;
}

/// Ctrl-C, kill and a closed terminal (SIGHUP) are recorded in g_signal while it lives (the
/// supervision passes them on); the previous handlers come back after.
struct SignalForwarding {
    struct sigaction old[3] {};
    SignalForwarding()
    {
        struct sigaction sa {};
        sa.sa_handler = onLauncherSignal;
        sigemptyset(&sa.sa_mask);
        g_signal = 0;
        for (int k = 0; k < 3; ++k)
            ::sigaction(kSignals[k], &sa, &old[k]);
    }
    ~SignalForwarding()
    {
        for (int k = 0; k < 3; ++k)
            ::sigaction(kSignals[k], &old[k], nullptr);
    }
    SignalForwarding(const SignalForwarding&) = delete;
    SignalForwarding& operator=(const SignalForwarding&) = delete;
};

void killAll(const std::vector<pid_t>& pids, int sig)
{
    for (pid_t p : pids)
        if (p > 0)
            ::kill(p, sig);
}

/// Starts every rank in its own process group, with its RANK and the store; rank 0 keeps this
/// process's stdout, the others write theirs to /dev/null. When one cannot start, the ones
/// started are killed and reaped and the error names the rank.
std::vector<pid_t> spawnRanks(const LocalLaunch& launch, const std::vector<std::string>& base, const std::string& store)
{
    std::vector<pid_t> pids(static_cast<std::size_t>(launch.ranks), -1);
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
            killAll(pids, SIGKILL);
            for (pid_t p : pids)
                if (p > 0)
                    ::waitpid(p, nullptr, 0);
            throw std::runtime_error(launch.argv[0] + ": cannot start rank " + std::to_string(r) + ": " + std::strerror(rc));
        }
        pids[static_cast<std::size_t>(r)] = pid;
    }
    return pids;
}

/// Waits for every rank: passes a signal on (SIGHUP as SIGTERM), kills the ranks still running
/// the stop grace after an interrupt or the grace after a failure, and reports the first rank
/// that failed. Returns the first non-zero exit code (130 after an interrupt), else 0.
int superviseRanks(const LocalLaunch& launch, std::vector<pid_t>& pids, const std::filesystem::path& storeFolder)
{
    int result = 0;
    int running = launch.ranks;
    std::chrono::steady_clock::time_point failedAt{}, interruptedAt{};
    bool killed = false;
    bool interrupted = false;
    while (running > 0) {
        if (const int s = g_signal.exchange(0); s != 0) {
            // The mark first: a rank that finds it leaves the store folder to this process.
            if (std::FILE* mark = std::fopen((storeFolder / kForwardedMark).c_str(), "w"))
                std::fclose(mark);
            // SIGHUP is passed on as SIGTERM: the ranks take the same cancel path for both.
            killAll(pids, s == SIGHUP ? SIGTERM : s);
            if (!interrupted)
                interruptedAt = std::chrono::steady_clock::now();
            interrupted = true;
        }
        int status = 0;
        const pid_t p = ::waitpid(-1, &status, WNOHANG);
        if (p < 0 && errno != EINTR)
            break;
        if (p <= 0) {
            const auto now = std::chrono::steady_clock::now();
            const auto seconds = [](std::chrono::milliseconds d) { return static_cast<double>(d.count()) / 1000.0; };
            if (!killed && interrupted && now - interruptedAt > launch.stopGrace) {
                std::fprintf(stderr, "setscope-cli: %d rank(s) still running %.0f s after the interrupt: killing them\n",
                             running, seconds(launch.stopGrace));
                killAll(pids, SIGKILL);
                killed = true;
            } else if (!killed && result != 0 && now - failedAt > launch.grace) {
                std::fprintf(stderr, "setscope-cli: %d rank(s) still running %.0f s after the failure: killing them\n",
                             running, seconds(launch.grace));
                killAll(pids, SIGKILL);
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

} // namespace

int runLocalRanks(const LocalLaunch& launch)
{
    if (launch.ranks < 1)
        throw std::invalid_argument("--nproc must be at least 1");
    if (launch.argv.empty())
        throw std::invalid_argument("nothing to launch");
    TempDir dir;
    makeStoreFolder(dir);
    // The ranks' lifeline: they hold the read end, only this process the write end (close on
    // exec), so the pipe closes when this process ends, even by SIGKILL (watchLauncher()).
    Pipe life;
    if (::pipe(life.fd) != 0 || ::fcntl(life.fd[1], F_SETFD, FD_CLOEXEC) != 0)
        throw std::runtime_error(std::string("cannot make the ranks' lifeline pipe: ") + std::strerror(errno));
    const std::vector<std::string> base = rankEnvironment(launch, life.fd[0]);
    const SignalForwarding forwarding;
    std::vector<pid_t> pids = spawnRanks(launch, base, (dir.path / "store").string());
    life.close(0); // the ranks have their copies
    return superviseRanks(launch, pids, dir.path);
}

namespace {

/// True when process `pid`'s main thread has exited (state Z or X in /proc/PID/stat) or the
/// process is gone.
bool isZombie(long pid)
{
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line))
        return true;
    const std::size_t close = line.rfind(')'); // the command name may contain spaces and ')'
    if (close == std::string::npos || close + 2 >= line.size())
        return false;
    const char state = line[close + 2];
    return state == 'Z' || state == 'X';
}

} // namespace

bool launcherLost()
{
    if (g_launcherLost.load())
        return true;
    // The watching thread may not have run yet (a loaded machine): ask the pipe and the parent.
    const char* fdText = std::getenv("SETSCOPE_LAUNCHER_FD");
    const char* pidText = std::getenv("SETSCOPE_LAUNCHER_PID");
    if (!fdText || !*fdText || !pidText || !*pidText)
        return false;
    if (std::atol(pidText) != static_cast<long>(::getppid()))
        return true;
    // A launcher killed by a signal sends PR_SET_PDEATHSIG's SIGTERM when the thread that started
    // this rank (its main thread) exits, while its other threads are still going: getppid() is
    // still its pid and the lifeline may still be open, but its main thread is a zombie. A rank
    // that took that SIGTERM's cancel path quickly used to find the launcher "alive" here and leave
    // the store folder behind (tests/cli cli_rank_lifetime, 7 of 24 rounds on a loaded machine).
    if (isZombie(std::atol(pidText)))
        return true;
    pollfd p{std::atoi(fdText), POLLIN, 0};
    return ::poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLERR)) != 0 && (p.revents & POLLNVAL) == 0;
}

namespace {

/// The folder of the run's file store when runLocalRanks made it
/// (<TMPDIR>/setscope-ranks-XXXXXX/store), else empty.
std::filesystem::path launchedStoreFolder()
{
    const char* store = std::getenv("SETSCOPE_DIST_STORE");
    if (!store || std::strncmp(store, "file:", 5) != 0)
        return {};
    const std::filesystem::path file(store + 5);
    std::filesystem::path folder = file.parent_path();
    if (file.filename() != "store" || folder.filename().string().rfind(kStoreFolderPrefix, 0) != 0)
        return {};
    return folder;
}

/// Waits until launcherLost() or `bound` has passed; true when the launcher is gone.
bool awaitLauncherLost(std::chrono::milliseconds bound)
{
    const auto until = std::chrono::steady_clock::now() + bound;
    while (!launcherLost()) {
        if (std::chrono::steady_clock::now() >= until)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
}

} // namespace

void removeOrphanedStore(bool interrupted)
{
    const std::filesystem::path folder = launchedStoreFolder();
    if (folder.empty())
        return;
    if (!launcherLost()) {
        // An interrupt while the launcher looks alive: either the launcher passed it on (then
        // its mark is in the folder and it removes the folder once its ranks have ended), or it
        // is being killed and not yet seen gone. The kernel's SIGTERM for a killed launcher
        // (PR_SET_PDEATHSIG) comes as the launcher's main thread exits, and on a loaded machine
        // a rank can finish cancelling before the rest of the launcher has gone: it used to end
        // then and leave the folder behind (cli_rank_lifetime's launcherKilled, now and then on a
        // loaded machine even after launcherLost() learnt to read the main thread's state). So it
        // waits a while for the launcher to end; one that runs on removes the folder itself.
        if (!interrupted || std::filesystem::exists(folder / kForwardedMark))
            return;
        std::fprintf(stderr,
                     "setscope-cli: interrupted while the launcher of this rank still runs: waiting up to %lld s for it "
                     "to end, to remove the ranks' store folder %s if it does\n",
                     static_cast<long long>(kLauncherEndWait.count()), folder.c_str());
        if (!awaitLauncherLost(kLauncherEndWait))
            return;
    }
    // Both ranks remove it at about the same time; std::filesystem::remove_all gives up at the
    // first entry the other rank removed under it, so it is tried again until the folder is gone.
    std::error_code ec;
    for (int attempt = 0; attempt < 10; ++attempt) {
        ec.clear();
        std::filesystem::remove_all(folder, ec);
        if (!ec || !std::filesystem::exists(folder))
            break;
    }
    if (ec && std::filesystem::exists(folder))
        std::fprintf(stderr, "setscope-cli: cannot remove the ranks' store folder %s: %s\n", folder.c_str(), ec.message().c_str());
}

void watchLauncher(std::function<void()> onLost)
{
    const char* fdText = std::getenv("SETSCOPE_LAUNCHER_FD");
    const char* pidText = std::getenv("SETSCOPE_LAUNCHER_PID");
    if (!fdText || !*fdText)
        return;
    const int fd = std::atoi(fdText);
    if (fd < 0 || ::fcntl(fd, F_GETFD) < 0)
        return; // not inherited (run by hand with the variable set): nothing to watch
    ::fcntl(fd, F_SETFD, FD_CLOEXEC); // not for this rank's own children
    // The rank's output often goes to a pipe that its launcher's parent reads (a terminal's
    // pager, a test, the GUI): when that reader goes with the launcher, a write would kill the
    // rank by SIGPIPE before it takes the cancel path and removes the store folder. Ignored, the
    // write fails (EPIPE) and the rank ends as it should.
    ::signal(SIGPIPE, SIG_IGN);
    // The kernel's part: SIGTERM (the cancel path) when the launcher dies. The launcher may have
    // died before this call: then the parent is no longer the one that started this process.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    const bool goneAlready = pidText && std::atol(pidText) != static_cast<long>(::getppid());
    const std::chrono::milliseconds grace = stopGrace();
    std::thread([fd, goneAlready, grace, onLost = std::move(onLost)] {
        // The pipe's part: it reads end-of-file once the launcher has ended, however it ended.
        if (!goneAlready) {
            char byte;
            while (true) {
                pollfd p{fd, POLLIN, 0};
                const int r = ::poll(&p, 1, -1);
                if (r < 0 && errno == EINTR)
                    continue;
                if (r > 0 && (p.revents & POLLIN) && ::read(fd, &byte, 1) > 0)
                    continue; // the launcher never writes; ignore anything that comes
                break;
            }
        }
        g_launcherLost = true;
        std::fprintf(stderr, "setscope-cli: the launcher of this rank is gone: cancelling (at most %.0f s)\n",
                     static_cast<double>(grace.count()) / 1000.0);
        if (onLost)
            onLost();
        std::this_thread::sleep_for(grace);
        std::fprintf(stderr, "setscope-cli: still running %.0f s after the launcher ended: stopping\n",
                     static_cast<double>(grace.count()) / 1000.0);
        removeOrphanedStore(true);
        std::_Exit(130);
    }).detach();
}

} // namespace setscope::dist
