// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "MeshFixtures.h"

#include "core/data/mesh/MeshReaders.h"
#include "core/data/mesh/SurfaceSampler.h"
#include "tests/core/data/AllocationCap.h"

#include <setscope/sdk/Errors.h>

#include <QtTest>

#include <cmath>
#include <set>

using namespace setscope::data::mesh;
using setscope::sdk::InputError;
using namespace meshtest;

namespace {

/// Triangles as sorted-corner position triples, so two meshes can be compared independently
/// of vertex numbering and of the corner order's rotation.
std::multiset<std::vector<float>> triangleSet(const TriangleMesh& m)
{
    std::multiset<std::vector<float>> out;
    for (std::size_t t = 0; t < m.triangleCount(); ++t) {
        std::vector<std::vector<float>> c;
        for (int k = 0; k < 3; ++k) {
            const std::uint32_t v = m.triangles[3 * t + k];
            c.push_back({m.vertices[3 * v], m.vertices[3 * v + 1], m.vertices[3 * v + 2]});
        }
        std::sort(c.begin(), c.end());
        out.insert({c[0][0], c[0][1], c[0][2], c[1][0], c[1][1], c[1][2], c[2][0], c[2][1], c[2][2]});
    }
    return out;
}

TriangleMesh tetraReference()
{
    TriangleMesh m;
    m.vertices = tetraVertices();
    for (int i : tetraFaces())
        m.triangles.push_back(std::uint32_t(i));
    return m;
}

/// Sum of triangle areas, computed here (not with the sampler's code).
double totalArea(const TriangleMesh& m)
{
    double a = 0;
    for (std::size_t t = 0; t < m.triangleCount(); ++t) {
        const float* p = &m.vertices[3 * m.triangles[3 * t]];
        const float* q = &m.vertices[3 * m.triangles[3 * t + 1]];
        const float* r = &m.vertices[3 * m.triangles[3 * t + 2]];
        const double u[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]}, w[3] = {r[0] - p[0], r[1] - p[1], r[2] - p[2]};
        const double cx = u[1] * w[2] - u[2] * w[1], cy = u[2] * w[0] - u[0] * w[2], cz = u[0] * w[1] - u[1] * w[0];
        a += 0.5 * std::sqrt(cx * cx + cy * cy + cz * cz);
    }
    return a;
}

const char* kCubeOffBody = "8 6 12\n"
                           "0 0 0\n1 0 0\n1 1 0\n0 1 0\n0 0 1\n1 0 1\n1 1 1\n0 1 1\n"
                           "4 0 3 2 1\n4 4 5 6 7\n4 0 1 5 4\n4 2 3 7 6\n4 1 2 6 5\n4 0 4 7 3\n";

struct Caught {
    QString what;
    QString location;
};

template <class F>
Caught errorOf(F&& f)
{
    try {
        f();
    } catch (const InputError& e) {
        return {QString::fromStdString(e.what()), QString::fromStdString(e.location())};
    }
    return {};
}

/// The whole pipeline on a mesh: throws what the loader would throw for a mesh that reads.
void sampleIt(const TriangleMesh& m)
{
    std::mt19937_64 rng(1);
    meshToPointCloud(m, SamplingOptions{}, rng, "x");
}

} // namespace

class TestMeshReaders : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() { QVERIFY(m_dir.isValid()); }
    void offCube_data();
    void offCube();
    void offColouredVariant();
    void plyAsciiAndBinary_data();
    void plyAsciiAndBinary();
    void plyWithoutFacesIsPointSet();
    void plyElementWithoutPropertiesIsSkipped();
    void objFormsAndObjects();
    void stlAsciiAndBinary_data();
    void stlAsciiAndBinary();
    void xyzExtraColumns();
    void nonManifoldLoads();
    void badInput_data();
    void badInput();
    void emptyAndDegenerateMeshes_data();
    void emptyAndDegenerateMeshes();

