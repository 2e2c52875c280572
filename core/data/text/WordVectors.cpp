// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/text/WordVectors.h"

#include "core/util/Paths.h"

#include "core/data/text/Tokenizer.h"
#include "core/util/CheckedMath.h"
#include "core/util/FloatRange.h"
#include "core/util/Hash.h"
#include "core/util/LineReader.h"

#include <setscope/sdk/Errors.h>

#include <fasttext/fasttext.h>

#include <bit>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <unistd.h>

namespace fs = std::filesystem;

static_assert(std::endian::native == std::endian::little, "word2vec binary and the cache are read as little-endian");

namespace setscope::data {

using sdk::InputError;

struct WordVectors::Model {
    fasttext::FastText ft;
};

namespace {

constexpr char kCacheMagic[8] = {'S', 'S', 'W', 'V', 'C', 'A', 'C', 'H'};
constexpr char kCacheEnd[8] = {'S', 'S', 'W', 'V', 'E', 'N', 'D', '\0'};
constexpr std::uint32_t kCacheVersion = 1;
constexpr std::int32_t kFastTextMagic = 793712314;
constexpr std::int32_t kFastTextMaxVersion = 12;

#pragma pack(push, 1)
struct CacheHeader {
    char magic[8];
    std::uint32_t version;
    std::int32_t dim;
    std::uint64_t count;
    std::uint64_t sourceSize;
    std::int64_t sourceMtime;
    char sourceHash[32];
    std::uint8_t format;
    std::uint8_t pad[7];
    std::uint64_t duplicates;
    std::uint64_t wordBytes;
};
#pragma pack(pop)

struct File {
    std::FILE* f = nullptr;
    explicit File(const std::string& path, const char* mode = "rb")
    {
        f = std::fopen(path.c_str(), mode);
        if (!f)
            throw InputError(path, "", std::string("cannot open: ") + std::strerror(errno));
    }
    ~File()
    {
        if (f)
            std::fclose(f);
    }
    File(const File&) = delete;
    File& operator=(const File&) = delete;
};

/// Accumulates words and values; duplicates keep the first occurrence.
struct Builder {
    int dim = 0;
    std::vector<std::string> words;
    std::vector<float> values;
    std::unordered_map<std::string_view, std::uint32_t> seen; // views into `words` (kept stable below)
    std::size_t duplicates = 0;
    std::vector<std::unique_ptr<std::string>> keep; // stable storage for the keys of `seen`

