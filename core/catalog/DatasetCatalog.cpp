// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/catalog/DatasetCatalog.h"

#include "core/catalog/OpenWith.h"
#include "core/catalog/Sources.h"
#include "core/data/text/Documents.h"
#include "core/job/JobLoadContext.h"
#include "core/plugin/Registry.h"
#include "core/util/SpecOptions.h"

#include <filesystem>
#include <stdexcept>

namespace fs = std::filesystem;

namespace setscope::catalog {

std::vector<BuiltinDataset> builtinDatasets()
{
    std::vector<BuiltinDataset> out;
    for (const NamedSource& s : namedSources())
        out.push_back(s.describe());
    return out;
}

data::Dataset openWith(const sdk::LoaderInfo& loader, const std::string& path, const std::string& optionText,
                       const std::map<std::string, std::string>& defaults, const std::string& what,
                       const OpenContext& context, const std::string& name)
{
    const std::string owner = what + ": loader " + loader.name;
    const sdk::OptionValues values =
        util::resolveSpecOptions(util::withDefaults(loader.options, defaults, owner), optionText, owner);
    data::DatasetBuilder b(path);
    job::JobLoadContext jobContext(context.sink, context.control);
    try {
        loader.load(path, values, b, jobContext);
    } catch (const std::invalid_argument& e) {
        // A loader's own checks of its options (fold < folds, threshold a number) name it too.
        throw std::invalid_argument(owner + ": " + e.what());
    }
    if (!name.empty())
        b.setName(name);
    return b.finish();
}

namespace {

/// A file or folder, with "?options" for its loader.
data::Dataset openPath(const std::string& spec, const plugin::Registry& registry, const OpenContext& context)
{
    std::string path = spec, options;
    std::error_code ec;
    if (const auto q = spec.rfind('?'); q != std::string::npos && q > 0 && !fs::exists(spec, ec)) {
        path = spec.substr(0, q);
        options = spec.substr(q + 1);
    }
    return openWith(registry.loaderFor(path), path, options, {}, path, context);
}

} // namespace

data::Dataset openDataset(const std::string& spec, const plugin::Registry& registry, const OpenContext& context)
{
    // "SPEC+SUFFIX" or "SPEC+SUFFIX=ARGUMENT": a transform of the dataset SPEC opens.
    for (const SpecTransform& t : specTransforms()) {
        const auto at = spec.rfind(t.suffix);
        if (at == std::string::npos || at == 0)
            continue;
        const std::string rest = spec.substr(at + t.suffix.size());
        if (!rest.empty() && rest[0] != '=')
            throw std::invalid_argument("'" + spec + "': expected SPEC" + t.suffix + " or SPEC" + t.suffix + "=VALUE");
        return t.apply(openDataset(spec.substr(0, at), registry, context), rest.empty() ? rest : rest.substr(1), spec);
    }
    // A dataset known by name, "NAME" or "NAME:key=value,...": generated data and installed
    // copies first, then a path that exists, then the fetched sources.
    const auto [name, options] = util::splitSpec(spec);
    std::error_code ec;
    const bool isPath = fs::exists(spec, ec);
    for (const NamedSource& s : namedSources())
        if (s.name == name && (s.beforePaths || !isPath))
            return s.open(options, registry, context);
    return openPath(spec, registry, context);
}

data::DocumentSource wordVectorSource(const std::string& spec)
{
    if (spec.empty())
        return data::DocumentSource::fromEnvironment();
    if (const std::string file = wordVectorsFile(spec); !file.empty()) {
        data::DocumentSource s;
        s.kind = data::DocumentSource::Kind::File;
        s.path = file;
        return s;
    }
    return data::DocumentSource::parse(spec);
}

} // namespace setscope::catalog
