// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/data/graph/Graph.h"

#include <setscope/sdk/DatasetSink.h>
#include <setscope/sdk/Registrar.h>

#include <string>

namespace setscope::data {

/// Reads the TUDataset text format. `path` is the folder holding DS_A.txt (exactly one
/// *_A.txt) or the DS_A.txt file itself. Reads DS_graph_indicator.txt (required),
/// DS_graph_labels.txt, DS_node_labels.txt, DS_node_attributes.txt when present; other
/// DS_*.txt files are ignored with a note. Throws InputError naming the file and line.
GraphCollection readTuDataset(const std::string& path);

/// True for a folder holding one *_A.txt with a *_graph_indicator.txt beside it, or such a
/// *_A.txt file.
bool looksLikeTuDataset(const std::string& path);

/// readTuDataset + emitGraphs.
void loadTuDataset(const std::string& path, sdk::DatasetSink& sink, const GraphOptions& options = {});

/// The registry's loader "tudataset".
sdk::LoaderInfo tuDatasetLoaderInfo();

} // namespace setscope::data