private:
    QString path(const QString& name) const { return m_dir.filePath(name); }
    QTemporaryDir m_dir;
};

void TestMeshReaders::offCube_data()
{
    QTest::addColumn<QString>("text");
    QTest::newRow("plain") << QString("OFF\n") + kCubeOffBody;
    QTest::newRow("comments and blank lines") << QString("OFF # Princeton\n# a cube\n\n") + kCubeOffBody + "\n# end\n";
    // ModelNet40 quirk: the counts glued to the keyword.
    QTest::newRow("glued header") << QString("OFF") + kCubeOffBody;
    QTest::newRow("crlf") << QString("OFF\r\n") + QString(kCubeOffBody).replace("\n", "\r\n");
}

void TestMeshReaders::offCube()
{
    QFETCH(QString, text);
    writeText(path("cube.off"), text.toStdString());
    const TriangleMesh m = readMeshFile(path("cube.off").toStdString());
    QCOMPARE(m.vertexCount(), std::size_t(8));
    QCOMPARE(m.triangleCount(), std::size_t(12)); // 6 quads, fan-triangulated
    QVERIFY(!m.pointSet);
    QCOMPARE(m.vertices[3 * 6 + 2], 1.0f);
    QVERIFY(std::abs(totalArea(m) - 6.0) < 1e-9);
    // The fan of quad 0 3 2 1: triangles (0 3 2) and (0 2 1).
    QCOMPARE(m.triangles[0], 0u);
    QCOMPARE(m.triangles[1], 3u);
    QCOMPARE(m.triangles[2], 2u);
    QCOMPARE(m.triangles[5], 1u);
}

void TestMeshReaders::offColouredVariant()
{
    // COFF: RGBA after each vertex; faces may carry a colour after their indices.
    writeText(path("tetra.off"), "COFF\n4 4 0\n0 0 0 255 0 0 255\n1 0 0 0 255 0 255\n0 1 0 0 0 255 255\n"
                                 "0 0 1 9 9 9 255\n3 0 2 1 1 0 0\n3 0 1 3\n3 0 3 2\n3 1 2 3 0.5 0.5 0.5\n");
    const TriangleMesh m = readOff(path("tetra.off").toStdString());
    QCOMPARE(triangleSet(m), triangleSet(tetraReference()));
}

void TestMeshReaders::plyAsciiAndBinary_data()
{
    QTest::addColumn<QString>("format");
    QTest::newRow("ascii") << "ascii";
    QTest::newRow("binary_little_endian") << "binary_little_endian";
    QTest::newRow("binary_big_endian") << "binary_big_endian";
}

