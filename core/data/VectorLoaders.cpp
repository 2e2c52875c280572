// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/VectorLoaders.h"

#include "core/data/Csv.h"

#include "core/util/CheckedMath.h"
#include "core/util/FloatRange.h"
#include "core/util/Memory.h"
#include "core/util/Text.h"

#include <setscope/sdk/Errors.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string_view>

#include <locale.h>
#include <stdlib.h>

namespace fs = std::filesystem;

namespace setscope::data {

using sdk::InputError;
using sdk::Split;

namespace {

template <class T>
T loadLE(const unsigned char* p, bool bigEndian)
{
    T v;
    unsigned char b[sizeof(T)];
    std::memcpy(b, p, sizeof(T));
    if (bigEndian != (std::endian::native == std::endian::big))
        std::reverse(b, b + sizeof(T));
    std::memcpy(&v, b, sizeof(T));
    return v;
}

bool parseFloat(const std::string& s, float& out)
{
    if (s.empty())
        return false;
    const char* b = s.data();
    const char* e = s.data() + s.size();
    if (*b == '+')
        ++b;
    auto r = std::from_chars(b, e, out);
    if (r.ec == std::errc::result_out_of_range && r.ptr == e) {
        // A number float cannot hold: one too large is infinite for the checks that follow
        // (refused with its row), one too small rounds to zero (as NumPy's float32 does).
        // Which of the two, by strtod in the C locale (not the user's: "1.5e-50" must not read as 1).
        static const locale_t cLocale = ::newlocale(LC_ALL_MASK, "C", static_cast<locale_t>(nullptr));
        const double wide = cLocale ? ::strtod_l(b, nullptr, cLocale) : std::strtod(b, nullptr);
        out = std::fabs(wide) >= 1.0 ? (wide < 0 ? -INFINITY : INFINITY) : (wide < 0 ? -0.0f : 0.0f);
        return true;
    }
    if (r.ec == std::errc::result_out_of_range)
        return false;
    if (r.ec == std::errc() && r.ptr == e)
        return true;
    // from_chars rejects "nan"/"inf" spellings some tools write; accept them so that the
    // builder can report them as NaN/infinite with the row number.
    const std::string l = util::toLower(s);
    if (l == "nan" || l == "-nan") {
        out = std::nanf("");
        return true;
    }
    if (l == "inf" || l == "infinity" || l == "-inf" || l == "-infinity") {
        out = l[0] == '-' ? -INFINITY : INFINITY;
        return true;
    }
    return false;
}

/// A shape as NumPy prints it: "(2, 3)", "(4,)", "()".
std::string shapeString(const std::vector<std::uint64_t>& shape)
{
    std::string s = "(";
    for (std::size_t i = 0; i < shape.size(); ++i)
        s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + (shape.size() == 1 ? ",)" : ")");
}

/// The entries of a header's shape tuple, e.g. "2, 3" or "4," (Python 2 writers may add
/// an 'L' to each). Throws InputError for anything but non-negative integers that fit in
/// 64 bits: a larger value is refused, not wrapped or truncated.
std::vector<std::uint64_t> parseShape(const std::string& text, const std::string& path, std::size_t headerStart)
{
    std::vector<std::uint64_t> shape;
    const std::string_view all(text);
    std::size_t b = 0;
    for (;;) {
        const std::size_t comma = all.find(',', b);
        const bool last = comma == std::string_view::npos;
        std::string_view tok = all.substr(b, last ? std::string_view::npos : comma - b);
        while (!tok.empty() && std::isspace(static_cast<unsigned char>(tok.front())))
            tok.remove_prefix(1);
        while (!tok.empty() && std::isspace(static_cast<unsigned char>(tok.back())))
            tok.remove_suffix(1);
        if (tok.empty()) {
            // Only "(4,)" (a trailing comma) and "()" have an empty entry, and only at the end.
            if (!last || (shape.empty() && b > 0))
                throw InputError(path, InputError::atOffset(headerStart), "header: shape (" + text + ") has an empty entry");
            break;
        }
        if (tok.size() > 1 && (tok.back() == 'L' || tok.back() == 'l'))
            tok.remove_suffix(1);
        std::uint64_t d = 0;
        const auto r = std::from_chars(tok.data(), tok.data() + tok.size(), d);
        if (r.ec == std::errc::result_out_of_range)
            throw InputError(path, InputError::atOffset(headerStart),
                             "header: shape (" + text + ") has a dimension that does not fit in 64 bits");
        if (r.ec != std::errc() || r.ptr != tok.data() + tok.size())
            throw InputError(path, InputError::atOffset(headerStart),
                             "header: shape (" + text + ") holds '" + std::string(tok) + "', not a non-negative integer");
        shape.push_back(d);
        if (last)
            break;
        b = comma + 1;
    }
    return shape;
}

bool isMetadataColumn(const std::string& name)
{
    const std::string l = util::toLower(name);
    return l == "label" || l == "fine" || l == "coarse" || l == "split" || l == "id" || l.rfind("label:", 0) == 0;
}

std::string labelSetNameOf(const std::string& column)
{
    const std::string l = util::toLower(column);
    if (l == "label" || l == "fine")
        return "fine";
    if (l == "coarse")
        return "coarse";
    if (l.rfind("label:", 0) == 0)
        return column.substr(6);
    return {};
}

/// Class names in a stable order: numerically when every name is an integer, else
/// lexicographically. Empty cells are unlabelled.
std::vector<std::string> classNamesOf(const CsvTable& t, int col)
{
    std::set<std::string> uniq;
    for (const auto& r : t.rows)
        if (!r[static_cast<std::size_t>(col)].empty())
            uniq.insert(r[static_cast<std::size_t>(col)]);
    std::vector<std::string> names(uniq.begin(), uniq.end());
    const bool numeric = std::all_of(names.begin(), names.end(), [](const std::string& s) {
        long long v;
        auto r = std::from_chars(s.data(), s.data() + s.size(), v);
        return r.ec == std::errc() && r.ptr == s.data() + s.size();
    });
    if (numeric)
        std::sort(names.begin(), names.end(),
                  [](const std::string& a, const std::string& b) { return std::stoll(a) < std::stoll(b); });
    return names;
}

Split parseSplit(const std::string& v, const std::string& path, std::uint64_t line)
{
    const std::string l = util::toLower(v);
    if (l == "train" || l == "training" || l.empty())
        return Split::Train;
    if (l == "val" || l == "valid" || l == "validation")
        return Split::Val;
    if (l == "test" || l == "testing")
        return Split::Test;
    throw InputError(path, InputError::atLine(line), "split '" + v + "' is not train, val or test");
}

/// Splits from the table (or all train); labels applied after the items exist.
std::vector<Split> splitsOf(const CsvTable& t, const std::string& path)
{
    std::vector<Split> s(t.rows.size(), Split::Train);
    const int c = t.column("split");
    if (c >= 0)
        for (std::size_t i = 0; i < t.rows.size(); ++i)
            s[i] = parseSplit(t.rows[i][static_cast<std::size_t>(c)], path, t.rowLines[i]);
    return s;
}

void applyLabelColumns(const CsvTable& t, sdk::DatasetSink& sink, std::size_t firstItem)
{
    for (std::size_t c = 0; c < t.header.size(); ++c) {
        const std::string ls = labelSetNameOf(t.header[c]);
        if (ls.empty())
            continue;
        const std::vector<std::string> names = classNamesOf(t, static_cast<int>(c));
        std::map<std::string, std::int32_t> id;
        for (std::size_t k = 0; k < names.size(); ++k)
            id[names[k]] = static_cast<std::int32_t>(k);
        sink.defineLabelSet(ls, names);
        for (std::size_t i = 0; i < t.rows.size(); ++i) {
            const std::string& v = t.rows[i][c];
            if (!v.empty())
                sink.setLabel(ls, firstItem + i, id[v]);
        }
    }
}

} // namespace

NpyArray readNpy(const std::string& path, std::uint64_t extraBytesPerValue)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw InputError(path, "", "cannot open");
    // The header first: the payload is read only once its size has been checked against the
    // file and the memory budget.
    std::error_code sizeError;
    const std::uint64_t fileBytes = fs::file_size(path, sizeError);
    if (sizeError)
        throw InputError(path, "", "cannot read: " + sizeError.message());
    std::vector<unsigned char> bytes;
    const auto readUpTo = [&](std::uint64_t end) {
        const std::size_t have = bytes.size();
        if (end <= have)
            return;
        bytes.resize(static_cast<std::size_t>(std::min(end, fileBytes)));
        in.read(reinterpret_cast<char*>(bytes.data() + have), static_cast<std::streamsize>(bytes.size() - have));
        bytes.resize(have + static_cast<std::size_t>(in.gcount()));
    };
    readUpTo(12);
    if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0)
        throw InputError(path, InputError::atOffset(0), "wrong magic string: not a .npy file");
    const int major = bytes[6];
    std::size_t headerLen, headerStart;
    if (major == 1) {
        headerLen = loadLE<std::uint16_t>(&bytes[8], false);
        headerStart = 10;
    } else if (major == 2 || major == 3) {
        if (bytes.size() < 12)
            throw InputError(path, InputError::atOffset(bytes.size()), "truncated header");
        headerLen = loadLE<std::uint32_t>(&bytes[8], false);
        headerStart = 12;
    } else {
        throw InputError(path, InputError::atOffset(6), "unsupported .npy format version " + std::to_string(major));
    }
    readUpTo(headerStart + headerLen);
    if (headerStart + headerLen > bytes.size())
        throw InputError(path, InputError::atOffset(bytes.size()), "truncated header");
    const std::string header(bytes.begin() + static_cast<std::ptrdiff_t>(headerStart),
                             bytes.begin() + static_cast<std::ptrdiff_t>(headerStart + headerLen));

    std::smatch m;
    if (!std::regex_search(header, m, std::regex(R"('descr'\s*:\s*'([<>|=])([a-z])(\d+)')")))
        throw InputError(path, InputError::atOffset(headerStart), "header has no 'descr'");
    const char order = m[1].str()[0];
    const char kind = m[2].str()[0];
    const std::string sizeText = m[3].str();
    int size = 0; // stays 0 (unsupported) when the digits do not fit in an int
    std::from_chars(sizeText.data(), sizeText.data() + sizeText.size(), size);
    const bool big = order == '>';
    const bool fortran = std::regex_search(header, std::regex(R"('fortran_order'\s*:\s*True)"));
    if (!std::regex_search(header, m, std::regex(R"('shape'\s*:\s*\(([^)]*)\))")))
        throw InputError(path, InputError::atOffset(headerStart), "header has no 'shape'");
    NpyArray a;
    a.shape = parseShape(m[1].str(), path, headerStart);

    const bool supported = (kind == 'f' && (size == 4 || size == 8)) || (kind == 'u' && size == 1) ||
                           (kind == 'i' && (size == 1 || size == 2 || size == 4 || size == 8));
    if (!supported)
        throw InputError(path, InputError::atOffset(headerStart),
                         std::string("dtype '") + kind + sizeText + "' is not supported (float32/64, uint8, int8/16/32/64)");
    // The element count and byte size come from the header: checked, so that a shape whose
    // product wraps around 2^64 cannot pass as a small array.
    const std::optional<std::uint64_t> count = util::checkedProduct<std::uint64_t>(a.shape);
    if (!count)
        throw InputError(path, InputError::atOffset(headerStart),
                         "header: shape " + shapeString(a.shape) + " has more elements than fit in 64 bits");
    const std::uint64_t n = *count;
    const std::optional<std::uint64_t> needBytes = util::checkedMul<std::uint64_t>(n, static_cast<std::uint64_t>(size));
    if (!needBytes)
        throw InputError(path, InputError::atOffset(headerStart),
                         "header: shape " + shapeString(a.shape) + " of " + std::to_string(size) +
                             "-byte elements needs more bytes than fit in 64 bits");
    const std::size_t dataStart = headerStart + headerLen;
    const std::uint64_t need = *needBytes;
    // Checked before anything is allocated for the payload.
    if (fileBytes - dataStart < need)
        throw InputError(path, InputError::atOffset(fileBytes),
                         "truncated: shape needs " + std::to_string(need) + " data bytes, file has " +
                             std::to_string(fileBytes - dataStart));
    if (fileBytes - dataStart > need)
        throw InputError(path, InputError::atOffset(dataStart + need), "trailing bytes after the array data");
    // The bytes, their float32 values (twice while a Fortran-order array is reordered) and what
    // the caller makes of them (extraBytesPerValue), weighed before any of it is allocated.
    util::requireMemory(path,
                        need + n * (sizeof(float) * (fortran && a.shape.size() > 1 ? 2 : 1) + extraBytesPerValue),
                        "an array of shape " + shapeString(a.shape) + " read as float32");
    readUpTo(dataStart + need);
    if (bytes.size() - dataStart < need)
        throw InputError(path, InputError::atOffset(bytes.size()),
                         "truncated: shape needs " + std::to_string(need) + " data bytes, could read " +
                             std::to_string(bytes.size() - dataStart));

    a.data.resize(n);
    const unsigned char* p = bytes.data() + dataStart;
    for (std::uint64_t i = 0; i < n; ++i, p += size) {
        float v = 0;
        if (kind == 'f')
            v = size == 4 ? loadLE<float>(p, big) : static_cast<float>(loadLE<double>(p, big));
        else if (kind == 'u')
            v = static_cast<float>(*p);
        else if (size == 1)
            v = static_cast<float>(static_cast<std::int8_t>(*p));
        else if (size == 2)
            v = static_cast<float>(loadLE<std::int16_t>(p, big));
        else if (size == 4)
            v = static_cast<float>(loadLE<std::int32_t>(p, big));
        else
            v = static_cast<float>(loadLE<std::int64_t>(p, big));
        a.data[i] = v;
    }
    if (fortran && a.shape.size() > 1) {
        // Fortran order: first index fastest. Reorder to C order.
        std::vector<float> c(n);
        const std::size_t nd = a.shape.size();
        std::vector<std::uint64_t> idx(nd, 0);
        for (std::uint64_t f = 0; f < n; ++f) {
            std::uint64_t ci = 0;
            for (std::size_t d = 0; d < nd; ++d)
                ci = ci * a.shape[d] + idx[d];
            c[ci] = a.data[f];
            for (std::size_t d = 0; d < nd; ++d) {
                if (++idx[d] < a.shape[d])
                    break;
                idx[d] = 0;
            }
        }
        a.data.swap(c);
    }
    return a;
}

