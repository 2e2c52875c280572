// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/graph/Sdf.h"

#include "core/data/graph/TextLines.h"
#include "core/util/Text.h"

#include <setscope/sdk/Errors.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <map>
#include <set>

namespace fs = std::filesystem;

namespace setscope::data {

using sdk::InputError;

namespace {

struct Line {
    std::string_view text;
    std::uint64_t number;
};

/// Fixed-width integer fields of `width` characters (the V2000 counts and bond lines: with
/// 100+ atoms, neighbouring fields touch, "99100", so whitespace splitting is wrong there).
/// Falls back to whitespace-separated fields for hand-written lines that ignore the columns.
bool intFields(std::string_view s, std::size_t count, std::size_t width, std::vector<long long>& out)
{
    out.assign(count, 0);
    bool fixedOk = s.size() >= count * width;
    for (std::size_t k = 0; k < count && fixedOk; ++k)
        fixedOk = parseInteger(s.substr(k * width, width), out[k]);
    if (fixedOk)
        return true;
    const std::vector<std::string_view> f = splitFields(s, ' ');
    if (f.size() < count)
        return false;
    for (std::size_t k = 0; k < count; ++k)
        if (!parseInteger(f[k], out[k]))
            return false;
    return true;
}

/// V2000 atom-block charge code -> formal charge (4 = doublet radical, no charge).
int chargeFromCode(long long code)
{
    static constexpr std::array<int, 8> map{0, 3, 2, 1, 0, -1, -2, -3};
    return code >= 0 && code < 8 ? map[static_cast<std::size_t>(code)] : 0;
}

bool isElementSymbol(std::string_view s)
{
    if (s.empty() || s.size() > 3)
        return false;
    if (!std::isalpha(static_cast<unsigned char>(s[0])) && s[0] != '*')
        return false;
    return std::all_of(s.begin() + 1, s.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '#'; });
}

std::string formatNumber(double v)
{
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

struct Molecule {
    Graph graph;
    std::vector<std::string> symbols;
    std::vector<int> charge;
    std::vector<int> aromatic;
};

class SdfParser {
public:
    SdfParser(const std::string& path)
        : m_file(path)
    {
        std::string_view s;
        while (m_file.next(s))
            m_lines.push_back({s, m_file.lineNumber()});
    }

    bool atEnd()
    {
        for (std::size_t i = m_pos; i < m_lines.size(); ++i)
            if (!trimmed(m_lines[i].text).empty())
                return false;
        return true;
    }

    Molecule record(std::size_t index)
    {
        Molecule m;
        const std::uint64_t first = m_lines[m_pos].number;
        m.graph.firstLine = first;
        const std::string title(trimmed(m_lines[m_pos].text));
        m.graph.name = title.empty() ? "record " + std::to_string(index) : title;
        m_where = "record " + std::to_string(index) + (title.empty() ? std::string() : " '" + title + "'");
        m_pos += 3; // title, program / timestamp, comment
        const Line& counts = take("the counts line");
        if (counts.text.find("V3000") != std::string_view::npos)
            fail(counts, "V3000 molfiles are not supported; convert the file to V2000 (Open Babel: obabel in.sdf -O out.sdf; "
                         "RDKit's SDWriter writes V2000 by default)");
        std::vector<long long> cf;
        if (!intFields(counts.text, 2, 3, cf) || cf[0] < 0 || cf[1] < 0)
            fail(counts, "expected the counts line ('aaabbb... V2000': atom and bond counts), found '" +
                             std::string(counts.text) + "'");
        const std::size_t na = static_cast<std::size_t>(cf[0]), nb = static_cast<std::size_t>(cf[1]);
        if (na == 0)
            fail(counts, "the molecule has no atoms (an empty graph cannot be a set)");
        if (na > 999 || nb > 999)
            fail(counts, "counts beyond 999 atoms or bonds need the V3000 format, which is not supported");

        Graph& g = m.graph;
        g.nodeCount = static_cast<int>(na);
        m.symbols.resize(na);
        m.charge.assign(na, 0);
        m.aromatic.assign(na, 0);
        for (std::size_t a = 0; a < na; ++a) {
            const Line& l = take("atom " + std::to_string(a + 1) + " of " + std::to_string(na));
            const std::vector<std::string_view> f = splitFields(l.text, ' ');
            double xyz = 0;
            const bool ok = f.size() >= 4 && parseReal(f[0], xyz) && parseReal(f[1], xyz) && parseReal(f[2], xyz) &&
                            isElementSymbol(f[3]);
            if (!ok)
                fail(l, "atom count mismatch: the counts line (line " + std::to_string(counts.number) + ") declares " +
                            std::to_string(na) + " atoms, but this is not atom line " + std::to_string(a + 1) +
                            " ('x y z symbol ...'): '" + std::string(l.text) + "'");
            m.symbols[a] = std::string(f[3]);
            long long code = 0;
            if (f.size() >= 6) {
                if (!parseInteger(f[5], code) || code < 0 || code > 7)
                    fail(l, "charge field '" + std::string(f[5]) + "' is not a V2000 charge code (0..7)");
                m.charge[a] = chargeFromCode(code);
            }
        }
        std::size_t repeated = 0;
        for (std::size_t b = 0; b < nb; ++b) {
            const Line& l = take("bond " + std::to_string(b + 1) + " of " + std::to_string(nb));
            std::vector<long long> bf;
            const std::vector<std::string_view> lf = splitFields(l.text, ' ');
            double x = 0;
            long long whole = 0;
            if (lf.size() >= 4 && parseReal(lf[0], x) && !parseInteger(lf[0], whole) && isElementSymbol(lf[3]))
                fail(l, "atom count mismatch: the counts line (line " + std::to_string(counts.number) + ") declares " +
                            std::to_string(na) + " atoms, but the atom block goes on here");
            if (!intFields(l.text, 3, 3, bf))
                fail(l, "bond count mismatch: the counts line (line " + std::to_string(counts.number) + ") declares " +
                            std::to_string(na) + " atoms and " + std::to_string(nb) + " bonds, but this is not bond line " +
                            std::to_string(b + 1) + " ('a1 a2 type'): '" + std::string(l.text) + "'");
            for (int k = 0; k < 2; ++k)
                if (bf[static_cast<std::size_t>(k)] < 1 || bf[static_cast<std::size_t>(k)] > static_cast<long long>(na))
                    fail(l, "bond to a missing atom: atom " + std::to_string(bf[static_cast<std::size_t>(k)]) +
                                ", but the molecule has atoms 1.." + std::to_string(na));
            if (bf[0] == bf[1])
                fail(l, "bond from atom " + std::to_string(bf[0]) + " to itself");
            if (bf[2] < 1 || bf[2] > 8)
                fail(l, "bond type " + std::to_string(bf[2]) + " is not a V2000 bond type (1..8)");
            const int u = static_cast<int>(bf[0] - 1), v = static_cast<int>(bf[1] - 1);
            g.edges.emplace_back(std::min(u, v), std::max(u, v));
            if (bf[2] == 4) {
                ++m.aromatic[static_cast<std::size_t>(u)];
                ++m.aromatic[static_cast<std::size_t>(v)];
            }
        }
        std::sort(g.edges.begin(), g.edges.end());
        const std::size_t before = g.edges.size();
        g.edges.erase(std::unique(g.edges.begin(), g.edges.end()), g.edges.end());
        repeated = before - g.edges.size();
        m_repeatedBonds += repeated;

        // Properties block up to "M  END". "M  CHG" supersedes every atom-block charge.
        bool chargesReset = false;
        while (true) {
            if (m_pos >= m_lines.size())
                fail(m_lines.back(), "truncated: the file ends before 'M  END'");
            const Line& l = m_lines[m_pos];
            if (l.text.rfind("$$$$", 0) == 0 || l.text.rfind(">", 0) == 0) {
                m_missingEnd++;
                break; // tolerated: an old writer that left out M  END
            }
            ++m_pos;
            if (l.text.rfind("M  END", 0) == 0)
                break;
            if (l.text.rfind("M  CHG", 0) == 0) {
                if (!chargesReset) {
                    std::fill(m.charge.begin(), m.charge.end(), 0);
                    chargesReset = true;
                }
                const std::vector<std::string_view> f = splitFields(l.text, ' ');
                long long n = 0;
                if (f.size() < 3 || !parseInteger(f[2], n) || n < 1 || f.size() != 3 + 2 * static_cast<std::size_t>(n))
                    fail(l, "malformed 'M  CHG' line (expected 'M  CHG  n  atom charge ...' with n pairs)");
                for (long long k = 0; k < n; ++k) {
                    long long atom = 0, q = 0;
                    if (!parseInteger(f[3 + 2 * static_cast<std::size_t>(k)], atom) ||
                        !parseInteger(f[4 + 2 * static_cast<std::size_t>(k)], q))
                        fail(l, "malformed 'M  CHG' line: non-numeric atom or charge");
                    if (atom < 1 || atom > static_cast<long long>(na))
                        fail(l, "'M  CHG' names atom " + std::to_string(atom) + ", but the molecule has atoms 1.." +
                                    std::to_string(na));
                    m.charge[static_cast<std::size_t>(atom - 1)] = static_cast<int>(q);
                }
                continue;
            }
            if (l.text.rfind("A  ", 0) == 0 || l.text.rfind("G  ", 0) == 0) {
                ++m_pos; // these entries carry a second text line
                continue;
            }
            const std::string_view t = trimmed(l.text);
            if (!t.empty() && (std::isdigit(static_cast<unsigned char>(t[0])) || t[0] == '-'))
                fail(l, "more atom or bond lines than the counts line (line " + std::to_string(counts.number) +
                            ") declares (" + std::to_string(na) + " atoms, " + std::to_string(nb) + " bonds)");
            // Other property lines (M  ISO, M  RAD, V, S  SKP ...) do not change the graph.
        }

        // Data items: "> <NAME>" (or ">  <NAME>  (n)") then value lines up to a blank line.
        while (m_pos < m_lines.size()) {
            const Line& l = m_lines[m_pos++];
            if (l.text.rfind("$$$$", 0) == 0)
                break;
            if (l.text.rfind(">", 0) != 0)
                continue; // blank separators
            const auto lt = l.text.find('<');
            const auto gt = lt == std::string_view::npos ? lt : l.text.find('>', lt);
            std::string name = lt != std::string_view::npos && gt != std::string_view::npos
                                   ? std::string(l.text.substr(lt + 1, gt - lt - 1))
                                   : std::string(trimmed(l.text.substr(1)));
            std::string value;
            while (m_pos < m_lines.size()) {
                const std::string_view v = m_lines[m_pos].text;
                if (trimmed(v).empty() || v.rfind("$$$$", 0) == 0)
                    break;
                value += (value.empty() ? "" : "\n") + std::string(trimmed(v));
                ++m_pos;
            }
            g.properties.emplace_back(std::move(name), std::move(value));
        }
        return m;
    }

    std::size_t repeatedBonds() const { return m_repeatedBonds; }
    std::size_t missingEnd() const { return m_missingEnd; }
    const std::string& where() const { return m_where; }
    const std::string& path() const { return m_file.path(); }

private:
    const Line& take(const std::string& what)
    {
        if (m_pos >= m_lines.size())
            throw InputError(m_file.path(), m_where + ", " + InputError::atLine(m_lines.empty() ? 1 : m_lines.back().number + 1),
                             "truncated: the file ends where " + what + " was expected");
        return m_lines[m_pos++];
    }
    [[noreturn]] void fail(const Line& l, const std::string& message) const
    {
        throw InputError(m_file.path(), m_where + ", " + InputError::atLine(l.number), message);
    }

    TextLines m_file;
    std::vector<Line> m_lines;
    std::size_t m_pos = 0;
    std::string m_where;
    std::size_t m_repeatedBonds = 0;
    std::size_t m_missingEnd = 0;
};

} // namespace

bool looksLikeSdf(const std::string& path)
{
    const std::string ext = util::lowerExtension(path);
    std::error_code ec;
    return (ext == ".sdf" || ext == ".sd" || ext == ".mol") && fs::is_regular_file(path, ec);
}

GraphCollection readSdf(const std::string& path, const GraphOptions& options)
{
    SdfParser p(path);
    GraphCollection c;
    c.name = fs::path(path).stem().string();
    c.sourceFiles.push_back(path);
    std::vector<Molecule> mols;
    std::size_t index = 0;
    while (!p.atEnd()) {
        Molecule m = p.record(++index);
        Graph& g = m.graph;
        if (!options.classProperty.empty()) {
            const auto it = std::find_if(g.properties.begin(), g.properties.end(),
                                         [&](const auto& kv) { return kv.first == options.classProperty; });
            const std::string loc = p.where() + ", " + InputError::atLine(g.firstLine);
            if (it == g.properties.end()) {
                std::string have;
                for (const auto& kv : g.properties)
                    have += (have.empty() ? "<" : ", <") + kv.first + ">";
                throw InputError(path, loc,
                                 "has no data item <" + options.classProperty + "> (the class property); " +
                                     (have.empty() ? std::string("it has no data items") : "it has " + have));
            }
            if (options.threshold) {
                double v = 0;
                if (!parseReal(it->second, v))
                    throw InputError(path, loc,
                                     "<" + options.classProperty + "> = '" + it->second + "' is not a number, so threshold " +
                                         formatNumber(*options.threshold) + " cannot classify it");
                const std::string t = formatNumber(*options.threshold);
                g.label = options.classProperty + (v >= *options.threshold ? " >= " : " < ") + t;
            } else {
                g.label = it->second;
                if (g.label.empty())
                    throw InputError(path, loc, "<" + options.classProperty + "> is empty");
            }
        }
        mols.push_back(std::move(m));
    }
    if (mols.empty())
        throw InputError(path, "", "no molecules in this file");

    // One-hot order: the elements present in the file, alphabetically.
    std::set<std::string> elements;
    for (const Molecule& m : mols)
        elements.insert(m.symbols.begin(), m.symbols.end());
    c.nodeLabelNames.assign(elements.begin(), elements.end());
    c.nodeAttributeNames = {"formal charge", "aromatic bonds"};
    std::map<std::string, std::int32_t> elementId;
    for (std::size_t i = 0; i < c.nodeLabelNames.size(); ++i)
        elementId[c.nodeLabelNames[i]] = static_cast<std::int32_t>(i);
    for (Molecule& m : mols) {
        Graph& g = m.graph;
        const std::size_t n = static_cast<std::size_t>(g.nodeCount);
        g.nodeLabels.resize(n);
        g.nodeAttributes.resize(n * 2);
        g.nodeText.resize(n);
        for (std::size_t a = 0; a < n; ++a) {
            g.nodeLabels[a] = elementId.at(m.symbols[a]);
            g.nodeAttributes[a * 2] = static_cast<float>(m.charge[a]);
            g.nodeAttributes[a * 2 + 1] = static_cast<float>(m.aromatic[a]);
            std::string t = m.symbols[a] + std::to_string(a + 1);
            if (m.charge[a] != 0)
                t += (m.charge[a] > 0 ? "+" : "") + std::to_string(m.charge[a]);
            g.nodeText[a] = std::move(t);
        }
        c.graphs.push_back(std::move(g));
    }
    if (p.repeatedBonds())
        c.notes.push_back(path + ": " + std::to_string(p.repeatedBonds()) + " bonds listed twice (read once)");
    if (p.missingEnd())
        c.notes.push_back(path + ": " + std::to_string(p.missingEnd()) + " records have no 'M  END' line (read anyway)");
    if (options.classProperty.empty()) {
        std::set<std::string> names;
        for (const Graph& g : c.graphs)
            for (const auto& kv : g.properties)
                names.insert(kv.first);
        std::string list;
        for (const std::string& n : names)
            list += (list.empty() ? "<" : ", <") + n + ">";
        c.notes.push_back("molecules are unlabelled (no class property chosen)" +
                          (list.empty() ? std::string()
                                        : "; the records carry " + list + ": open with class=NAME[,threshold=T] to use one"));
    } else if (options.threshold) {
        c.notes.push_back("class = <" + options.classProperty + "> >= " + formatNumber(*options.threshold) +
                          " (a threshold from the dataset options, not from the file)");
    }
    return c;
}

void loadSdf(const std::string& path, sdk::DatasetSink& sink, const GraphOptions& options)
{
    emitGraphs(readSdf(path, options), options, sink);
}

sdk::LoaderInfo sdfLoaderInfo()
{
    return {"sdf", "MDL SD / V2000 molfile molecules: atoms as node vectors, bonds as edges (unlabelled by default)",
            {".sdf", ".sd", ".mol"},
            GraphOptions::sdfSchema(),
            [](const std::string& p) { return looksLikeSdf(p); },
            [](const std::string& p, const sdk::OptionValues& o, sdk::DatasetSink& s, sdk::LoadContext&) {
                loadSdf(p, s, GraphOptions::fromValues(o));
            }};
}

} // namespace setscope::data
