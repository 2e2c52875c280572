// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/data/graph/Graph.h"

#include <setscope/sdk/DatasetSink.h>
#include <setscope/sdk/Registrar.h>

#include <string>

namespace setscope::data {

/// Reads an MDL SD file (or a single V2000 molfile): atoms become nodes labelled by their
/// element, with attributes "formal charge" and "aromatic bonds"; bonds become edges.
/// `options.classProperty` / `threshold` set Graph::label. Throws InputError naming the file
/// and line (and the record for a missing class property); V3000 is refused.
GraphCollection readSdf(const std::string& path, const GraphOptions& options = {});

/// True for .sdf, .sd and .mol files.
bool looksLikeSdf(const std::string& path);

/// readSdf + emitGraphs.
void loadSdf(const std::string& path, sdk::DatasetSink& sink, const GraphOptions& options = {});

/// The registry's loader "sdf".
sdk::LoaderInfo sdfLoaderInfo();

} // namespace setscope::data
