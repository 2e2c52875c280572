// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Fuzz targets of the mesh readers: OFF, PLY, OBJ, STL, XYZ (see FuzzTargets.h).
#include "tests/fuzz/targets/FuzzTargets.h"

#include "core/data/mesh/MeshReaders.h"

#include <setscope/sdk/Errors.h>

#include <cmath>
#include <stdexcept>

namespace setscope::fuzz {

namespace {

void readMesh(const std::uint8_t* data, std::size_t size, const char* suffix,
              data::mesh::TriangleMesh (*reader)(const std::string&))
{
    const TempFile f(data, size, suffix);
    try {
        const data::mesh::TriangleMesh m = reader(f.path());
        // What MeshReaders.h promises of an accepted mesh; a broken promise escapes as a
        // std::logic_error, which is a finding (it is not an InputError).
        if (m.vertices.size() % 3 != 0 || m.triangles.size() % 3 != 0)
            throw std::logic_error("vertex or index array not a multiple of 3");
        for (const auto t : m.triangles)
            if (static_cast<std::size_t>(t) >= m.vertexCount())
                throw std::logic_error("triangle index " + std::to_string(t) + " >= vertex count");
        for (const float v : m.vertices)
            if (!std::isfinite(v))
                throw std::logic_error("non-finite coordinate accepted");
    } catch (const sdk::InputError&) {
    }
}

} // namespace

void meshOff(const std::uint8_t* data, std::size_t size) { readMesh(data, size, ".off", data::mesh::readOff); }
void meshPly(const std::uint8_t* data, std::size_t size) { readMesh(data, size, ".ply", data::mesh::readPly); }
void meshObj(const std::uint8_t* data, std::size_t size) { readMesh(data, size, ".obj", data::mesh::readObj); }
void meshStl(const std::uint8_t* data, std::size_t size) { readMesh(data, size, ".stl", data::mesh::readStl); }
void meshXyz(const std::uint8_t* data, std::size_t size) { readMesh(data, size, ".xyz", data::mesh::readXyz); }

} // namespace setscope::fuzz
