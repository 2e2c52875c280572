// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// Internal to core/data/mesh: shared pieces of the mesh readers.

#include "core/data/mesh/MeshReaders.h"
#include "core/util/CheckedMath.h"
#include "core/util/LineReader.h"

#include <setscope/sdk/Errors.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace setscope::data::mesh::detail {

using sdk::InputError;

/// The whole file as bytes. Throws InputError when it cannot be opened or read.
std::string readWholeFile(const std::string& path);

/// The one line rule of setscope (util/LineReader.h): "\n", "\r\n" or a lone "\r" ends a line.
using LineReader = util::LineReader;

inline bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r' || c == '\n'; }

/// Whitespace-separated tokens of `line` (extra separators may be given, e.g. ",;").
inline std::vector<std::string_view> tokens(std::string_view line, std::string_view extraSeparators = {})
{
    std::vector<std::string_view> out;
    std::size_t i = 0;
    auto sep = [&](char c) { return isSpace(c) || extraSeparators.find(c) != std::string_view::npos; };
    while (i < line.size()) {
        while (i < line.size() && sep(line[i]))
            ++i;
        const std::size_t b = i;
        while (i < line.size() && !sep(line[i]))
            ++i;
        if (i > b)
            out.push_back(line.substr(b, i - b));
    }
    return out;
}

/// `line` without a '#' comment and surrounding white space.
inline std::string_view stripComment(std::string_view line)
{
    const auto h = line.find('#');
    if (h != std::string_view::npos)
        line = line.substr(0, h);
    while (!line.empty() && isSpace(line.front()))
        line.remove_prefix(1);
    while (!line.empty() && isSpace(line.back()))
        line.remove_suffix(1);
    return line;
}

/// Parses a whole token as a number; false when it is not one. Accepts a leading '+'.
template <class T>
bool parseNumber(std::string_view tok, T& out)
{
    if (!tok.empty() && tok.front() == '+')
        tok.remove_prefix(1);
    const char* b = tok.data();
    const char* e = b + tok.size();
    auto r = std::from_chars(b, e, out);
    return r.ec == std::errc() && r.ptr == e;
}

inline float parseCoordinate(std::string_view tok, const std::string& path, std::uint64_t line, const char* what)
{
    double v = 0;
    if (!parseNumber(tok, v))
        throw InputError(path, InputError::atLine(line),
                         std::string("expected a number for ") + what + ", found \"" + std::string(tok) + "\"");
    return static_cast<float>(v);
}

inline std::string shortToken(std::string_view t)
{
    return t.size() > 40 ? std::string(t.substr(0, 40)) + "..." : std::string(t);
}

/// Throws InputError(path, location) when any coordinate of vertex `v` is NaN or infinite.
inline void checkFinite(const TriangleMesh& m, std::size_t v, const std::string& path, const std::string& location)
{
    for (int k = 0; k < 3; ++k)
        if (!std::isfinite(m.vertices[3 * v + k]))
            throw InputError(path, location,
                             "vertex " + std::to_string(v) + " has a non-finite coordinate (NaN or infinity)");
}

/// Vertex number `v` as a triangle corner index (TriangleMesh::triangles holds 32-bit
/// indices). Throws InputError(path, location) instead of truncating a larger number.
inline std::uint32_t cornerIndex(std::uint64_t v, const std::string& path, const std::string& location)
{
    const std::optional<std::uint32_t> i = util::checkedCast<std::uint32_t>(v);
    if (!i)
        throw InputError(path, location,
                         "vertex " + std::to_string(v) + " is beyond the 4294967295 vertices a mesh can index");
    return *i;
}

/// Fan-triangulates polygon `corners` (indices already checked) into `m`; polygons with
/// fewer than 3 corners are counted in m.skippedFaces.
inline void addPolygon(TriangleMesh& m, const std::vector<std::uint32_t>& corners)
{
    if (corners.size() < 3) {
        ++m.skippedFaces;
        return;
    }
    for (std::size_t k = 1; k + 1 < corners.size(); ++k) {
        m.triangles.push_back(corners[0]);
        m.triangles.push_back(corners[k]);
        m.triangles.push_back(corners[k + 1]);
    }
}

} // namespace setscope::data::mesh::detail
