// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/data/mesh/SurfaceSampler.h"

#include <setscope/sdk/DatasetSink.h>
#include <setscope/sdk/LoadContext.h>
#include <setscope/sdk/Options.h>
#include <setscope/sdk/Registrar.h>

#include <string>

namespace setscope::data::mesh {

struct PointCloudOptions {
    SamplingOptions sampling;
    /// Worker threads for the folder loader; 0 = std::thread::hardware_concurrency().
    /// The result does not depend on it.
    int threads = 0;
    /// The folder load fails when more than this fraction of the files cannot be read.
    double maxFailedFraction = 0.10;
    /// How many of the failures are quoted in the dataset's notes.
    int quotedFailures = 5;

    /// The mesh loader's options (one file): points, seed, jitter. Defaults as above.
    static sdk::OptionSchema fileSchema();
    /// The pointcloud-folder loader's options: fileSchema() and threads.
    static sdk::OptionSchema folderSchema();
    /// From values resolved against fileSchema() or folderSchema().
    static PointCloudOptions fromValues(const sdk::OptionValues& values);
};

/// One mesh / point file as a dataset of one item: options.sampling.points 3-D points of
/// weight 1, split train, unlabelled. Throws InputError for a bad file.
void loadMeshFile(const std::string& path, sdk::DatasetSink& sink, const PointCloudOptions& options = {});

/// True when `path` is a directory with at least one category sub-folder holding mesh files
/// directly or in train/ or test/ (checks a few entries only).
bool looksLikePointCloudFolder(const std::string& path);

/// A folder-per-category collection (ModelNet40 layout):
///   root/<category>/train/*.{off,ply,obj,stl,xyz}  and  root/<category>/test/*...
/// or, without train/test folders, root/<category>/*.{...}, split per category: files sorted
/// by XXH3-64 of their relative path, the first round(0.8 n) train, the rest test.
/// Label set "fine": the categories holding at least one file, sorted by name. Items are in
/// (category, split folder, file name) order, each options.sampling.points 3-D points of
/// weight 1.
///
/// Files that cannot be read are skipped, counted and the first few errors noted; the load
/// throws InputError when none loads or more than options.maxFailedFraction fail.
/// Work is spread over options.threads threads; `context` (may be null) gets progress on the
/// calling thread about 10 times a second and is polled there for cancel (its checkpoint()
/// throws; job::Cancelled when it does not) and by the workers for pause.
void loadPointCloudFolder(const std::string& root, sdk::DatasetSink& sink, const PointCloudOptions& options = {},
                          sdk::LoadContext* context = nullptr);

/// The registry's loaders "mesh" (one file) and "pointcloud-folder" (ModelNet40's layout).
sdk::LoaderInfo meshLoaderInfo();
sdk::LoaderInfo pointCloudFolderLoaderInfo();

} // namespace setscope::data::mesh
