// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/fetch/Subprocess.h"

#include "core/job/Job.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace setscope::fetch {

CommandError::CommandError(std::string commandLine, int exitCode, std::vector<std::string> lastLines)
    : FetchError(commandLine + " exited " + std::to_string(exitCode))
    , m_commandLine(std::move(commandLine))
    , m_exitCode(exitCode)
    , m_lastLines(std::move(lastLines))
{
}

std::string CommandError::keyLine() const
{
    for (auto it = m_lastLines.rbegin(); it != m_lastLines.rend(); ++it) {
        const std::string& l = *it;
        if (l.rfind("E: ", 0) == 0 || l.find("ERR!") != std::string::npos || l.find("error") != std::string::npos ||
            l.find("Error") != std::string::npos)
            return l;
    }
    for (auto it = m_lastLines.rbegin(); it != m_lastLines.rend(); ++it)
        if (it->find_first_not_of(" \t") != std::string::npos)
            return *it;
    return {};
}

std::string commandLineText(const std::vector<std::string>& argv)
{
    std::string s;
    for (const std::string& a : argv) {
        if (!s.empty())
            s += ' ';
        if (a.empty() || a.find_first_of(" \t'\"\\$") != std::string::npos) {
            s += '\'';
            for (char c : a) {
                if (c == '\'')
                    s += "'\\''";
                else
                    s += c;
            }
            s += '\'';
        } else {
            s += a;
        }
    }
    return s;
}