void TestMeshReaders::plyAsciiAndBinary()
{
    QFETCH(QString, format);
    // Coordinates of three different types among other properties, an element to skip
    // (with a list) between vertex and face, and a property after the face list.
    const std::string header = "ply\nformat " + format.toStdString() +
                               " 1.0\ncomment made by hand\n"
                               "element vertex 4\nproperty double x\nproperty uchar red\nproperty float y\n"
                               "property short z\nproperty float nx\n"
                               "element material 2\nproperty list uchar float values\nproperty int id\n"
                               "element face 4\nproperty list uchar int vertex_indices\nproperty uchar flags\n"
                               "end_header\n";
    const auto& v = tetraVertices();
    const auto& f = tetraFaces();
    std::vector<unsigned char> b;
    putText(b, header);
    if (format == "ascii") {
        std::string body;
        for (int i = 0; i < 4; ++i)
            body += std::to_string(v[3 * i]) + " 200 " + std::to_string(v[3 * i + 1]) + " " +
                    std::to_string(int(v[3 * i + 2])) + " 0.5\n";
        body += "3 1.5 2.5 3.5 7\n0 8\n";
        for (int t = 0; t < 4; ++t)
            body += "3 " + std::to_string(f[3 * t]) + " " + std::to_string(f[3 * t + 1]) + " " +
                    std::to_string(f[3 * t + 2]) + " 1\n";
        putText(b, body);
    } else {
        const bool be = format == "binary_big_endian";
        for (int i = 0; i < 4; ++i) {
            put<double>(b, v[3 * i], be);
            put<std::uint8_t>(b, 200, be);
            put<float>(b, v[3 * i + 1], be);
            put<std::int16_t>(b, std::int16_t(v[3 * i + 2]), be);
            put<float>(b, 0.5f, be);
        }
        put<std::uint8_t>(b, 3, be);
        for (float x : {1.5f, 2.5f, 3.5f})
            put<float>(b, x, be);
        put<std::int32_t>(b, 7, be);
        put<std::uint8_t>(b, 0, be);
        put<std::int32_t>(b, 8, be);
        for (int t = 0; t < 4; ++t) {
            put<std::uint8_t>(b, 3, be);
            for (int k = 0; k < 3; ++k)
                put<std::int32_t>(b, f[3 * t + k], be);
            put<std::uint8_t>(b, 1, be);
        }
    }
    writeBytes(path("tetra.ply"), b);
    const TriangleMesh m = readMeshFile(path("tetra.ply").toStdString());
    QCOMPARE(m.vertices, tetraVertices());
    QCOMPARE(triangleSet(m), triangleSet(tetraReference()));
    QVERIFY(m.warnings.empty());
}

void TestMeshReaders::plyWithoutFacesIsPointSet()
{
    std::vector<unsigned char> b;
    putText(b, "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
               "property float z\nproperty uint8 alpha\nelement face 0\nproperty list uint8 uint32 vertex_index\nend_header\n");
    for (int i = 0; i < 3; ++i) {
        for (int k = 0; k < 3; ++k)
            put<float>(b, float(i + k));
        put<std::uint8_t>(b, 255);
    }
    writeBytes(path("points.ply"), b);
    const TriangleMesh m = readPly(path("points.ply").toStdString());
    QVERIFY(m.pointSet);
    QCOMPARE(m.vertices, (std::vector<float>{0, 1, 2, 1, 2, 3, 2, 3, 4}));
}

void TestMeshReaders::plyElementWithoutPropertiesIsSkipped()
{
    // Rows of no properties take no bytes, so no file size bounds their count: the reader
    // must not walk 2^64 - 1 empty rows.
    writeText(path("e.ply"), "ply\nformat ascii 1.0\nelement junk 18446744073709551615\nelement vertex 3\n"
                             "property float x\nproperty float y\nproperty float z\nend_header\n"
                             "0 0 0\n1 0 0\n0 1 0\n");
    const TriangleMesh m = readMeshFile(path("e.ply").toStdString());
    QVERIFY(m.pointSet);
    QCOMPARE(m.vertexCount(), std::size_t(3));
    QCOMPARE(m.vertices[3], 1.0f);
}

void TestMeshReaders::objFormsAndObjects()
{
    // Two objects: a quad with v/vt/vn corners and a triangle with negative indices,
    // plus statements that do not matter for sampling.
    writeText(path("two.obj"), "# exported\nmtllib scene.mtl\no quad\ng quad_group\nusemtl red\ns 1\n"
                               "v 0 0 0\nv 2 0 0\nv 2 1 0\nv 0 1 0 1.0\nvt 0 0\nvt 1 0\nvt 1 1\nvn 0 0 1\n"
                               "f 1/1/1 2/2/1 3/3/1 4/1/1\n"
                               "o tri\nv 0 0 5\nv 1 0 5\nv 0 1 5 0.2 0.3 0.4\nvn 0 0 1\nusemtl blue\n"
                               "f -3//1 -2//2 -1//1\nl 1 2\nf 5/1 6/2 7/3\n");
    const TriangleMesh m = readObj(path("two.obj").toStdString());
    QCOMPARE(m.vertexCount(), std::size_t(7));
    QCOMPARE(m.triangleCount(), std::size_t(4)); // quad -> 2, then two triangles
    QVERIFY(std::abs(totalArea(m) - (2.0 + 0.5 + 0.5)) < 1e-9);
    // -3 .. -1 after 7 vertices are 5, 6, 7 (1-based), i.e. 4, 5, 6.
    QCOMPARE(m.triangles[6], 4u);
    QCOMPARE(m.triangles[8], 6u);
}