    bool add(std::string_view word, const float* v)
    {
        if (seen.count(word)) {
            ++duplicates;
            return false;
        }
        keep.push_back(std::make_unique<std::string>(word));
        seen.emplace(*keep.back(), static_cast<std::uint32_t>(words.size()));
        words.emplace_back(word);
        values.insert(values.end(), v, v + dim);
        return true;
    }
};

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

/// Parses "word v1 .. vD" (D = dim, or any D >= 1 when dim == 0 and the count is returned
/// through `values.size()`). Returns false with `why` on malformed lines.
bool parseTextLine(std::string_view line, int dim, std::string_view& word, std::vector<float>& values, std::string& why)
{
    while (!line.empty() && isSpace(line.back()))
        line.remove_suffix(1);
    std::size_t p = 0;
    while (p < line.size() && !isSpace(line[p]))
        ++p;
    word = line.substr(0, p);
    values.clear();
    if (word.empty()) {
        why = "line starts with white space or is empty (expected 'word v1 ... vD')";
        return false;
    }
    const char* s = line.data() + p;
    const char* end = line.data() + line.size();
    while (true) {
        while (s < end && (*s == ' ' || *s == '\t'))
            ++s;
        if (s >= end)
            break;
        float v;
        auto [next, ec] = std::from_chars(s, end, v);
        if (ec != std::errc() || (next < end && !isSpace(*next))) {
            const char* tokEnd = s;
            while (tokEnd < end && !isSpace(*tokEnd))
                ++tokEnd;
            why = "'" + std::string(s, std::min<std::size_t>(tokEnd - s, 40)) + "' is not a number";
            if (ec == std::errc::result_out_of_range)
                why = "value '" + std::string(s, std::min<std::size_t>(tokEnd - s, 40)) + "' is out of float range";
            return false;
        }
        if (!std::isfinite(v)) {
            why = "NaN or infinite value";
            return false;
        }
        values.push_back(v);
        s = next;
    }
    if (dim > 0 && static_cast<int>(values.size()) != dim) {
        why = "expected " + std::to_string(dim) + " values after the word, found " + std::to_string(values.size());
        return false;
    }
    // A finite value beyond util::maxSafeMagnitude overflows the float distances of FAISS and
    // the cost matrices (docs/RELIABILITY.md "Values"): refused here, naming the word's line.
    const double bound = util::maxSafeMagnitude(static_cast<int>(values.size()));
    for (float v : values)
        if (!(std::fabs(v) <= bound)) {
            why = "value " + util::valueProblem(v, static_cast<int>(values.size()));
            return false;
        }
    if (values.empty()) {
        why = "no values after the word";
        return false;
    }
    return true;
}

/// "N D" with two non-negative integers.
bool parseHeader(std::string_view line, std::uint64_t& n, int& d)
{
    while (!line.empty() && isSpace(line.back()))
        line.remove_suffix(1);
    const char* s = line.data();
    const char* end = s + line.size();
    auto r1 = std::from_chars(s, end, n);
    if (r1.ec != std::errc() || r1.ptr >= end || *r1.ptr != ' ')
        return false;
    auto r2 = std::from_chars(r1.ptr + 1, end, d);
    return r2.ec == std::errc() && r2.ptr == end && d > 0;
}

/// Throws InputError unless `count` records of at least `minBytesEach` bytes fit in the
/// `available` bytes after a word-vector header: checked before anything is reserved for
/// the count the header declares.
void requireRoomFor(std::uint64_t count, int dim, std::uint64_t minBytesEach, std::uint64_t available,
                    const std::string& path, const std::string& location)
{
    if (util::fitsInBytes(count, minBytesEach, available))
        return;
    const std::optional<std::uint64_t> need = util::checkedMul(count, minBytesEach);
    throw InputError(path, location,
                     "the header says " + std::to_string(count) + " words of dimension " + std::to_string(dim) +
                         ", at least " + (need ? std::to_string(*need) + " bytes" : std::string("2^64 bytes or more")) +
                         ", but only " + std::to_string(available) + " bytes follow it (truncated, or not a word-vector file?)");
}

/// The lines of an open file (util::LineReader's rule), read in chunks of 1 MiB.
util::LineReader fileLines(std::FILE* f)
{
    return util::LineReader([f](char* buffer, std::size_t capacity) { return std::fread(buffer, 1, capacity, f); },
                            std::numeric_limits<std::uint64_t>::max(), std::size_t{1} << 20);
}

void parseText(const std::string& path, bool withHeader, Builder& b)
{
    File file(path);
    util::LineReader reader = fileLines(file.f);
    std::string_view line;
    std::uint64_t lineNo = 0;
    std::uint64_t expected = 0;
    if (withHeader) {
        if (!reader.next(line))
            throw InputError(path, "", "empty file");
        ++lineNo;
        if (!parseHeader(line, expected, b.dim))
            throw InputError(path, InputError::atLine(1), "expected a header 'COUNT DIMENSION'");
        // A record "w v1 .. vD" takes at least 1 + 2 D bytes.
        std::error_code ec;
        const std::uint64_t size = fs::file_size(path, ec);
        if (ec)
            throw InputError(path, "", "cannot stat: " + ec.message());
        const std::uint64_t headerEnd = reader.position();
        requireRoomFor(expected, b.dim, 1 + 2 * static_cast<std::uint64_t>(b.dim), size - std::min(size, headerEnd), path,
                       InputError::atLine(1));
        b.words.reserve(expected);
        b.values.reserve(expected * static_cast<std::size_t>(b.dim));
    }
    std::vector<float> values;
    std::string why;
    std::uint64_t records = 0;
    while (reader.next(line)) {
        ++lineNo;
        std::string_view probe = line;
        while (!probe.empty() && isSpace(probe.back()))
            probe.remove_suffix(1);
        if (probe.empty())
            continue; // blank lines (a trailing newline) are harmless
        std::string_view word;
        if (!parseTextLine(line, b.dim, word, values, why))
            throw InputError(path, InputError::atLine(lineNo), why);
        if (b.dim == 0)
            b.dim = static_cast<int>(values.size());
        ++records;
        if (withHeader && records > expected)
            throw InputError(path, InputError::atLine(lineNo),
                             "the header says " + std::to_string(expected) + " words but the file has more");
        b.add(word, values.data());
    }
    if (std::ferror(file.f))
        throw InputError(path, InputError::atLine(lineNo + 1), "read error");
    if (records == 0)
        throw InputError(path, "", "no word vectors in the file");
    if (withHeader && records != expected)
        throw InputError(path, InputError::atLine(lineNo),
                         "the header says " + std::to_string(expected) + " words but the file has "
                             + std::to_string(records) + " (truncated?)");
}

void parseWord2VecBinary(const std::string& path, Builder& b)
{
    File file(path);
    std::setvbuf(file.f, nullptr, _IOFBF, 1 << 20);
    std::string header;
    int c;
    while ((c = std::fgetc(file.f)) != EOF && c != '\n' && header.size() < 256)
        header.push_back(static_cast<char>(c));
    std::uint64_t n = 0;
    if (!parseHeader(header, n, b.dim))
        throw InputError(path, InputError::atOffset(0), "expected a header 'COUNT DIMENSION' followed by a newline");
    if (n == 0)
        throw InputError(path, InputError::atOffset(0), "the header says 0 words: no word vectors in the file");
    std::uint64_t offset = header.size() + 1;
    // A record "word ' ' D float32" takes at least 2 + 4 D bytes: checked before anything is
    // reserved for (or allocated from) the header's count and dimension.
    std::error_code ec;
    const std::uint64_t size = fs::file_size(path, ec);
    if (ec)
        throw InputError(path, "", "cannot stat: " + ec.message());
    requireRoomFor(n, b.dim, 2 + 4 * static_cast<std::uint64_t>(b.dim), size - std::min(size, offset), path,
                   InputError::atOffset(0));
    b.words.reserve(n);
    b.values.reserve(n * static_cast<std::size_t>(b.dim));
    std::string word;
    std::vector<float> v(static_cast<std::size_t>(b.dim));
    for (std::uint64_t r = 0; r < n; ++r) {
        word.clear();
        while ((c = std::fgetc(file.f)) != EOF && (c == '\n' || c == '\r')) // the optional '\n' of the previous record
            ++offset;
        const std::uint64_t recordStart = offset;
        auto where = [&] { return InputError::atRecord(r + 1) + ", " + InputError::atOffset(recordStart); };
        while (c != EOF && c != ' ') {
            word.push_back(static_cast<char>(c));
            if (word.size() > 4096)
                throw InputError(path, where(), "word longer than 4096 bytes: not a word2vec binary file?");
            c = std::fgetc(file.f);
        }
        if (c == EOF)
            throw InputError(path, where(),
                             "file ends inside record " + std::to_string(r + 1) + " of " + std::to_string(n) + " (truncated)");
        offset += word.size() + 1;
        const std::size_t got = std::fread(v.data(), sizeof(float), v.size(), file.f);
        if (got != v.size())
            throw InputError(path, where(),
                             "file ends inside the vector of '" + word + "' (record " + std::to_string(r + 1) + " of "
                                 + std::to_string(n) + ", truncated)");
        offset += v.size() * sizeof(float);
        const double bound = util::maxSafeMagnitude(static_cast<int>(v.size()));
        for (float x : v)
            if (!(std::fabs(x) <= bound)) // also NaN
                throw InputError(path, where(),
                                 std::isfinite(x) ? "the vector of '" + word + "' holds the value " +
                                                        util::valueProblem(x, static_cast<int>(v.size()))
                                                  : "NaN or infinite value in the vector of '" + word + "'");
        if (word.empty())
            throw InputError(path, where(), "empty word");
        b.add(word, v.data());
    }
    while ((c = std::fgetc(file.f)) != EOF) {
        if (!isSpace(static_cast<char>(c)))
            throw InputError(path, InputError::atOffset(offset),
                             "the header says " + std::to_string(n) + " words but the file continues after them");
        ++offset;
    }
}

// ---- fastText .bin -------------------------------------------------------------------

/// Walks a fastText model file (0.9.2 layout) and checks that every section is complete,
/// because libfasttext reads a truncated file without noticing (and loops forever inside
/// a cut dictionary).
void checkFastTextFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw InputError(path, "", std::string("cannot open: ") + std::strerror(errno));
    in.seekg(0, std::ios::end);
    const std::uint64_t size = static_cast<std::uint64_t>(in.tellg());
    in.seekg(0);
    std::uint64_t pos = 0;
    auto need = [&](std::uint64_t bytes, const char* what) {
        if (bytes > size - pos) // pos <= size; "pos + bytes > size" can wrap
            throw InputError(path, InputError::atOffset(pos), std::string("file ends inside the ") + what + " (truncated)");
    };
    auto read = [&](void* dst, std::uint64_t bytes, const char* what) {
        need(bytes, what);
        in.read(static_cast<char*>(dst), static_cast<std::streamsize>(bytes));
        pos += bytes;
    };
    std::int32_t magic = 0, version = 0;
    read(&magic, 4, "header");
    read(&version, 4, "header");
    if (magic != kFastTextMagic)
        throw InputError(path, InputError::atOffset(0), "not a fastText model (wrong magic number)");
    if (version > kFastTextMaxVersion)
        throw InputError(path, InputError::atOffset(4),
                         "fastText model version " + std::to_string(version) + " is newer than libfasttext 0.9.2 reads");
    // Args::save: dim, ws, epoch, minCount, neg, wordNgrams, loss, model, bucket, minn,
    // maxn, lrUpdateRate (int32 each), then t (double).
    std::int32_t args[12];
    read(args, sizeof args, "training arguments");
    char t[8];
    read(t, sizeof t, "training arguments");
    const std::int32_t argDim = args[0], argBucket = args[8], argMaxn = args[10];
    std::int32_t dsize = 0, nwords = 0, nlabels = 0;
    std::int64_t ntokens = 0, pruneSize = 0;
    read(&dsize, 4, "dictionary");
    read(&nwords, 4, "dictionary");
    read(&nlabels, 4, "dictionary");
    read(&ntokens, 8, "dictionary");
    read(&pruneSize, 8, "dictionary");
    if (dsize < 0 || nwords < 0 || nlabels < 0 || std::int64_t(nwords) + nlabels != dsize || pruneSize < -1)
        throw InputError(path, InputError::atOffset(8 + sizeof args + sizeof t), "inconsistent dictionary sizes");
    // libfasttext indexes the input matrix with these without bounds checks, and computes
    // subword rows as a hash modulo the bucket count.
    if (argDim <= 0 || argBucket < 0 || (argMaxn > 0 && argBucket == 0))
        throw InputError(path, InputError::atOffset(8),
                         "inconsistent training arguments (dim " + std::to_string(argDim) + ", bucket " +
                             std::to_string(argBucket) + ", maxn " + std::to_string(argMaxn) + ")");
    if (pruneSize != -1)
        throw InputError(path, InputError::atOffset(8 + sizeof args + sizeof t + 20),
                         "the dictionary is pruned (a quantized .ftz model?); use the .bin or the .vec file");
    for (std::int32_t i = 0; i < dsize; ++i) {
        const std::uint64_t start = pos;
        std::string w;
        char ch;
        do {
            read(&ch, 1, "dictionary");
        } while (ch != 0);
        (void)start;
        char rest[9];
        read(rest, 9, "dictionary");
    }
    auto matrix = [&](const char* what, std::int64_t minRows) {
        // A C++ bool on disk (libfasttext reads it as one): a byte other than 0 or 1 would be
        // an invalid bool there, so it is refused here.
        std::uint8_t quant = 0;
        read(&quant, 1, what);
        if (quant == 1)
            throw InputError(path, InputError::atOffset(pos - 1),
                             "quantized fastText models (.ftz) are not supported; use the .bin or the .vec file");
        if (quant != 0)
            throw InputError(path, InputError::atOffset(pos - 1),
                             std::string("the ") + what + "'s quantization flag is " + std::to_string(quant) +
                                 ", not 0 or 1 (a damaged model)");
        std::int64_t m = 0, n = 0;
        read(&m, 8, what);
        read(&n, 8, what);
        if (m < 0 || n <= 0 || n > 100000)
            throw InputError(path, InputError::atOffset(pos - 16), std::string("implausible ") + what + " size");
        if (n != argDim || m < minRows)
            throw InputError(path, InputError::atOffset(pos - 16),
                             std::string(what) + " of " + std::to_string(m) + " x " + std::to_string(n) +
                                 " does not match the model (dimension " + std::to_string(argDim) + ", at least " +
                                 std::to_string(minRows) + " rows)");
        const std::optional<std::uint64_t> cells = util::checkedMul(static_cast<std::uint64_t>(m), static_cast<std::uint64_t>(n));
        const std::optional<std::uint64_t> bytes = cells ? util::checkedMul<std::uint64_t>(*cells, 4) : std::nullopt;
        if (!bytes)
            throw InputError(path, InputError::atOffset(pos - 16),
                             std::string(what) + " of " + std::to_string(m) + " x " + std::to_string(n) +
                                 " needs more bytes than fit in 64 bits");
        need(*bytes, what);
        in.seekg(static_cast<std::streamoff>(*bytes), std::ios::cur);
        pos += *bytes;
    };
    // getWordVector reads the rows of a word (its id) and of its character n-grams
    // (nwords + hash % bucket, when maxn > 0).
    matrix("input matrix", std::int64_t(nwords) + (argMaxn > 0 ? argBucket : 0));
    matrix("output matrix", 0);
    if (pos != size)
        throw InputError(path, InputError::atOffset(pos), "unexpected bytes after the output matrix");
}

std::string mtimeSizeKey(const std::string& path, std::uint64_t& size, std::int64_t& mtime)
{
    std::error_code ec;
    size = fs::file_size(path, ec);
    if (ec)
        throw InputError(path, "", "cannot stat: " + ec.message());
    mtime = static_cast<std::int64_t>(fs::last_write_time(path, ec).time_since_epoch().count());
    const std::string abs = fs::absolute(path).lexically_normal().string();
    util::ContentHasher h;
    h.update(abs);
    h.update(&size, sizeof size);
    h.update(&mtime, sizeof mtime);
    return h.hex();
}

bool readCache(const std::string& cachePath, WordVectors& wv, CacheHeader& h, const std::string& expectHash,
               std::vector<std::string>& words, std::vector<float>& values)
{
    std::FILE* f = std::fopen(cachePath.c_str(), "rb");
    if (!f)
        return false;
    struct Closer {
        std::FILE* f;
        ~Closer() { std::fclose(f); }
    } closer{f};
    if (std::fread(&h, sizeof h, 1, f) != 1 || std::memcmp(h.magic, kCacheMagic, 8) != 0 || h.version != kCacheVersion
        || h.dim <= 0)
        return false;
    if (!expectHash.empty() && std::string(h.sourceHash, 32) != expectHash)
        return false;
    std::error_code ec;
    const std::uint64_t size = fs::file_size(cachePath, ec);
    // The sizes come from the cache file's header: checked, so that a count whose product
    // wraps cannot match the file size and then be allocated.
    const std::optional<std::uint64_t> floats = util::checkedMul(h.count, static_cast<std::uint64_t>(h.dim));
    const std::optional<std::uint64_t> valueBytes = floats ? util::checkedMul<std::uint64_t>(*floats, 4) : std::nullopt;
    const std::optional<std::uint64_t> tail = util::checkedAdd<std::uint64_t>(h.wordBytes, sizeof h + 8);
    const std::optional<std::uint64_t> expectSize =
        valueBytes && tail ? util::checkedAdd(*valueBytes, *tail) : std::nullopt;
    if (ec || !expectSize || size != *expectSize)
        return false;
    values.resize(h.count * static_cast<std::size_t>(h.dim));
    if (std::fread(values.data(), sizeof(float), values.size(), f) != values.size())
        return false;
    std::string blob(h.wordBytes, '\0');
    if (std::fread(blob.data(), 1, blob.size(), f) != blob.size())
        return false;
    char end[8];
    if (std::fread(end, 1, 8, f) != 8 || std::memcmp(end, kCacheEnd, 8) != 0)
        return false;
    words.clear();
    words.reserve(h.count);
    std::size_t p = 0;
    while (p < blob.size()) {
        const std::size_t z = blob.find('\0', p);
        if (z == std::string::npos)
            return false;
        words.emplace_back(blob, p, z - p);
        p = z + 1;
    }
    (void)wv;
    return words.size() == h.count;
}

} // namespace

