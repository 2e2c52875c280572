// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/data/Dataset.h"
#include "core/plugin/Registry.h"
#include "core/workspace/ItemText.h"

#include <memory>
#include <string>
#include <vector>

namespace setscope::model {
class ModelHandle;
}

namespace setscope::cli {

/// What every command shares: the registry (built-ins + plugins) and dataset opening.
struct CliContext {
    plugin::Registry registry;
    std::vector<std::string> pluginErrors;
    std::string executable;

    explicit CliContext(std::string exe);
    /// Opens DATASET (a name or a path); prints loader notes to stderr.
    std::shared_ptr<const data::Dataset> openDataset(const std::string& spec) const;
};

/// Formats a number of seconds as "1m05s" / "42.1s".
std::string formatSeconds(double s);

/// Item i's class name in label set `labelSet`, "-" when the set is missing or i is unlabelled.
using workspace::labelOf;

/// `i` as an item index of `ds` (workspace::requireItem); otherwise throws sdk::InputError
/// ("--query: 99 is not an item of 'brown' (0..499)"), a bad option: exit status 2.
std::size_t checkItem(const data::Dataset& ds, std::int64_t i, const char* what);

/// Refuses (sdk::InputError naming `checkpoint`) a model whose element size is not the
/// dataset's, or -- unless `allowOtherData` (--allow-other-data) -- one trained on other data.
void checkModelFitsDataset(const model::ModelHandle& model, const data::Dataset& ds, const std::string& checkpoint,
                           bool allowOtherData);

} // namespace setscope::cli
