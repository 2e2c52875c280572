// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Fuzz target of the project file reader (see FuzzTargets.h).
#include "tests/fuzz/targets/FuzzTargets.h"

#include "core/project/ProjectStore.h"

namespace setscope::fuzz {

void projectFile(const std::uint8_t* data, std::size_t size)
{
    const TempDir dir("project");
    const std::string path = dir.write("p.setscope", std::string_view(reinterpret_cast<const char*>(data), size));
    try {
        const auto store = project::ProjectStore::open(path);
        (void)store->integrityProblems();
        // Everything a GUI session reads when it opens a project.
        for (const project::DatasetRecord& d : store->datasets())
            for (const project::LabelSetRecord& l : store->labelSets(d.id)) {
                (void)store->labels(l.id);
                (void)store->labelMapping(l.id);
                (void)store->canUndo(l.id);
                (void)store->canRedo(l.id);
                for (const project::EditRecord& e : store->history(l.id))
                    (void)store->editChanges(e.id);
            }
        for (const project::RunRecord& r : store->runs()) {
            (void)store->metrics(r.id);
            (void)store->checkpoints(r.id);
        }
    } catch (const project::ProjectError&) {
    }
}

} // namespace setscope::fuzz