namespace {

class Fd {
public:
    explicit Fd(int fd = -1) : m_fd(fd) {}
    ~Fd() { reset(); }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    int get() const { return m_fd; }
    void reset()
    {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = -1;
    }

private:
    int m_fd;
};

int decodeStatus(int status)
{
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return -1;
}

/// Ends the child's whole process group: SIGTERM, then SIGKILL after one second.
void killGroup(pid_t pid)
{
    ::kill(-pid, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    int status = 0;
    while (std::chrono::steady_clock::now() < deadline) {
        const pid_t r = ::waitpid(pid, &status, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR)) {
            ::kill(-pid, SIGKILL); // grandchildren that ignored SIGTERM
            return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ::kill(-pid, SIGKILL);
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
}

/// Starts argv[0] (found on PATH) in a process group of its own, stdin /dev/null, stdout and
/// stderr into `output`, in options.workingDir, with our environment and LC_ALL=C (so apt's and
/// npm's messages are English); the default dispositions of SIGPIPE, SIGTERM and SIGINT and no
/// signal blocked. Throws FetchError when it cannot start, naming the program.
pid_t spawnInGroup(const std::vector<std::string>& argv, const CommandOptions& options, const std::string& cmdText,
                   int output)
{
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, output, 1);
    posix_spawn_file_actions_adddup2(&actions, output, 2);
    if (!options.workingDir.empty())
        posix_spawn_file_actions_addchdir_np(&actions, options.workingDir.c_str());

    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setpgroup(&attr, 0);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    sigaddset(&defaults, SIGTERM);
    sigaddset(&defaults, SIGINT);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

    // The child's environment: ours with LC_ALL=C, so apt's and npm's messages are English.
    std::vector<std::string> envStore;
    for (char** e = environ; e && *e; ++e)
        if (std::strncmp(*e, "LC_ALL=", 7) != 0 && std::strncmp(*e, "LANGUAGE=", 9) != 0)
            envStore.emplace_back(*e);
    envStore.emplace_back("LC_ALL=C");
    std::vector<char*> envp;
    for (std::string& s : envStore)
        envp.push_back(s.data());
    envp.push_back(nullptr);

    std::vector<std::string> argStore(argv);
    std::vector<char*> args;
    for (std::string& s : argStore)
        args.push_back(s.data());
    args.push_back(nullptr);

    pid_t pid = 0;
    const int rc = ::posix_spawnp(&pid, args[0], &actions, &attr, args.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) {
        if (rc == ENOENT)
            throw FetchError("cannot run " + argv[0] + ": not found on PATH (setscope needs it to fetch datasets" +
                             (argv[0] == "npm" ? std::string("; install it with: apt-get install npm") : std::string()) +
                             ")");
        throw FetchError("cannot run " + cmdText + ": " + std::strerror(rc));
    }
    return pid;
}

/// Reads the child's output until it closes it, line by line ("\n" ends a line, "\r" a non-empty
/// one: progress bars that redraw a line): each to options.onLine, the last options.keepLines
/// kept. Stops the group and throws job::Cancelled on cancel; stops it and rethrows when onLine
/// throws.
std::deque<std::string> readOutputLines(const Fd& readEnd, pid_t pid, const CommandOptions& options)
{
    std::deque<std::string> tail;
    std::string partial;
    auto emit = [&](std::string line) {
        if (options.onLine)
            options.onLine(line);
        tail.push_back(std::move(line));
        while (tail.size() > options.keepLines)
            tail.pop_front();
    };

    char buf[65536];
    bool eof = false;
    try {
        while (!eof) {
            if (options.control && options.control->cancelRequested()) {
                killGroup(pid);
                throw job::Cancelled();
            }
            pollfd p{readEnd.get(), POLLIN, 0};
            const int pr = ::poll(&p, 1, 200);
            if (pr < 0) {
                if (errno == EINTR)
                    continue;
                break;
            }
            if (pr == 0)
                continue;
            const ssize_t n = ::read(readEnd.get(), buf, sizeof buf);
            if (n < 0) {
                if (errno == EINTR || errno == EAGAIN)
                    continue;
                break;
            }
            if (n == 0) {
                eof = true;
                break;
            }
            for (ssize_t i = 0; i < n; ++i) {
                const char c = buf[i];
                if (c == '\n' || c == '\r') {
                    if (!partial.empty() || c == '\n')
                        emit(std::move(partial));
                    partial.clear();
                } else {
                    partial += c;
                }
            }
        }
        if (!partial.empty())
            emit(std::move(partial));
    } catch (const job::Cancelled&) {
        throw; // the group is already stopped
    } catch (...) {
        killGroup(pid); // e.g. the line callback threw: do not leave the child running
        throw;
    }

    return tail;
}

/// Waits for the child (which may have closed its output and kept running: cancel is honoured
/// meanwhile); its wait status (0 when it cannot be had).
int waitForExit(pid_t pid, const CommandOptions& options)
{
    int status = 0;
    for (;;) {
        const pid_t r = ::waitpid(pid, &status, WNOHANG);
        if (r == pid)
            break;
        if (r < 0 && errno != EINTR) {
            status = 0;
            break;
        }
        if (options.control && options.control->cancelRequested()) {
            killGroup(pid);
            throw job::Cancelled();
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return status;
}

} // namespace

CommandResult runCommand(const std::vector<std::string>& argv, const CommandOptions& options)
{
    if (argv.empty())
        throw std::invalid_argument("runCommand: empty argv");
    const std::string cmdText = commandLineText(argv);
    if (!options.workingDir.empty() && ::access(options.workingDir.c_str(), X_OK) != 0)
        throw FetchError("cannot run " + cmdText + " in " + options.workingDir + ": " + std::strerror(errno));

    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        throw FetchError("cannot create a pipe for " + cmdText + ": " + std::strerror(errno));
    Fd readEnd(fds[0]);
    Fd writeEnd(fds[1]);
    const pid_t pid = spawnInGroup(argv, options, cmdText, writeEnd.get());
    writeEnd.reset(); // the child's copy only: end of file once it closes its output
    const std::deque<std::string> tail = readOutputLines(readEnd, pid, options);
    const int status = waitForExit(pid, options);

    CommandResult result;
    result.exitCode = decodeStatus(status);
    result.lastLines.assign(tail.begin(), tail.end());
    if (result.exitCode != 0)
        throw CommandError(cmdText, result.exitCode, result.lastLines);
    return result;
}

} // namespace setscope::fetch
