// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/mesh/ReaderSupport.h"

#include <algorithm>

namespace setscope::data::mesh {

using namespace detail;

TriangleMesh readOff(const std::string& path)
{
    const std::string text = readWholeFile(path);
    LineReader lines(text);
    std::string_view line;

    // Next line with content, comments stripped; false at the end of the file.
    auto nextContent = [&](std::string_view& out) {
        while (lines.next(line)) {
            out = stripComment(line);
            if (!out.empty())
                return true;
        }
        return false;
    };

    std::string_view content;
    if (!nextContent(content))
        throw InputError(path, "", "empty file: not an OFF mesh");
    std::vector<std::string_view> head = tokens(content);
    const std::string_view kw = head.front();
    const auto at = kw.find("OFF");
    if (at == std::string_view::npos)
        throw InputError(path, InputError::atLine(lines.lineNumber()),
                         "not an OFF file: the first line should start with \"OFF\", found \"" + shortToken(kw) + "\"");
    const std::string_view prefix = kw.substr(0, at);
    if (prefix.find_first_not_of("STCN") != std::string_view::npos)
        throw InputError(path, InputError::atLine(lines.lineNumber()),
                         "OFF variant \"" + shortToken(kw) + "\" is not supported (only 3-D OFF, COFF, NOFF, STOFF)");
    // ModelNet40 quirk: the counts glued to the keyword, "OFF490 518 0".
    std::vector<std::string_view> counts;
    if (kw.size() > at + 3)
        counts.push_back(kw.substr(at + 3));
    counts.insert(counts.end(), head.begin() + 1, head.end());
    std::uint64_t countLine = lines.lineNumber();
    if (counts.empty()) {
        if (!nextContent(content))
            throw InputError(path, InputError::atLine(lines.lineNumber()), "missing the counts line (vertices faces edges)");
        counts = tokens(content);
        countLine = lines.lineNumber();
    }
    std::uint64_t nv = 0, nf = 0;
    if (counts.size() < 2 || !parseNumber(counts[0], nv) || !parseNumber(counts[1], nf))
        throw InputError(path, InputError::atLine(countLine),
                         "expected the counts \"vertices faces [edges]\" as non-negative integers");
    if (nv > (1ull << 31) || nf > (1ull << 31))
        throw InputError(path, InputError::atLine(countLine), "implausibly large counts in the header");

    // Every vertex line holds at least "x y z" and a line end (6 bytes; the file's last
    // line may lack the line end): a count the rest of the file cannot hold is refused
    // before room for it is reserved.
    const std::uint64_t rest = text.size() - std::min<std::size_t>(text.size(), lines.position());
    if (!util::fitsInBytes(nv, 6, rest + 1))
        throw InputError(path, InputError::atLine(countLine),
                         "truncated or wrong header: it declares " + std::to_string(nv) +
                             " vertices, at least " + std::to_string(6 * nv) + " bytes, but only " + std::to_string(rest) +
                             " bytes follow the counts line");
    TriangleMesh m;
    m.vertices.reserve(3 * nv);
    for (std::uint64_t v = 0; v < nv; ++v) {
        if (!nextContent(content))
            throw InputError(path, InputError::atLine(lines.lineNumber()),
                             "truncated or wrong header: it declares " + std::to_string(nv) + " vertices, the file has " +
                                 std::to_string(v));
        const auto t = tokens(content);
        if (t.size() < 3)
            throw InputError(path, InputError::atLine(lines.lineNumber()),
                             "vertex " + std::to_string(v) + " needs 3 coordinates, found " + std::to_string(t.size()));
        for (int k = 0; k < 3; ++k)
            m.vertices.push_back(parseCoordinate(t[k], path, lines.lineNumber(), "a vertex coordinate"));
        checkFinite(m, v, path, InputError::atLine(lines.lineNumber()));
    }
    std::vector<std::uint32_t> corners;
    for (std::uint64_t f = 0; f < nf; ++f) {
        if (!nextContent(content))
            throw InputError(path, InputError::atLine(lines.lineNumber()),
                             "truncated or wrong header: it declares " + std::to_string(nf) + " faces, the file has " +
                                 std::to_string(f));
        const auto t = tokens(content);
        std::uint64_t n = 0;
        if (!parseNumber(t[0], n))
            throw InputError(path, InputError::atLine(lines.lineNumber()),
                             "expected a face's corner count, found \"" + shortToken(t[0]) + "\"");
        if (t.size() - 1 < n) // not t.size() < n + 1: n comes from the file and n + 1 can wrap
            throw InputError(path, InputError::atLine(lines.lineNumber()),
                             "face " + std::to_string(f) + " declares " + std::to_string(n) + " corners but lists " +
                                 std::to_string(t.size() - 1));
        corners.clear();
        for (std::uint64_t k = 0; k < n; ++k) {
            std::uint64_t idx = 0;
            if (!parseNumber(t[1 + k], idx))
                throw InputError(path, InputError::atLine(lines.lineNumber()),
                                 "expected a vertex index, found \"" + shortToken(t[1 + k]) + "\"");
            if (idx >= nv)
                throw InputError(path, InputError::atLine(lines.lineNumber()),
                                 "face " + std::to_string(f) + " uses vertex " + std::to_string(idx) + " but there are only " +
                                     std::to_string(nv) + " vertices (indices start at 0)");
            corners.push_back(static_cast<std::uint32_t>(idx));
        }
        addPolygon(m, corners);
    }
    if (nextContent(content))
        throw InputError(path, InputError::atLine(lines.lineNumber()),
                         "more data than the header declares (" + std::to_string(nv) + " vertices, " + std::to_string(nf) +
                             " faces): the counts are wrong");
    return m;
}

} // namespace setscope::data::mesh