void writeNpy(const std::string& path, const float* data, const std::vector<std::uint64_t>& shape)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out)
        throw std::runtime_error(path + ": cannot write");
    writeNpy(out, data, shape);
    if (!out)
        throw std::runtime_error(path + ": write failed");
}

void writeNpy(std::ostream& out, const float* data, const std::vector<std::uint64_t>& shape)
{
    std::string shapeText = "(";
    std::uint64_t n = 1;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        shapeText += std::to_string(shape[i]);
        shapeText += (shape.size() == 1 || i + 1 < shape.size()) ? "," : "";
        if (i + 1 < shape.size())
            shapeText += " ";
        n *= shape[i];
    }
    shapeText += ")";
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shapeText + ", }";
    const std::size_t total = 10 + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header += '\n';
    out.write("\x93NUMPY\x01\x00", 8);
    const auto hl = static_cast<std::uint16_t>(header.size());
    const unsigned char lenBytes[2] = {static_cast<unsigned char>(hl & 0xff), static_cast<unsigned char>(hl >> 8)};
    out.write(reinterpret_cast<const char*>(lenBytes), 2);
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    static_assert(std::endian::native == std::endian::little, "writeNpy assumes a little-endian host");
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(n * sizeof(float)));
}

void loadNpy(const std::string& path, sdk::DatasetSink& sink)
{
    // The dataset holds the values once more as float32, plus a weight per element.
    const NpyArray a = readNpy(path, 2 * sizeof(float));
    if (a.shape.size() != 2 && a.shape.size() != 3)
        throw InputError(path, "", "expected a 2-D (items x dim) or 3-D (items x set size x dim) array, shape has " +
                                       std::to_string(a.shape.size()) + " dimensions");
    const std::uint64_t n = a.shape[0];
    const std::uint64_t s = a.shape.size() == 3 ? a.shape[1] : 1;
    const std::uint64_t d = a.shape.back();
    if (n == 0 || s == 0 || d == 0)
        throw InputError(path, "", "array is empty");
    const std::optional<int> dim = util::checkedCast<int>(d);
    if (!dim)
        throw InputError(path, "", "header: shape " + shapeString(a.shape) + ": the vector dimension " + std::to_string(d) +
                                       " is larger than setscope's limit of " +
                                       std::to_string(std::numeric_limits<int>::max()));
    sink.setName(fs::path(path).stem().string());
    sink.addSourceFile(path);

    const fs::path p(path);
    CsvTable meta;
    bool haveMeta = false;
    for (const fs::path& cand : {fs::path(p).replace_extension(".csv"), fs::path(p).replace_extension(".labels.csv")}) {
        if (fs::is_regular_file(cand)) {
            meta = readCsv(cand.string());
            sink.addSourceFile(cand.string());
            if (meta.rows.size() != n)
                throw InputError(cand.string(), "",
                                 "has " + std::to_string(meta.rows.size()) + " rows but " + path + " has " +
                                     std::to_string(n) + " items");
            haveMeta = true;
            break;
        }
    }
    if (!haveMeta)
        sink.note(path + ": no metadata table (" + p.stem().string() + ".csv) beside it; items are unlabelled");

    const std::vector<Split> splits = haveMeta ? splitsOf(meta, meta.header.empty() ? path : p.string())
                                               : std::vector<Split>(n, Split::Train);
    sink.setDimension(*dim);
    sink.reserve(n, n * s); // n * s * d elements were read from the file: no overflow
    for (std::uint64_t i = 0; i < n; ++i)
        sink.addItem(a.data.data() + i * s * d, nullptr, s, splits[i]);
    if (haveMeta)
        applyLabelColumns(meta, sink, 0);
}

