// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/mesh/ReaderSupport.h"

namespace setscope::data::mesh {

using namespace detail;

TriangleMesh readObj(const std::string& path)
{
    const std::string text = readWholeFile(path);
    LineReader lines(text);
    std::string_view line;
    TriangleMesh m;
    std::vector<std::uint32_t> corners;
    while (lines.next(line)) {
        const std::string_view content = stripComment(line);
        if (content.size() < 2)
            continue;
        const bool isVertex = content[0] == 'v' && isSpace(content[1]);
        const bool isFace = content[0] == 'f' && isSpace(content[1]);
        if (!isVertex && !isFace)
            continue; // vt, vn, l, p, g, o, s, mtllib, usemtl, curves...: not needed for sampling
        const auto t = tokens(content);
        const std::string where = InputError::atLine(lines.lineNumber());
        if (isVertex) {
            if (t.size() < 4)
                throw InputError(path, where, "a vertex needs 3 coordinates (\"v x y z\")");
            for (int k = 0; k < 3; ++k)
                m.vertices.push_back(parseCoordinate(t[1 + k], path, lines.lineNumber(), "a vertex coordinate"));
            checkFinite(m, m.vertexCount() - 1, path, where);
            continue;
        }
        corners.clear();
        const auto nv = static_cast<std::int64_t>(m.vertexCount());
        for (std::size_t k = 1; k < t.size(); ++k) {
            const std::string_view corner = t[k].substr(0, t[k].find('/'));
            std::int64_t idx = 0;
            if (!parseNumber(corner, idx))
                throw InputError(path, where, "expected a vertex index in \"" + shortToken(t[k]) + "\"");
            if (idx == 0)
                throw InputError(path, where, "vertex index 0 is not valid (OBJ indices start at 1)");
            const std::int64_t resolved = idx > 0 ? idx - 1 : nv + idx;
            if (resolved < 0 || resolved >= nv)
                throw InputError(path, where,
                                 "face uses vertex " + std::to_string(idx) + " but only " + std::to_string(nv) +
                                     " vertices are defined before this line");
            corners.push_back(cornerIndex(static_cast<std::uint64_t>(resolved), path, where));
        }
        addPolygon(m, corners);
    }
    return m;
}

} // namespace setscope::data::mesh