void TestMeshReaders::stlAsciiAndBinary_data()
{
    QTest::addColumn<int>("kind");
    QTest::newRow("ascii") << 0;
    QTest::newRow("binary") << 1;
    QTest::newRow("binary starting with solid") << 2;
}

void TestMeshReaders::stlAsciiAndBinary()
{
    QFETCH(int, kind);
    if (kind == 0) {
        const auto& v = tetraVertices();
        const auto& f = tetraFaces();
        std::string s = "solid tetra\n";
        for (int t = 0; t < 4; ++t) {
            s += "  facet normal 0 0 0\n    outer loop\n";
            for (int c = 0; c < 3; ++c)
                s += "      vertex " + std::to_string(v[3 * f[3 * t + c]]) + " " + std::to_string(v[3 * f[3 * t + c] + 1]) +
                     " " + std::to_string(v[3 * f[3 * t + c] + 2]) + "\n";
            s += "    endloop\n  endfacet\n";
        }
        s += "endsolid tetra\n";
        writeText(path("t.stl"), s);
    } else {
        writeBytes(path("t.stl"), binaryStlTetra(kind == 2 ? "solid exported by a CAD program" : "binary"));
    }
    const TriangleMesh m = readMeshFile(path("t.stl").toStdString());
    QCOMPARE(m.triangleCount(), std::size_t(4));
    QCOMPARE(triangleSet(m), triangleSet(tetraReference()));
}

void TestMeshReaders::xyzExtraColumns()
{
    writeText(path("p.xyz"), "# x y z nx ny nz\n1 2 3 0 0 1\n\n-1.5,2e-3,4;9\n7\t8\t9\n");
    const TriangleMesh m = readMeshFile(path("p.xyz").toStdString());
    QVERIFY(m.pointSet);
    QCOMPARE(m.vertices, (std::vector<float>{1, 2, 3, -1.5f, 2e-3f, 4, 7, 8, 9}));
}

void TestMeshReaders::nonManifoldLoads()
{
    // Three triangles sharing one edge (0-1) and a vertex used by nothing: non-manifold,
    // still a surface to sample.
    writeText(path("fin.off"), "OFF\n6 3 0\n0 0 0\n1 0 0\n0 1 0\n0 -1 0\n0 0 1\n5 5 5\n3 0 1 2\n3 0 1 3\n3 0 1 4\n");
    const TriangleMesh m = readOff(path("fin.off").toStdString());
    QCOMPARE(m.triangleCount(), std::size_t(3));
    std::mt19937_64 rng(3);
    const auto pts = meshToPointCloud(m, SamplingOptions{}, rng, "fin.off");
    QCOMPARE(pts.size(), std::size_t(3 * 1024));
}