const char* wordVectorFormatName(WordVectorFormat f)
{
    switch (f) {
    case WordVectorFormat::Auto:
        return "auto";
    case WordVectorFormat::Word2VecBinary:
        return "word2vec binary";
    case WordVectorFormat::Word2VecText:
        return "word2vec text";
    case WordVectorFormat::GloveText:
        return "GloVe text";
    case WordVectorFormat::FastTextBin:
        return "fastText model";
    case WordVectorFormat::Cache:
        return "setscope cache";
    }
    return "?";
}

WordVectors::WordVectors() = default;
WordVectors::~WordVectors() = default;
WordVectors::WordVectors(WordVectors&&) noexcept = default;
WordVectors& WordVectors::operator=(WordVectors&&) noexcept = default;

void WordVectors::buildIndex(bool lowercaseFallback)
{
    m_index.clear();
    m_lowerIndex.clear();
    m_index.reserve(m_words.size());
    for (std::size_t i = 0; i < m_words.size(); ++i)
        m_index.emplace(m_words[i], static_cast<std::uint32_t>(i));
    if (lowercaseFallback) {
        for (std::size_t i = 0; i < m_words.size(); ++i) {
            std::string low = lowerCaseUtf8(m_words[i]);
            if (low != m_words[i] && !m_index.count(low))
                m_lowerIndex.emplace(std::move(low), static_cast<std::uint32_t>(i));
        }
    }
}

