// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/mesh/MeshReaders.h"

#include "core/data/mesh/ReaderSupport.h"
#include "core/util/Text.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace setscope::data::mesh {

namespace detail {

std::string readWholeFile(const std::string& path)
{
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f)
        throw InputError(path, "", std::string("cannot open: ") + std::strerror(errno));
    std::string data;
    char buf[1 << 16];
    std::size_t got = 0;
    while ((got = std::fread(buf, 1, sizeof buf, f)) > 0)
        data.append(buf, got);
    const bool failed = std::ferror(f) != 0;
    std::fclose(f);
    if (failed)
        throw InputError(path, InputError::atOffset(data.size()), "read error");
    return data;
}

} // namespace detail

using namespace detail;

TriangleMesh readXyz(const std::string& path)
{
    const std::string text = readWholeFile(path);
    LineReader lines(text);
    std::string_view line;
    TriangleMesh m;
    m.pointSet = true;
    while (lines.next(line)) {
        const std::string_view content = stripComment(line);
        if (content.empty())
            continue;
        const auto t = tokens(content, ",;");
        if (t.size() < 3)
            throw InputError(path, InputError::atLine(lines.lineNumber()),
                             "a point needs 3 coordinates (\"x y z\"), found " + std::to_string(t.size()) + " values");
        for (int k = 0; k < 3; ++k)
            m.vertices.push_back(parseCoordinate(t[k], path, lines.lineNumber(), "a coordinate"));
        checkFinite(m, m.vertexCount() - 1, path, InputError::atLine(lines.lineNumber()));
    }
    return m;
}

const std::vector<std::string>& meshExtensions()
{
    static const std::vector<std::string> ext{".off", ".ply", ".obj", ".stl", ".xyz"};
    return ext;
}

bool isMeshFile(const std::string& path)
{
    const std::string e = util::lowerExtension(path);
    const auto& all = meshExtensions();
    return std::find(all.begin(), all.end(), e) != all.end();
}

TriangleMesh readMeshFile(const std::string& path)
{
    const std::string e = util::lowerExtension(path);
    if (e == ".off")
        return readOff(path);
    if (e == ".ply")
        return readPly(path);
    if (e == ".obj")
        return readObj(path);
    if (e == ".stl")
        return readStl(path);
    if (e == ".xyz")
        return readXyz(path);
    throw InputError(path, "", "unknown mesh file extension \"" + e + "\" (expected .off, .ply, .obj, .stl or .xyz)");
}

} // namespace setscope::data::mesh