void TestMeshReaders::badInput_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("expect");
    QTest::addColumn<QString>("location"); // "" = not checked

    const std::string tetraOff = "OFF\n4 4 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n";
    auto bytes = [](const std::string& s) { return QByteArray(s.data(), qsizetype(s.size())); };
    auto raw = [](const std::vector<unsigned char>& b) { return QByteArray(reinterpret_cast<const char*>(b.data()), qsizetype(b.size())); };

    QTest::newRow("off: not OFF") << "a.off" << bytes("PLY\n3 1 0\n") << "not an OFF file" << "line 1";
    QTest::newRow("off: 4-D variant") << "a.off" << bytes("4OFF\n1 0 0\n0 0 0 0\n") << "not supported" << "line 1";
    QTest::newRow("off: header declares more vertices")
        << "a.off" << bytes("OFF\n5 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n") << "declares 5 vertices" << "";
    QTest::newRow("off: header declares more faces")
        << "a.off" << bytes("OFF\n3 2 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n") << "declares 2 faces, the file has 1" << "";
    QTest::newRow("off: header declares fewer faces")
        << "a.off" << bytes("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n3 2 1 0\n") << "more data than the header"
        << "line 7";
    QTest::newRow("off: face index out of range")
        << "a.off" << bytes("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 3\n") << "uses vertex 3 but there are only 3" << "line 6";
    QTest::newRow("off: face lists too few corners")
        << "a.off" << bytes("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n4 0 1 2\n") << "declares 4 corners but lists 3" << "line 6";
    QTest::newRow("off: NaN vertex") << "a.off" << bytes("OFF\n3 1 0\n0 0 0\nnan 0 0\n0 1 0\n3 0 1 2\n") << "non-finite"
                                     << "line 4";
    QTest::newRow("off: text coordinate") << "a.off" << bytes("OFF\n3 1 0\n0 0 0\n1 zero 0\n0 1 0\n3 0 1 2\n")
                                          << "expected a number" << "line 4";
    QTest::newRow("off: empty file") << "a.off" << bytes("") << "empty file" << "";
    // Crafted counts: refused before room for them is reserved (10^8 vertices = 1.2 GB).
    QTest::newRow("off: vertex count the file cannot hold")
        << "a.off" << bytes("OFF\n100000000 1 0\n0 0 0\n")
        << "declares 100000000 vertices, at least 600000000 bytes, but only 6 bytes follow the counts line" << "line 2";
    // 2^64 - 1 corners: "t.size() < n + 1" wrapped to "< 0" and the reader indexed past the line.
    QTest::newRow("off: corner count wraps 2^64")
        << "a.off" << bytes("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n18446744073709551615 0 1 2\n")
        << "face 0 declares 18446744073709551615 corners but lists 3" << "line 6";
    (void)tetraOff;

    const std::string plyHead = "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\n"
                                "property float y\nproperty float z\nelement face 1\n"
                                "property list uchar int vertex_indices\nend_header\n";
    std::vector<unsigned char> ply;
    putText(ply, plyHead);
    for (float x : {0.f, 0.f, 0.f, 1.f, 0.f, 0.f, 0.f, 1.f, 0.f})
        put<float>(ply, x);
    std::vector<unsigned char> plyGood = ply;
    put<std::uint8_t>(plyGood, 3);
    for (int i : {0, 1, 2})
        put<std::int32_t>(plyGood, i);
    std::vector<unsigned char> plyTrunc(plyGood.begin(), plyGood.end() - 5);
    std::vector<unsigned char> plyRange = ply;
    put<std::uint8_t>(plyRange, 3);
    for (int i : {0, 1, 9})
        put<std::int32_t>(plyRange, i);
    QTest::newRow("ply: truncated binary") << "a.ply" << raw(plyTrunc) << "truncated" << "";
    QTest::newRow("ply: face index out of range") << "a.ply" << raw(plyRange) << "uses vertex 9 but there are only 3" << "";
    QTest::newRow("ply: unknown property type")
        << "a.ply"
        << bytes("ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\n"
                 "property float128 w\nend_header\n0 0 0 0\n")
        << "unknown PLY property type \"float128\"" << "line 7";
    QTest::newRow("ply: unknown list type")
        << "a.ply"
        << bytes("ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\n"
                 "element face 0\nproperty list byte int vertex_indices\nend_header\n0 0 0\n")
        << "unknown PLY property type \"byte\"" << "line 8";
    QTest::newRow("ply: ascii too few values")
        << "a.ply"
        << bytes("ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
                 "end_header\n0 0 0\n1 0 0\n")
        << "truncated" << "";
    QTest::newRow("ply: no z") << "a.ply"
                               << bytes("ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\n"
                                        "end_header\n0 0\n")
                               << "lacks an x, y or z" << "line 3";
    QTest::newRow("ply: no end_header") << "a.ply" << bytes("ply\nformat ascii 1.0\nelement vertex 1\n")
                                        << "no \"end_header\"" << "";
    QTest::newRow("ply: not ply") << "a.ply" << bytes("solid x\n") << "not a PLY file" << "line 1";
    // An ascii value outside its declared type: a list length of 300 declared uchar (the
    // mesh_ply fuzz target's finding had 6.7e29; converting it to a count was undefined).
    QTest::newRow("ply: ascii list length outside uchar")
        << "a.ply"
        << bytes("ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
                 "element face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n"
                 "300 0 1 2\n")
        << "\"300\" is outside the range of the property's type (0 to 255)" << "line 13";
    // Crafted element counts: refused before the vertex array (10^8 x 3 floats) is allocated.
    std::vector<unsigned char> plyHuge;
    putText(plyHuge, "ply\nformat binary_little_endian 1.0\nelement vertex 100000000\nproperty float x\n"
                     "property float y\nproperty float z\nend_header\n");
    for (float x : {0.f, 1.f, 2.f})
        put<float>(plyHuge, x);
    QTest::newRow("ply: vertex count the file cannot hold")
        << "a.ply" << raw(plyHuge)
        << "\"element vertex 100000000\" needs at least 1200000000 bytes (with the elements before it), but only 12 "
           "bytes follow end_header"
        << "line 3";
    QTest::newRow("ply: ascii vertex count the file cannot hold")
        << "a.ply"
        << bytes("ply\nformat ascii 1.0\nelement vertex 50000000\nproperty float x\nproperty float y\n"
                 "property float z\nend_header\n0 0 0\n")
        << "\"element vertex 50000000\" needs at least 300000000 bytes" << "line 3";
    // 2^62 rows of a double: 2^65 bytes, which wrapped to 0 in plain arithmetic.
    QTest::newRow("ply: element bytes beyond 64 bits")
        << "a.ply"
        << bytes("ply\nformat binary_little_endian 1.0\nelement junk 4611686018427387904\nproperty double v\n"
                 "element vertex 1\nproperty float x\nproperty float y\nproperty float z\nend_header\n")
        << "\"element junk 4611686018427387904\" needs more bytes than fit in 64 bits" << "line 3";

    std::vector<unsigned char> stl = binaryStlTetra();
    std::vector<unsigned char> stlTrunc(stl.begin(), stl.end() - 30);
    std::vector<unsigned char> stlSolidTrunc = binaryStlTetra("solid binary really");
    stlSolidTrunc.resize(stlSolidTrunc.size() - 30);
    QTest::newRow("stl: truncated binary") << "a.stl" << raw(stlTrunc) << "truncated binary STL: the header declares 4"
                                           << "byte offset 254";
    QTest::newRow("stl: truncated binary starting with solid")
        << "a.stl" << raw(stlSolidTrunc) << "truncated binary STL" << "";
    QTest::newRow("stl: shorter than header") << "a.stl" << raw(std::vector<unsigned char>(40, 1))
                                              << "less than the 84-byte header" << "";
    QTest::newRow("stl: truncated ascii")
        << "a.stl" << bytes("solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n") << "never ends"
        << "line 3";
    QTest::newRow("stl: NaN vertex (binary)") << "a.stl" << raw(binaryStlTetra("binary", std::nanf(""))) << "non-finite"
                                              << "byte offset 208";

    QTest::newRow("obj: index out of range") << "a.obj" << bytes("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n")
                                             << "face uses vertex 4 but only 3" << "line 4";
    QTest::newRow("obj: negative index too far") << "a.obj" << bytes("v 0 0 0\nv 1 0 0\nv 0 1 0\nf -1 -2 -4\n")
                                                 << "face uses vertex -4" << "line 4";
    QTest::newRow("obj: index 0") << "a.obj" << bytes("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n") << "start at 1"
                                  << "line 4";
    QTest::newRow("obj: NaN vertex") << "a.obj" << bytes("v 0 0 0\nv 1 nan 0\n") << "non-finite" << "line 2";
    QTest::newRow("obj: short vertex") << "a.obj" << bytes("v 0 0\n") << "3 coordinates" << "line 1";

    QTest::newRow("xyz: two columns") << "a.xyz" << bytes("1 2 3\n4 5\n") << "3 coordinates" << "line 2";
    QTest::newRow("xyz: infinity") << "a.xyz" << bytes("1 2 3\n4 inf 5\n") << "non-finite" << "line 2";

    QTest::newRow("unknown extension") << "a.3ds" << bytes("x") << "unknown mesh file extension" << "";
}

