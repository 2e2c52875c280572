// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "CliContext.h"
#include "ConsoleSink.h"

#include "core/builtins/Builtins.h"
#include "core/catalog/DatasetCatalog.h"
#include "core/model/ModelHandle.h"
#include "core/workspace/ItemText.h"
#include "core/workspace/Retrieval.h"

#include <setscope/sdk/Errors.h>

#include <cstdio>
#include <iostream>
#include <stdexcept>

namespace setscope::cli {

CliContext::CliContext(std::string exe)
    : executable(std::move(exe))
{
    builtins::registerBuiltins(registry);
    for (const auto& dir : plugin::defaultPluginDirectories(executable, &pluginErrors)) {
        auto errs = registry.loadPluginDirectory(dir);
        pluginErrors.insert(pluginErrors.end(), errs.begin(), errs.end());
    }
    for (const auto& e : pluginErrors)
        std::cerr << "setscope-cli: " << e << "\n";
}

std::shared_ptr<const data::Dataset> CliContext::openDataset(const std::string& spec) const
{
    // Progress of long loads (mesh folders, word vectors) on stderr. Ctrl-C simply ends the
    // process: loaders write their caches atomically.
    ConsoleSink sink;
    auto ds = std::make_shared<const data::Dataset>(catalog::openDataset(spec, registry, catalog::OpenContext{&sink, nullptr}));
    sink.finished(job::JobStatus::Finished, {}); // clears a progress bar
    for (const auto& n : ds->notes())
        std::cerr << "note: " << n << "\n";
    return ds;
}

std::string formatSeconds(double s)
{
    char buf[32];
    if (s < 60)
        std::snprintf(buf, sizeof buf, "%.1fs", s);
    else
        std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
    return buf;
}

std::size_t checkItem(const data::Dataset& ds, std::int64_t i, const char* what)
{
    try {
        return workspace::requireItem(ds, i, "");
    } catch (const std::invalid_argument& e) {
        throw sdk::InputError(what, "", e.what()); // a bad option: exit status 2
    }
}

void checkModelFitsDataset(const model::ModelHandle& model, const data::Dataset& ds, const std::string& checkpoint,
                           bool allowOtherData)
{
    const std::string why = workspace::modelMismatch(model, ds, allowOtherData);
    if (why.empty())
        return;
    if (model.inputDim() != ds.dim())
        throw sdk::InputError(checkpoint, "", why);
    throw sdk::InputError(checkpoint, "", why + "; open the dataset it was trained on, or pass --allow-other-data to use it anyway");
}

} // namespace setscope::cli