std::int64_t WordVectors::indexOf(std::string_view word) const
{
    if (auto it = m_index.find(word); it != m_index.end())
        return it->second;
    if (auto it = m_lowerIndex.find(word); it != m_lowerIndex.end())
        return it->second;
    return -1;
}

const float* WordVectors::find(std::string_view word) const
{
    const std::int64_t i = indexOf(word);
    return i < 0 ? nullptr : vector(static_cast<std::size_t>(i));
}

bool WordVectors::hasSubwords() const { return m_model && m_model->ft.getArgs().maxn > 0; }

bool WordVectors::subwordVector(std::string_view word, float* out) const
{
    if (!hasSubwords())
        return false;
    fasttext::Vector v(m_dim);
    v.zero();
    m_model->ft.getWordVector(v, std::string(word));
    bool any = false;
    for (int k = 0; k < m_dim; ++k) {
        out[k] = v[k];
        any = any || v[k] != 0.0f;
    }
    return any;
}

WordVectors WordVectors::fromData(std::vector<std::string> words, std::vector<float> values, int dim,
                                  bool lowercaseFallback)
{
    if (dim <= 0 || values.size() != words.size() * static_cast<std::size_t>(dim))
        throw std::invalid_argument("WordVectors::fromData: values must hold words.size() x dim floats");
    Builder b;
    b.dim = dim;
    for (std::size_t i = 0; i < words.size(); ++i)
        b.add(words[i], values.data() + i * static_cast<std::size_t>(dim));
    WordVectors wv;
    wv.m_dim = dim;
    wv.m_words = std::move(b.words);
    wv.m_values = std::move(b.values);
    wv.m_duplicates = b.duplicates;
    util::ContentHasher h;
    for (const auto& w : wv.m_words)
        h.update(w);
    h.update(wv.m_values.data(), wv.m_values.size() * sizeof(float));
    wv.m_contentKey = h.hex();
    wv.buildIndex(lowercaseFallback);
    return wv;
}

