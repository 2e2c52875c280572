// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace setscope::data::mesh {

/// A triangle soup read from a mesh file, or a bare point set (XYZ, PLY without faces).
/// Polygons are fan-triangulated on reading; faces with fewer than 3 corners are dropped
/// and counted in `skippedFaces`. Every index is < vertexCount() (readers check it) and
/// every coordinate is finite (readers check it).
struct TriangleMesh {
    std::vector<float> vertices;         ///< x y z per vertex, row-major
    std::vector<std::uint32_t> triangles; ///< 3 vertex indices per triangle
    /// True for inputs that carry no faces by design (XYZ, PLY without a face element):
    /// the vertices are the points, sampled directly instead of from the surface.
    bool pointSet = false;
    std::size_t skippedFaces = 0;        ///< faces with fewer than 3 corners (lines, points)
    std::vector<std::string> warnings;   ///< non-fatal oddities for the user (trailing bytes, ...)

    std::size_t vertexCount() const { return vertices.size() / 3; }
    std::size_t triangleCount() const { return triangles.size() / 3; }
};

/// Each reader throws sdk::InputError naming the file and the line (text formats) or byte
/// offset (binary formats) for malformed input: truncation, counts that disagree with the
/// header, indices out of range, non-finite coordinates, unknown types.

/// OFF (Princeton / ModelNet). Accepts "OFF", "COFF", "NOFF", "CNOFF", "STOFF" headers, the
/// ModelNet quirk of the counts glued to the keyword ("OFF490 518 0"), '#' comments and
/// blank lines; extra columns (colours, normals) after x y z / after a face's indices are
/// ignored. Lines beyond the declared counts are an error (the header is wrong).
TriangleMesh readOff(const std::string& path);

/// PLY, format ascii / binary_little_endian / binary_big_endian 1.0. Reads element
/// "vertex" (properties x y z of any numeric type, among any others) and element "face"
/// (list property vertex_indices or vertex_index, any integer count and index types);
/// every other element and property is skipped by its declared layout. A file with no
/// face element is a point set.
TriangleMesh readPly(const std::string& path);

/// Wavefront OBJ: "v x y z [w]" and "f" with i, i/t, i//n, i/t/n corners (negative =
/// relative to the vertices read so far); several objects / groups are merged into one
/// mesh; vt, vn, l, p, mtllib, usemtl, g, o, s and unknown statements are ignored.
TriangleMesh readObj(const std::string& path);

/// STL, binary or ascii. Binary is recognised by its size (84 + 50 x the triangle count at
/// byte 80) even when the file starts with "solid", as many exporters write.
TriangleMesh readStl(const std::string& path);

/// XYZ point list: one point per line, "x y z" plus optional extra columns (normals,
/// colours), separated by spaces, tabs, commas or semicolons; '#' comments. A point set.
TriangleMesh readXyz(const std::string& path);

/// The extensions readMeshFile() understands (lower case, with the dot).
const std::vector<std::string>& meshExtensions();
/// True when `path`'s extension (case-insensitive) is one of meshExtensions().
bool isMeshFile(const std::string& path);
/// Dispatches on the extension. Throws InputError for an unknown extension.
TriangleMesh readMeshFile(const std::string& path);

} // namespace setscope::data::mesh
