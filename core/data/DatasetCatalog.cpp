// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/DatasetCatalog.h"

#include "core/data/IdxLoader.h"
#include "core/data/SpecOptions.h"
#include "core/data/graph/Sdf.h"
#include "core/data/graph/TuDataset.h"
#include "core/data/mesh/PointCloudLoader.h"
#include "core/data/Synthetic.h"
#include "core/data/Transform.h"
#include "core/plugin/Registry.h"

#include <cstdint>
#include <cstdlib>
#include <filesystem>

namespace fs = std::filesystem;

namespace setscope::data {

std::string fashionMnistDir()
{
    if (const char* env = std::getenv("SETSCOPE_FASHION_MNIST_DIR"); env && *env)
        return env;
    return "/usr/share/datasets/fashion-mnist";
}

std::vector<BuiltinDataset> builtinDatasets()
{
    std::vector<BuiltinDataset> out;
    {
        BuiltinDataset d;
        d.name = "fashion-mnist";
        d.description = "Fashion-MNIST: 70 000 28x28 grey images of clothing, 10 classes (4 coarse groups), "
                        "official 60 000 / 10 000 train/test split";
        d.location = fashionMnistDir();
        std::error_code ec;
        d.available = looksLikeIdx(d.location) && fs::is_directory(d.location, ec);
        d.howToGet = "apt-get install dataset-fashion-mnist";
        out.push_back(d);
    }
    {
        BuiltinDataset d;
        d.name = "synthetic";
        d.description = "Hierarchical Gaussian clusters (fine classes nested in coarse ones, as in Weak Metric "
                        "Learning's toy data); options: synthetic:dim=3,coarse=4,fine=2,points=150,set=1";
        d.available = true;
        out.push_back(d);
    }
    return out;
}

namespace {

mesh::PointCloudOptions pointCloudOptions(const std::string& what, const std::string& text)
{
    SpecOptions o(what, text);
    mesh::PointCloudOptions p;
    p.sampling.points = static_cast<int>(o.integer("points", p.sampling.points, 1, 1 << 20));
    p.sampling.seed = static_cast<std::uint64_t>(o.integer("seed", 1, 0, INT64_MAX));
    p.sampling.jitter = o.flag("jitter", p.sampling.jitter);
    p.threads = static_cast<int>(o.integer("threads", 0, 0, 1024));
    o.finish();
    return p;
}

/// A file or folder, with "?options" for the loaders that take them.
Dataset openPath(const std::string& spec, const plugin::Registry& registry, const OpenContext& context)
{
    std::string path = spec, options;
    std::error_code ec;
    if (const auto q = spec.rfind('?'); q != std::string::npos && q > 0 && !fs::exists(spec, ec)) {
        path = spec.substr(0, q);
        options = spec.substr(q + 1);
    }
    const sdk::LoaderInfo& loader = registry.loaderFor(path);
    DatasetBuilder b(path);
    if (loader.name == "tudataset") {
        loadTuDataset(path, b, GraphOptions::parse(options));
    } else if (loader.name == "sdf") {
        loadSdf(path, b, GraphOptions::parse(options));
    } else if (loader.name == "mesh") {
        mesh::loadMeshFile(path, b, pointCloudOptions(path, options));
    } else if (loader.name == "pointcloud-folder") {
        mesh::loadPointCloudFolder(path, b, pointCloudOptions(path, options), context.sink, context.control);
    } else {
        if (!options.empty())
            throw std::invalid_argument("'" + spec + "': the " + loader.name + " loader takes no options");
        loader.load(path, b);
    }
    return b.finish();
}

} // namespace

Dataset openDataset(const std::string& spec, const plugin::Registry& registry, const OpenContext& context)
{
    // "SPEC+pointsets" or "SPEC+pointsets=0.2": images (or square vectors) as point sets.
    if (const auto plus = spec.rfind("+pointsets"); plus != std::string::npos && plus > 0) {
        const std::string rest = spec.substr(plus + 10);
        float threshold = 0.0f;
        if (!rest.empty()) {
            std::size_t used = 0;
            try {
                if (rest[0] != '=')
                    throw std::invalid_argument("");
                threshold = std::stof(rest.substr(1), &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used == 0 || used + 1 != rest.size())
                throw std::invalid_argument("'" + spec + "': expected SPEC+pointsets or SPEC+pointsets=THRESHOLD");
        }
        return imagesAsPointsets(openDataset(spec.substr(0, plus), registry, context), threshold);
    }
    if (spec == "fashion-mnist") {
        const std::string dir = fashionMnistDir();
        std::error_code ec;
        if (!fs::is_directory(dir, ec) || !looksLikeIdx(dir))
            throw sdk::InputError(dir, "", "Fashion-MNIST is not installed here; run: apt-get install dataset-fashion-mnist "
                                           "(or set SETSCOPE_FASHION_MNIST_DIR to a folder with its IDX files)");
        DatasetBuilder b(dir);
        registry.loaderFor(dir).load(dir, b);
        b.setName("fashion-mnist");
        return b.finish();
    }
    if (spec == "synthetic" || spec.rfind("synthetic:", 0) == 0)
        return makeHierarchicalGaussians(SyntheticSpec::parse(spec.size() > 10 ? spec.substr(10) : std::string()));
    return openPath(spec, registry, context);
}

} // namespace setscope::data