void loadCsvVectors(const std::string& path, sdk::DatasetSink& sink)
{
    const CsvTable t = readCsv(path);
    std::vector<std::size_t> features;
    for (std::size_t c = 0; c < t.header.size(); ++c)
        if (!isMetadataColumn(t.header[c]))
            features.push_back(c);
    if (features.empty())
        throw InputError(path, InputError::atLine(1), "no feature columns (every column is label/split/id metadata)");
    if (t.rows.empty())
        throw InputError(path, "", "no data rows after the header");
    sink.setName(fs::path(path).stem().string());
    sink.addSourceFile(path);
    const std::vector<Split> splits = splitsOf(t, path);
    sink.setDimension(static_cast<int>(features.size()));
    sink.reserve(t.rows.size(), t.rows.size());
    std::vector<float> v(features.size());
    const double bound = util::maxSafeMagnitude(static_cast<int>(features.size()));
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
        for (std::size_t k = 0; k < features.size(); ++k) {
            const std::string& cell = t.rows[i][features[k]];
            if (!parseFloat(cell, v[k]))
                throw InputError(path, InputError::atLine(t.rowLines[i]),
                                 "column '" + t.header[features[k]] + "': '" + cell + "' is not a number");
            if (!(std::fabs(v[k]) <= bound)) // also NaN; util/FloatRange.h
                throw InputError(path, InputError::atLine(t.rowLines[i]),
                                 "column '" + t.header[features[k]] + "' is " +
                                     util::valueProblem(v[k], static_cast<int>(features.size())));
        }
        sink.addItem(v.data(), nullptr, 1, splits[i]);
    }
    applyLabelColumns(t, sink, 0);
}

sdk::LoaderInfo npyLoaderInfo()
{
    return {"npy", "NumPy .npy vectors (N x D) or sets (N x S x D), labels from a .csv beside it",
            {".npy"},
            {},
            [](const std::string& p) { return util::lowerExtension(p) == ".npy"; },
            [](const std::string& p, const sdk::OptionValues&, sdk::DatasetSink& s, sdk::LoadContext&) { loadNpy(p, s); }};
}

sdk::LoaderInfo csvLoaderInfo()
{
    return {"csv", "CSV table of vectors with label / coarse / split columns",
            {".csv"},
            {},
            [](const std::string& p) { return util::lowerExtension(p) == ".csv"; },
            [](const std::string& p, const sdk::OptionValues&, sdk::DatasetSink& s, sdk::LoadContext&) {
                loadCsvVectors(p, s);
            }};
}

} // namespace setscope::data
