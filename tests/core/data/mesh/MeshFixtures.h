// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// Fixture writers shared by the mesh tests: files written byte by byte from the formats'
// descriptions, not through setscope's readers.

#include <QString>

#include <bit>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace meshtest {

inline void writeText(const QString& path, const std::string& text)
{
    std::ofstream f(path.toStdString(), std::ios::binary);
    f << text;
}

inline void writeBytes(const QString& path, const std::vector<unsigned char>& bytes)
{
    std::ofstream f(path.toStdString(), std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

/// Appends the `n` bytes of `v` in little- or big-endian order.
template <class T>
void put(std::vector<unsigned char>& b, T v, bool bigEndian = false)
{
    unsigned char raw[sizeof(T)];
    std::memcpy(raw, &v, sizeof(T));
    const bool reverse = bigEndian != (std::endian::native == std::endian::big);
    for (std::size_t i = 0; i < sizeof(T); ++i)
        b.push_back(raw[reverse ? sizeof(T) - 1 - i : i]);
}

inline void putText(std::vector<unsigned char>& b, const std::string& s) { b.insert(b.end(), s.begin(), s.end()); }

/// The unit tetrahedron: corners (0,0,0), (1,0,0), (0,1,0), (0,0,1); total area
/// 3 * 0.5 + sqrt(3) / 2.
inline const std::vector<float>& tetraVertices()
{
    static const std::vector<float> v{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    return v;
}
inline const std::vector<int>& tetraFaces()
{
    static const std::vector<int> f{0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    return f;
}

/// A binary STL of the tetrahedron. `header` fills the 80-byte header (e.g. "solid x").
inline std::vector<unsigned char> binaryStlTetra(const std::string& header = "binary stl", float nanAt = 0)
{
    std::vector<unsigned char> b;
    std::string h = header;
    h.resize(80, ' ');
    putText(b, h);
    put<std::uint32_t>(b, 4);
    const auto& v = tetraVertices();
    const auto& f = tetraFaces();
    for (int t = 0; t < 4; ++t) {
        for (int k = 0; k < 3; ++k)
            put<float>(b, 0.0f); // normal (readers ignore it)
        for (int c = 0; c < 3; ++c)
            for (int k = 0; k < 3; ++k)
                put<float>(b, (nanAt != 0 && t == 2 && c == 1 && k == 0) ? nanAt : v[3 * f[3 * t + c] + k]);
        put<std::uint16_t>(b, 0);
    }
    return b;
}

} // namespace meshtest