std::string setscopeCacheDir() { return util::userCacheDir(); }

void writeWordVectorCache(const WordVectors& wv, const std::string& path, const std::string& sourceHash)
{
    CacheHeader h{};
    std::memcpy(h.magic, kCacheMagic, 8);
    h.version = kCacheVersion;
    h.dim = wv.dim();
    h.count = wv.size();
    h.format = static_cast<std::uint8_t>(wv.format());
    h.duplicates = wv.duplicates();
    std::memset(h.sourceHash, '0', 32);
    std::memcpy(h.sourceHash, sourceHash.data(), std::min<std::size_t>(32, sourceHash.size()));
    std::string blob;
    for (const auto& w : wv.words()) {
        blob += w;
        blob.push_back('\0');
    }
    h.wordBytes = blob.size();
    fs::create_directories(fs::path(path).parent_path());
    const std::string tmp = path + ".tmp." + std::to_string(::getpid());
    {
        std::FILE* f = std::fopen(tmp.c_str(), "wb");
        if (!f)
            throw std::runtime_error("cannot write word-vector cache " + tmp + ": " + std::strerror(errno));
        bool ok = std::fwrite(&h, sizeof h, 1, f) == 1;
        ok = ok && std::fwrite(wv.values().data(), sizeof(float), wv.values().size(), f) == wv.values().size();
        ok = ok && std::fwrite(blob.data(), 1, blob.size(), f) == blob.size();
        ok = ok && std::fwrite(kCacheEnd, 1, 8, f) == 8;
        ok = (std::fclose(f) == 0) && ok;
        if (!ok) {
            std::remove(tmp.c_str());
            throw std::runtime_error("cannot write word-vector cache " + tmp);
        }
    }
    fs::rename(tmp, path);
}