void TestMeshReaders::badInput()
{
    QFETCH(QString, file);
    QFETCH(QByteArray, content);
    QFETCH(QString, expect);
    QFETCH(QString, location);
    writeBytes(path(file), std::vector<unsigned char>(content.begin(), content.end()));
    const setscope::testing::AllocationCap cap; // what a crafted header claims must not be allocated
    QVERIFY(cap.active());
    const Caught c = errorOf([&] { readMeshFile(path(file).toStdString()); });
    QVERIFY2(c.what.contains(expect), qPrintable("got: " + c.what));
    QVERIFY2(c.what.contains(path(file)), qPrintable("the message should name the file: " + c.what));
    if (!location.isEmpty())
        QCOMPARE(c.location, location);
}

void TestMeshReaders::emptyAndDegenerateMeshes_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("content");
    QTest::addColumn<QString>("expect");
    QTest::newRow("off without faces") << "e.off" << "OFF\n3 0 0\n0 0 0\n1 0 0\n0 1 0\n" << "empty mesh";
    QTest::newRow("off with only edges") << "e.off" << "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n2 0 1\n" << "empty mesh";
    QTest::newRow("obj without faces") << "e.obj" << "v 0 0 0\n" << "empty mesh";
    QTest::newRow("ascii stl without facets") << "e.stl" << "solid e\nendsolid e\n" << "empty mesh";
    QTest::newRow("collinear") << "d.off" << "OFF\n3 1 0\n0 0 0\n1 1 1\n2 2 2\n3 0 1 2\n" << "all faces degenerate";
    QTest::newRow("repeated corner") << "d.obj" << "v 0 0 0\nv 1 0 0\nf 1 2 2\nf 1 1 1\n" << "all faces degenerate";
    QTest::newRow("empty xyz") << "e.xyz" << "# nothing\n" << "empty point set";
    // end_header as the file's last bytes, no newline: the body starts at the end of the file
    // (the mesh_ply fuzz target's finding: std::out_of_range escaped the reader).
    QTest::newRow("ply: end_header without newline")
        << "e.ply"
        << "ply\nformat binary_little_endian 1.0\nelement vertex 0\nproperty float x\nproperty float y\n"
           "property float z\nend_header"
        << "empty point set";
    QTest::newRow("xyz: one point repeated") << "s.xyz" << "1 1 1\n1 1 1\n" << "all points coincide";
}

void TestMeshReaders::emptyAndDegenerateMeshes()
{
    QFETCH(QString, file);
    QFETCH(QString, content);
    QFETCH(QString, expect);
    writeText(path(file), content.toStdString());
    const TriangleMesh m = readMeshFile(path(file).toStdString()); // reads: the problem is the geometry
    const Caught c = errorOf([&] { sampleIt(m); });
    QVERIFY2(c.what.contains(expect), qPrintable("got: " + c.what));
}

QTEST_GUILESS_MAIN(TestMeshReaders)
#include "tst_MeshReaders.moc"
