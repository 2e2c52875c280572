// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Child process of tst_project_store: applies childedits::edit(k) for k = first, first+1, ...
// each in its own transaction, and after each applyEdit() returns (the COMMIT is on disk)
// prints k on its own line and flushes. Runs `count` edits, or until killed when count is 0.
//
//   tst_project_store_child <project> <labelSetId> <first> <count>
#include "ChildEdits.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

int main(int argc, char** argv)
{
    if (argc != 5) {
        std::fprintf(stderr, "usage: %s <project> <labelSetId> <first> <count>\n", argv[0]);
        return 2;
    }
    using namespace setscope::project;
    try {
        const auto store = ProjectStore::open(argv[1]);
        const std::int64_t labelSet = std::stoll(argv[2]);
        const std::int64_t first = std::stoll(argv[3]);
        const std::int64_t count = std::stoll(argv[4]);
        for (std::int64_t k = first; count == 0 || k < first + count; ++k) {
            store->applyEdit(labelSet, childedits::edit(k), "edit " + std::to_string(k));
            std::printf("%lld\n", static_cast<long long>(k));
            std::fflush(stdout);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "tst_project_store_child: %s\n", e.what());
        return 1;
    }
    return 0;
}
