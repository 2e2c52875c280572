// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The built-in loaders, in the order the registry tries them (a pack first: its magic bytes
// decide, whatever the file's name). Each entry lives with its reader in core/data, except the
// document loaders, which pick their word vectors from the catalogue (core/catalog).
#include "core/builtins/Builtins.h"

#include "core/catalog/CorpusLoaders.h"
#include "core/data/DatasetPack.h"
#include "core/data/IdxLoader.h"
#include "core/data/KusnerMat.h"
#include "core/data/VectorLoaders.h"
#include "core/data/graph/Sdf.h"
#include "core/data/graph/TuDataset.h"
#include "core/data/mesh/PointCloudLoader.h"

namespace setscope::builtins {

void registerLoaders(sdk::Registrar& r)
{
    r.addLoader(data::datasetPackLoaderInfo());
    r.addLoader(data::idxLoaderInfo());
    r.addLoader(data::npyLoaderInfo());
    r.addLoader(data::csvLoaderInfo());
    r.addLoader(data::mesh::meshLoaderInfo());
    r.addLoader(data::mesh::pointCloudFolderLoaderInfo());
    r.addLoader(data::tuDatasetLoaderInfo());
    r.addLoader(data::sdfLoaderInfo());
    r.addLoader(catalog::corpusTsvLoaderInfo());
    r.addLoader(catalog::corpusFolderLoaderInfo());
    r.addLoader(data::kusnerMatLoaderInfo());
}

} // namespace setscope::builtins