WordVectors loadWordVectors(const std::string& path, const WordVectorOptions& options)
{
    if (!fs::is_regular_file(path))
        throw InputError(path, "", fs::exists(path) ? "not a regular file" : "no such file");
    WordVectorFormat format = options.format;
    std::uint64_t headerCount = 0;
    int headerDim = 0;
    if (format == WordVectorFormat::Auto) {
        File file(path);
        char head[8] = {};
        const std::size_t got = std::fread(head, 1, 8, file.f);
        if (got == 0)
            throw InputError(path, "", "empty file");
        std::int32_t magic = 0;
        std::memcpy(&magic, head, 4);
        if (got >= 4 && magic == kFastTextMagic) {
            format = WordVectorFormat::FastTextBin;
        } else if (got == 8 && std::memcmp(head, kCacheMagic, 8) == 0) {
            format = WordVectorFormat::Cache;
        } else {
            std::rewind(file.f);
            util::LineReader reader = fileLines(file.f);
            std::string_view line;
            reader.next(line);
            if (parseHeader(line, headerCount, headerDim)) {
                format = WordVectorFormat::Word2VecBinary;
                // Text when the next line reads as "word v1 .. vD".
                std::string_view next;
                if (reader.next(next) && !next.empty()) {
                    std::string_view w;
                    std::vector<float> vals;
                    std::string why;
                    if (isValidUtf8(next) && parseTextLine(next, headerDim, w, vals, why))
                        format = WordVectorFormat::Word2VecText;
                }
            } else {
                format = WordVectorFormat::GloveText;
            }
        }
    }

    WordVectors wv;
    wv.m_source = path;
    if (format == WordVectorFormat::FastTextBin) {
        checkFastTextFile(path);
        auto model = std::make_shared<WordVectors::Model>();
        try {
            std::ifstream in(path, std::ios::binary);
            in.seekg(8); // FastText::loadModel(istream) starts after the magic and version checkFastTextFile read
            model->ft.loadModel(in);
            if (in.fail())
                throw InputError(path, "", "fastText model is truncated");
        } catch (const InputError&) {
            throw;
        } catch (const std::exception& e) {
            throw InputError(path, "", std::string("libfasttext cannot read the model: ") + e.what());
        }
        const auto dict = model->ft.getDictionary();
        const int dim = model->ft.getDimension();
        Builder b;
        b.dim = dim;
        fasttext::Vector v(dim);
        std::vector<float> row(static_cast<std::size_t>(dim));
        for (std::int32_t i = 0; i < dict->nwords(); ++i) {
            const std::string& w = dict->getWord(i);
            if (w == fasttext::Dictionary::EOS)
                continue;
            model->ft.getWordVector(v, w);
            for (int k = 0; k < dim; ++k)
                row[static_cast<std::size_t>(k)] = v[k];
            b.add(w, row.data());
        }
        wv.m_dim = dim;
        wv.m_words = std::move(b.words);
        wv.m_values = std::move(b.values);
        wv.m_duplicates = b.duplicates;
        wv.m_format = format;
        wv.m_model = std::move(model);
        std::uint64_t size;
        std::int64_t mtime;
        wv.m_contentKey = "ft-" + mtimeSizeKey(path, size, mtime);
        wv.buildIndex(options.lowercaseFallback);
        return wv;
    }

    if (format == WordVectorFormat::Cache) {
        CacheHeader h{};
        if (!readCache(path, wv, h, {}, wv.m_words, wv.m_values))
            throw InputError(path, "", "damaged or truncated setscope word-vector cache");
        wv.m_dim = h.dim;
        wv.m_format = static_cast<WordVectorFormat>(h.format);
        wv.m_duplicates = h.duplicates;
        wv.m_fromCache = true;
        wv.m_contentKey = std::string(h.sourceHash, 32);
        wv.buildIndex(options.lowercaseFallback);
        return wv;
    }

    if (format == WordVectorFormat::Word2VecBinary) {
        Builder b;
        parseWord2VecBinary(path, b);
        wv.m_dim = b.dim;
        wv.m_words = std::move(b.words);
        wv.m_values = std::move(b.values);
        wv.m_duplicates = b.duplicates;
        wv.m_format = format;
        std::uint64_t size;
        std::int64_t mtime;
        wv.m_contentKey = "w2v-" + mtimeSizeKey(path, size, mtime);
        wv.buildIndex(options.lowercaseFallback);
        return wv;
    }

    // Text formats: through the cache.
    const std::string sourceHash = util::hashFile(path);
    std::string cachePath;
    if (options.useCache) {
        const fs::path dir = options.cacheDir.empty() ? fs::path(setscopeCacheDir()) / "wordvectors" : fs::path(options.cacheDir);
        util::ContentHasher ph;
        ph.update(fs::absolute(path).lexically_normal().string());
        cachePath = (dir / (ph.hex() + ".sswv")).string();
        CacheHeader h{};
        if (readCache(cachePath, wv, h, sourceHash, wv.m_words, wv.m_values)) {
            wv.m_dim = h.dim;
            wv.m_format = static_cast<WordVectorFormat>(h.format);
            wv.m_duplicates = h.duplicates;
            wv.m_fromCache = true;
            wv.m_contentKey = sourceHash;
            wv.buildIndex(options.lowercaseFallback);
            return wv;
        }
    }
    Builder b;
    parseText(path, format == WordVectorFormat::Word2VecText, b);
    wv.m_dim = b.dim;
    wv.m_words = std::move(b.words);
    wv.m_values = std::move(b.values);
    wv.m_duplicates = b.duplicates;
    wv.m_format = format;
    wv.m_contentKey = sourceHash;
    if (!cachePath.empty()) {
        try {
            writeWordVectorCache(wv, cachePath, sourceHash);
        } catch (const std::exception&) {
            // A read-only cache folder only costs speed next time.
        }
    }
    wv.buildIndex(options.lowercaseFallback);
    return wv;
}

} // namespace setscope::data
