// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
//
// Example plugin: reads the LIBSVM / SVMlight sparse format
//     <label> <index>:<value> <index>:<value> ...     (indices 1-based, ascending)
// one item per line, '#' starts a comment. The dimension is the largest index seen.
// Options after the path (declared below, checked by setscope before load() runs):
//     data.libsvm?zero-based=1     indices start at 0 (as some tools write them)
//     data.libsvm?dim=784          the dimension, when the last features are zero everywhere
// Copy this folder to start a plugin of your own.

#include <setscope/sdk/DatasetSink.h>
#include <setscope/sdk/Errors.h>
#include <setscope/sdk/LoadContext.h>
#include <setscope/sdk/Options.h>
#include <setscope/sdk/Plugin.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

using setscope::sdk::InputError;

struct Row {
    std::string label;
    std::vector<std::pair<int, float>> entries;
};

/// std::from_chars does not accept a leading '+', which LIBSVM files use for labels.
bool parseNumber(const std::string& s, double& v)
{
    const char* b = s.data();
    const char* e = s.data() + s.size();
    if (b != e && *b == '+')
        ++b;
    const auto r = std::from_chars(b, e, v);
    return r.ec == std::errc() && r.ptr == e;
}

bool canLoad(const std::string& path)
{
    const std::string ext = std::filesystem::path(path).extension().string();
    return ext == ".libsvm" || ext == ".svmlight" || ext == ".svm";
}

setscope::sdk::OptionSchema declaredOptions()
{
    using setscope::sdk::OptionSpec;
    return {OptionSpec::flag("zero-based", false, "feature indices start at 0 instead of 1"),
            OptionSpec::integer("dim", 0, 0, 100000000,
                                "the dimension (0: the largest index seen); larger indices are an error")};
}

void load(const std::string& path, const setscope::sdk::OptionValues& options, setscope::sdk::DatasetSink& sink,
          setscope::sdk::LoadContext& context)
{
    std::ifstream in(path);
    if (!in)
        throw InputError(path, "", "cannot open");
    // Column of feature index i: i - first.
    const int first = options.flag("zero-based") ? 0 : 1;
    const auto fixedDim = static_cast<int>(options.integer("dim"));
    std::vector<Row> rows;
    int dim = fixedDim;
    std::string line;
    for (std::uint64_t lineNo = 1; std::getline(in, line); ++lineNo) {
        if (lineNo % 10000 == 0)
            context.checkpoint(); // a long file can be cancelled
        if (const auto hash = line.find('#'); hash != std::string::npos)
            line.resize(hash);
        std::istringstream ls(line);
        Row r;
        if (!(ls >> r.label))
            continue; // blank line
        std::string tok;
        int prev = first - 1;
        while (ls >> tok) {
            const auto colon = tok.find(':');
            int idx = 0;
            float val = 0;
            const bool ok = colon != std::string::npos &&
                            std::from_chars(tok.data(), tok.data() + colon, idx).ec == std::errc() &&
                            std::from_chars(tok.data() + colon + 1, tok.data() + tok.size(), val).ec == std::errc();
            if (!ok)
                throw InputError(path, InputError::atLine(lineNo), "'" + tok + "' is not index:value");
            if (idx <= prev)
                throw InputError(path, InputError::atLine(lineNo),
                                 first == 1 ? "indices must be positive and ascending"
                                            : "indices must be ascending and not negative");
            if (fixedDim > 0 && idx - first >= fixedDim)
                throw InputError(path, InputError::atLine(lineNo),
                                 "index " + std::to_string(idx) + " is beyond dim=" + std::to_string(fixedDim));
            if (!std::isfinite(val))
                throw InputError(path, InputError::atLine(lineNo), "value at index " + std::to_string(idx) + " is not finite");
            prev = idx;
            dim = std::max(dim, idx - first + 1);
            r.entries.emplace_back(idx, val);
        }
        rows.push_back(std::move(r));
    }
    if (rows.empty())
        throw InputError(path, "", "no data lines");
    if (dim == 0)
        throw InputError(path, "", "no features on any line");

    std::set<double> uniq;
    for (const Row& r : rows) {
        double v = 0;
        if (!parseNumber(r.label, v))
            throw InputError(path, "", "label '" + r.label + "' is not a number");
        uniq.insert(v);
    }
    std::vector<std::string> names;
    std::map<double, int> id;
    for (double v : uniq) {
        id[v] = static_cast<int>(names.size());
        std::ostringstream os;
        os << v;
        names.push_back(os.str());
    }

    sink.setName(std::filesystem::path(path).stem().string());
    sink.addSourceFile(path);
    sink.setDimension(dim);
    sink.reserve(rows.size(), rows.size());
    sink.defineLabelSet("fine", names);
    std::vector<float> dense(static_cast<std::size_t>(dim));
    for (const Row& r : rows) {
        std::fill(dense.begin(), dense.end(), 0.0f);
        for (const auto& [i, v] : r.entries)
            dense[static_cast<std::size_t>(i - first)] = v;
        const std::size_t item = sink.addItem(dense.data(), nullptr, 1, setscope::sdk::Split::Train);
        double lv = 0;
        parseNumber(r.label, lv);
        sink.setLabel("fine", item, id[lv]);
    }
}

void registerAll(setscope::sdk::Registrar& r)
{
    r.addLoader({"libsvm", "LIBSVM / SVMlight sparse text (.libsvm, .svmlight, .svm) — example plugin",
                 {".libsvm", ".svmlight", ".svm"}, declaredOptions(), canLoad, load});
}

} // namespace

SETSCOPE_PLUGIN("libsvm-loader", "1.0", registerAll)
