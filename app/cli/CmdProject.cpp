// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "CliContext.h"
#include "Commands.h"

#include "core/eval/Metrics.h"
#include "core/project/ProjectStore.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

namespace setscope::cli {

void addProjectCommand(CLI::App& app, ContextFn, int& rc)
{
    auto* cmd = app.add_subcommand("project", "Show a project file: datasets, label sets and their edits, runs with "
                                              "their final metrics and checkpoints");
    auto file = std::make_shared<std::string>();
    auto check = std::make_shared<bool>(false);
    cmd->add_option("file", *file, "project file (*.setscope)")->required();
    cmd->add_flag("--check", *check, "also run a full integrity check");
    cmd->callback([file, check, &rc] {
        if (!std::filesystem::exists(*file))
            throw std::runtime_error(*file + ": no such project file");
        const auto store = project::ProjectStore::open(*file);
        std::printf("project %s\n", file->c_str());
        for (const auto& d : store->datasets()) {
            std::printf("dataset %lld  %s  (%lld items, hash %s)\n  %s\n", static_cast<long long>(d.id), d.name.c_str(),
                        static_cast<long long>(d.items), d.contentHash.c_str(), d.path.c_str());
            for (const auto& ls : store->labelSets(d.id)) {
                const auto hist = store->history(ls.id);
                int undone = 0;
                for (const auto& e : hist)
                    undone += e.undone;
                std::printf("  label set %-10s %zu classes, %zu edits (%d undone)\n", ls.name.c_str(),
                            ls.classNames.size(), hist.size(), undone);
            }
        }
        for (const auto& r : store->runs()) {
            // The values of the last recorded row, in the order they were recorded (whatever
            // their names: projects written before the values were named hold knn_accuracy,
            // recall@K and mean_loss).
            std::vector<project::MetricRecord> last;
            for (const auto& m : store->metrics(r.id)) {
                if (!last.empty() && (m.epoch != last.back().epoch || m.step != last.back().step))
                    last.clear();
                last.push_back(m);
            }
            std::printf("run %lld  dataset %lld  %-9s started %s\n", static_cast<long long>(r.id),
                        static_cast<long long>(r.datasetId), r.status.c_str(), r.startedAt.c_str());
            if (!last.empty()) {
                std::string line = "  epoch " + std::to_string(last.front().epoch) + ":";
                for (const auto& m : last) {
                    char v[48];
                    std::snprintf(v, sizeof v, " %.5g", m.value);
                    line += " " + eval::shortMetricName(m.name) + v;
                }
                std::printf("%s\n", line.c_str());
            }
            if (!r.note.empty())
                std::printf("  note: %s\n", r.note.c_str());
            const auto cks = store->checkpoints(r.id);
            if (!cks.empty())
                std::printf("  %zu checkpoints, last: %s\n", cks.size(), cks.back().path.c_str());
        }
        rc = 0;
        if (*check) {
            const auto problems = store->integrityProblems();
            for (const auto& p : problems)
                std::printf("PROBLEM: %s\n", p.c_str());
            std::printf("integrity: %s\n", problems.empty() ? "ok" : "damaged");
            rc = problems.empty() ? 0 : 3;
        }
    });
}

} // namespace setscope::cli
