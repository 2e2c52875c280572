// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Throughput of mesh -> point cloud: a 10 000-triangle OFF mesh (a UV sphere), sampled to
// 1024 points; in memory, from the file, and through the folder loader on N copies.
#include "core/data/Dataset.h"
#include "core/data/mesh/PointCloudLoader.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

namespace fs = std::filesystem;
using namespace setscope::data;
using Clock = std::chrono::steady_clock;

namespace {

/// UV sphere with `rings` x `segments` quads = 2 * rings * segments triangles (poles included
/// as degenerate-free fans would change the count; quads at the poles are thin but positive).
std::string sphereOff(int rings, int segments)
{
    std::string s = "OFF\n" + std::to_string((rings + 1) * segments) + " " + std::to_string(rings * segments) + " 0\n";
    for (int r = 0; r <= rings; ++r) {
        const double th = M_PI * (0.001 + 0.998 * r / rings);
        for (int k = 0; k < segments; ++k) {
            const double ph = 2 * M_PI * k / segments;
            s += std::to_string(std::sin(th) * std::cos(ph)) + " " + std::to_string(std::sin(th) * std::sin(ph)) + " " +
                 std::to_string(std::cos(th)) + "\n";
        }
    }
    for (int r = 0; r < rings; ++r)
        for (int k = 0; k < segments; ++k) {
            const int a = r * segments + k, b = r * segments + (k + 1) % segments;
            s += "4 " + std::to_string(a) + " " + std::to_string(b) + " " + std::to_string(b + segments) + " " +
                 std::to_string(a + segments) + "\n";
        }
    return s;
}

double seconds(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

} // namespace

int main(int argc, char** argv)
{
    const int files = argc > 1 ? std::atoi(argv[1]) : 200;
    const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
    const fs::path dir = fs::temp_directory_path() / ("setscope_bench_mesh_" + std::to_string(::getpid()));
    fs::create_directories(dir / "sphere" / "train");
    const std::string off = sphereOff(50, 100); // 10 000 triangles
    const fs::path one = dir / "sphere" / "train" / "s0000.off";
    std::ofstream(one) << off;

    const mesh::TriangleMesh m = mesh::readOff(one.string());
    std::printf("mesh: %zu vertices, %zu triangles, %zu bytes of OFF\n", m.vertexCount(), m.triangleCount(), off.size());

    const int reps = 2000;
    auto t0 = Clock::now();
    for (int i = 0; i < reps; ++i) {
        std::mt19937_64 rng(mesh::fileSeed(1, std::to_string(i)));
        auto p = mesh::meshToPointCloud(m, {}, rng, "x");
        if (p.empty())
            return 1;
    }
    const double tSample = seconds(t0);
    std::printf("sample + normalise (mesh in memory): %.0f meshes/s (%.3f ms each)\n", reps / tSample, 1e3 * tSample / reps);

    t0 = Clock::now();
    for (int i = 0; i < 200; ++i) {
        const mesh::TriangleMesh mm = mesh::readOff(one.string());
        std::mt19937_64 rng(mesh::fileSeed(1, std::to_string(i)));
        auto p = mesh::meshToPointCloud(mm, {}, rng, "x");
    }
    const double tFile = seconds(t0);
    std::printf("read OFF + sample, one thread: %.0f files/s (%.3f ms each)\n", 200 / tFile, 1e3 * tFile / 200);

    for (int i = 1; i < files; ++i) {
        char name[32];
        std::snprintf(name, sizeof name, "s%04d.off", i);
        fs::copy_file(one, dir / "sphere" / "train" / name);
    }
    for (int t : {1, threads}) {
        mesh::PointCloudOptions opt;
        opt.threads = t;
        DatasetBuilder b;
        t0 = Clock::now();
        mesh::loadPointCloudFolder(dir.string(), b, opt);
        const Dataset ds = b.finish();
        const double tf = seconds(t0);
        std::printf("folder loader, %d files, %d thread(s): %.0f files/s\n", int(ds.size()), t, ds.size() / tf);
    }
    fs::remove_all(dir);
    return 0;
}
