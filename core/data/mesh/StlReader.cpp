// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/mesh/ReaderSupport.h"

#include <bit>
#include <cstring>
#include <limits>

namespace setscope::data::mesh {

using namespace detail;

namespace {

std::uint32_t u32le(const char* p)
{
    unsigned char b[4];
    std::memcpy(b, p, 4);
    return std::uint32_t(b[0]) | (std::uint32_t(b[1]) << 8) | (std::uint32_t(b[2]) << 16) | (std::uint32_t(b[3]) << 24);
}

float f32le(const char* p) { return std::bit_cast<float>(u32le(p)); }

bool startsWithSolid(std::string_view d)
{
    std::size_t i = 0;
    while (i < d.size() && isSpace(d[i]))
        ++i;
    return d.substr(i, 5) == "solid";
}

/// Binary files carry float bytes; ascii ones are plain text. Looks at the first 1 KiB past
/// the 80-byte header for bytes that never occur in an ascii STL.
bool looksBinary(std::string_view d)
{
    const std::size_t end = std::min<std::size_t>(d.size(), 1024);
    for (std::size_t i = std::min<std::size_t>(80, end); i < end; ++i) {
        const auto c = static_cast<unsigned char>(d[i]);
        if (c == 0 || c > 126 || (c < 32 && !isSpace(static_cast<char>(c))))
            return true;
    }
    return false;
}

TriangleMesh readBinary(const std::string& path, std::string_view d)
{
    if (d.size() < 84)
        throw InputError(path, InputError::atOffset(d.size()),
                         "truncated binary STL: " + std::to_string(d.size()) + " bytes, less than the 84-byte header");
    const std::uint64_t n = u32le(d.data() + 80);
    const std::uint64_t need = 84 + 50 * n;
    if (d.size() < need)
        throw InputError(path, InputError::atOffset(d.size()),
                         "truncated binary STL: the header declares " + std::to_string(n) + " triangles (" +
                             std::to_string(need) + " bytes), the file has " + std::to_string(d.size()) + " bytes");
    // Corner k of triangle t becomes vertex 3t + k, a 32-bit index: refused, not truncated,
    // beyond that (a 71 GB file).
    if (n > std::numeric_limits<std::uint32_t>::max() / 3)
        throw InputError(path, InputError::atOffset(80),
                         "the header declares " + std::to_string(n) + " triangles, more than the " +
                             std::to_string(std::numeric_limits<std::uint32_t>::max() / 3) + " a mesh can index");
    TriangleMesh m;
    if (d.size() > need)
        m.warnings.push_back(path + ": " + std::to_string(d.size() - need) +
                             " bytes after the triangles the binary STL header declares were ignored");
    m.vertices.resize(9 * n);
    m.triangles.resize(3 * n);
    for (std::uint64_t t = 0; t < n; ++t) {
        const char* rec = d.data() + 84 + 50 * t + 12; // skip the facet normal
        for (int k = 0; k < 9; ++k)
            m.vertices[9 * t + k] = f32le(rec + 4 * k);
        for (int c = 0; c < 3; ++c) {
            m.triangles[3 * t + c] = static_cast<std::uint32_t>(3 * t + c);
            checkFinite(m, 3 * t + c, path, InputError::atOffset(84 + 50 * t + 12 + 12 * c));
        }
    }
    return m;
}

TriangleMesh readAscii(const std::string& path, std::string_view d)
{
    LineReader lines(d);
    std::string_view line;
    TriangleMesh m;
    std::vector<std::uint32_t> loop;
    bool inLoop = false, ended = false;
    std::uint64_t loopLine = 0;
    while (lines.next(line)) {
        const auto t = tokens(line);
        if (t.empty())
            continue;
        const std::string where = InputError::atLine(lines.lineNumber());
        if (t[0] == "outer") {
            inLoop = true;
            loop.clear();
            loopLine = lines.lineNumber();
        } else if (t[0] == "vertex") {
            if (!inLoop)
                throw InputError(path, where, "\"vertex\" outside an \"outer loop\"");
            if (t.size() < 4)
                throw InputError(path, where, "a vertex needs 3 coordinates");
            for (int k = 0; k < 3; ++k)
                m.vertices.push_back(parseCoordinate(t[1 + k], path, lines.lineNumber(), "a vertex coordinate"));
            checkFinite(m, m.vertexCount() - 1, path, where);
            loop.push_back(cornerIndex(m.vertexCount() - 1, path, where));
        } else if (t[0] == "endloop") {
            if (!inLoop)
                throw InputError(path, where, "\"endloop\" without \"outer loop\"");
            addPolygon(m, loop);
            inLoop = false;
        } else if (t[0] == "endsolid") {
            ended = true;
        }
        // solid, facet normal, endfacet: nothing to keep.
    }
    if (inLoop)
        throw InputError(path, InputError::atLine(loopLine), "truncated ascii STL: this facet's loop never ends");
    if (!ended)
        throw InputError(path, InputError::atLine(lines.lineNumber()), "truncated ascii STL: no \"endsolid\" line");
    return m;
}

} // namespace

TriangleMesh readStl(const std::string& path)
{
    const std::string data = readWholeFile(path);
    const std::string_view d(data);
    if (d.size() >= 84 && 84 + 50 * std::uint64_t(u32le(d.data() + 80)) == d.size())
        return readBinary(path, d); // even when it starts with "solid"
    if (startsWithSolid(d) && !looksBinary(d))
        return readAscii(path, d);
    return readBinary(path, d);
}

} // namespace setscope::data::mesh
