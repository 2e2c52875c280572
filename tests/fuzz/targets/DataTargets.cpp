// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Fuzz targets of the vector readers: IDX, .npy, CSV, dataset packs (see FuzzTargets.h).
#include "tests/fuzz/targets/FuzzTargets.h"

#include "core/data/Csv.h"
#include "core/data/Dataset.h"
#include "core/data/DatasetPack.h"
#include "core/data/IdxLoader.h"
#include "core/data/VectorLoaders.h"

#include <setscope/sdk/Errors.h>

namespace setscope::fuzz {

void idx(const std::uint8_t* data, std::size_t size)
{
    {
        const TempFile f(data, size, "-idx3-ubyte");
        try {
            const data::IdxArray a = data::readIdx(f.path());
            (void)a;
        } catch (const sdk::InputError&) {
        }
    }
    const TempDir dir("idx");
    const auto parts = splitInput(data, size, 2);
    dir.write("train-images-idx3-ubyte", parts[0]);
    if (parts[1].data())
        dir.write("train-labels-idx1-ubyte", parts[1]);
    try {
        data::DatasetBuilder b(dir.path());
        data::loadIdx(dir.path(), b);
        const data::Dataset ds = b.finish();
        (void)ds;
    } catch (const sdk::InputError&) {
    }
}

void npy(const std::uint8_t* data, std::size_t size)
{
    const TempDir dir("npy");
    const auto parts = splitInput(data, size, 2);
    const std::string path = dir.write("X.npy", parts[0]);
    try {
        const data::NpyArray a = data::readNpy(path);
        (void)a;
    } catch (const sdk::InputError&) {
    }
    if (parts[1].data())
        dir.write("X.csv", parts[1]);
    try {
        data::DatasetBuilder b(path);
        data::loadNpy(path, b);
        const data::Dataset ds = b.finish();
        (void)ds;
    } catch (const sdk::InputError&) {
    }
}

void csv(const std::uint8_t* data, std::size_t size)
{
    const TempFile f(data, size, ".csv");
    for (const char separator : {',', ';', '\t'}) {
        try {
            const data::CsvTable t = data::readCsv(f.path(), separator);
            (void)t;
        } catch (const sdk::InputError&) {
        }
    }
    try {
        data::DatasetBuilder b(f.path());
        data::loadCsvVectors(f.path(), b);
        const data::Dataset ds = b.finish();
        (void)ds;
    } catch (const sdk::InputError&) {
    }
}

void pack(const std::uint8_t* data, std::size_t size)
{
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    try {
        data::DatasetBuilder b("fuzz.setpack");
        data::PackReadOptions o;
        o.verifyChecksum = false;
        data::readDatasetPack(bytes, "fuzz.setpack", b, o);
        const data::Dataset ds = b.finish();
        (void)ds;
    } catch (const sdk::InputError&) {
    }
    const TempFile f(data, size, ".setpack");
    try {
        data::DatasetBuilder b(f.path());
        data::loadDatasetPack(f.path(), b);
        const data::Dataset ds = b.finish();
        (void)ds;
    } catch (const sdk::InputError&) {
    }
}

} // namespace setscope::fuzz
