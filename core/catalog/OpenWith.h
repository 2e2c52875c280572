// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// Reading a path with a chosen loader: what every way of opening a dataset comes down to.

#include "core/catalog/DatasetCatalog.h"

#include <setscope/sdk/Registrar.h>

#include <map>
#include <string>

namespace setscope::catalog {

/// Reads `path` with `loader`: `optionText` ("key=value,...") is resolved against the options
/// the loader declares, with `defaults` in place of the loader's own where given. `what` names
/// the input in messages (the path, or the built-in source's name); `name`, when given,
/// replaces the name the loader gave the dataset. Progress and cancel from `context`.
data::Dataset openWith(const sdk::LoaderInfo& loader, const std::string& path, const std::string& optionText,
                       const std::map<std::string, std::string>& defaults, const std::string& what,
                       const OpenContext& context, const std::string& name = {});

} // namespace setscope::catalog
