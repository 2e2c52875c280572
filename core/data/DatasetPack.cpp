// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/DatasetPack.h"

#include "core/data/Dataset.h"
#include "core/util/AtomicFile.h"
#include "core/util/CheckedMath.h"
#include "core/util/Memory.h"

#include <xxhash.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <unordered_map>
#include <vector>

// The layout (docs/DATASETS.md, "Dataset packs"); every integer and float little-endian:
//
//   magic "setscope-pack\n\x1a\0" (16 bytes), u32 format version (1), u32 0
//   sections, in this order, each: 4-byte tag, u64 payload size, payload
//     HEAD  str name, str source, i32 dim, u64 items, u64 elements, i32 shared columns S,
//           u64 distinct rows R, u8 flags (1 element text, 2 images, 4 edges)
//     SETS  items x u32 set sizes
//     ROWS  R x S f32: the distinct rows of the first S columns (empty when S = 0)
//     ELEM  (S > 0) elements x u32 row index; then elements x (dim - S) f32 own columns
//     WGTS  elements x f32 weights
//     SPLT  items x u8 split (0 train, 1 val, 2 test)
//     LABL  u32 count; each: str name, u32 classes, classes x str, items x i32 label (-1 none)
//     TEXT  (flag 1) u32 strings T, T x str, elements x u32 string index
//     IMGS  (flag 2) i32 width, height, channels, items x (w h c) bytes
//     EDGE  (flag 4) items x u32 edge counts, then 2 x (their sum) i32 element indices
//     NOTE  u32 count, count x str
//   u64 XXH3-64 of every byte before it
//
// str = u32 length + UTF-8 bytes (at most 1 MiB).

namespace setscope::data {

static_assert(std::endian::native == std::endian::little, "dataset packs are read and written little-endian");

namespace {

using sdk::InputError;

constexpr std::uint32_t kPackFormatVersion = 1;
constexpr std::uint32_t kPackMaxString = 1u << 20;
constexpr std::int32_t kPackMaxDim = 1 << 24;
constexpr std::uint32_t kPackMaxLabelSets = 4096;
constexpr std::uint8_t kPackText = 1, kPackImages = 2, kPackEdges = 4;

// ------------------------------------------------------------------------------------------
// Writing

/// Streams bytes into the file and the checksum, counting them.
class PackWriter {
public:
    explicit PackWriter(std::ostream& out)
        : m_out(out)
        , m_state(XXH3_createState())
    {
        if (!m_state)
            throw std::bad_alloc();
        XXH3_64bits_reset(m_state);
    }
    ~PackWriter() { XXH3_freeState(m_state); }
    PackWriter(const PackWriter&) = delete;
    PackWriter& operator=(const PackWriter&) = delete;

    void bytes(const void* p, std::size_t n)
    {
        if (n == 0)
            return;
        m_out.write(static_cast<const char*>(p), static_cast<std::streamsize>(n));
        XXH3_64bits_update(m_state, p, n);
        m_count += n;
    }
    template <class T>
    void value(T v)
    {
        bytes(&v, sizeof v);
    }
    template <class T>
    void array(const std::vector<T>& v)
    {
        bytes(v.data(), v.size() * sizeof(T));
    }
    void str(const std::string& s)
    {
        if (s.size() > kPackMaxString)
            throw std::invalid_argument("dataset pack: a string of " + std::to_string(s.size()) +
                                        " bytes is longer than a pack holds (1 MiB)");
        value(static_cast<std::uint32_t>(s.size()));
        bytes(s.data(), s.size());
    }
    /// Starts a section of `size` payload bytes; end() checks that exactly that many came.
    void begin(const char (&tag)[5], std::uint64_t size)
    {
        bytes(tag, 4);
        value(size);
        m_sectionEnd = m_count + size;
        m_tag = tag;
    }
    void end() const
    {
        if (m_count != m_sectionEnd)
            throw std::logic_error(std::string("dataset pack: section ") + m_tag + " wrote " +
                                   std::to_string(m_count) + " bytes where its size said " + std::to_string(m_sectionEnd));
    }
    void finish()
    {
        const std::uint64_t h = XXH3_64bits_digest(m_state);
        m_out.write(reinterpret_cast<const char*>(&h), sizeof h);
        m_count += sizeof h;
    }
    std::uint64_t count() const { return m_count; }

private:
    std::ostream& m_out;
    XXH3_state_t* m_state;
    std::uint64_t m_count = 0;
    std::uint64_t m_sectionEnd = 0;
    const char* m_tag = "";
};

std::uint64_t packStrSize(const std::string& s) { return 4 + s.size(); }

/// The distinct rows of the first `cols` columns of every element, bit for bit: `rows` the
/// rows in order of first appearance, `index` each element's row.
struct PackSharedRows {
    std::vector<float> rows;
    std::vector<std::uint32_t> index;
    std::uint64_t count = 0;
};

std::optional<PackSharedRows> packShareRows(const Dataset& ds, int cols)
{
    const std::size_t d = static_cast<std::size_t>(ds.dim());
    const std::size_t e = ds.elementCount();
    const float* v = ds.values().data();
    PackSharedRows out;
    out.index.resize(e);
    // Buckets by hash; rows compared byte for byte (so 0.0 and -0.0 stay apart).
    std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> buckets;
    buckets.reserve(e / 4 + 16);
    const std::size_t rowBytes = static_cast<std::size_t>(cols) * sizeof(float);
    for (std::size_t k = 0; k < e; ++k) {
        const float* row = v + k * d;
        const std::uint64_t h = XXH3_64bits(row, rowBytes);
        std::vector<std::uint32_t>& b = buckets[h];
        std::optional<std::uint32_t> found;
        for (std::uint32_t r : b)
            if (std::memcmp(out.rows.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(cols), row, rowBytes) == 0) {
                found = r;
                break;
            }
        if (!found) {
            if (out.count >= 0xffffffffu)
                return std::nullopt; // more distinct rows than a u32 index holds: store the columns per element
            found = static_cast<std::uint32_t>(out.count++);
            b.push_back(*found);
            out.rows.insert(out.rows.end(), row, row + cols);
        }
        out.index[k] = *found;
    }
    return out;
}

} // namespace

PackSummary writeDatasetPack(std::ostream& out, const Dataset& ds, const std::string& source)
{
    const int dim = ds.dim();
    const std::uint64_t n = ds.size();
    const std::uint64_t e = ds.elementCount();
    const auto d = static_cast<std::uint64_t>(dim);

    // Which leading columns to store once per distinct row: all of them (vectors that repeat),
    // all but the last (word vectors with a per-document feature appended, tf=1), or none.
    int shared = 0;
    std::optional<PackSharedRows> rows;
    std::uint64_t best = e * d * 4;
    for (int cols : {dim, dim - 1}) {
        if (cols <= 0 || (cols == dim - 1 && dim < 2))
            continue;
        std::optional<PackSharedRows> r = packShareRows(ds, cols);
        if (!r)
            continue;
        const std::uint64_t size = r->count * static_cast<std::uint64_t>(cols) * 4 + e * 4 + e * (d - static_cast<std::uint64_t>(cols)) * 4;
        if (size < best) {
            best = size;
            shared = cols;
            rows = std::move(r);
        }
    }
    const auto s = static_cast<std::uint64_t>(shared);

    std::uint8_t flags = 0;
    if (ds.hasElementText())
        flags |= kPackText;
    if (ds.hasImages())
        flags |= kPackImages;
    if (ds.hasEdges())
        flags |= kPackEdges;

    PackWriter w(out);
    w.bytes(kPackMagic.data(), kPackMagic.size());
    w.value(kPackFormatVersion);
    w.value(std::uint32_t{0});

    w.begin("HEAD", packStrSize(ds.name()) + packStrSize(source) + 4 + 8 + 8 + 4 + 8 + 1);
    w.str(ds.name());
    w.str(source);
    w.value(static_cast<std::int32_t>(dim));
    w.value(n);
    w.value(e);
    w.value(static_cast<std::int32_t>(shared));
    w.value(rows ? rows->count : std::uint64_t{0});
    w.value(flags);
    w.end();

    w.begin("SETS", n * 4);
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t c = ds.setSize(i);
        if (c > 0xffffffffu)
            throw std::invalid_argument("dataset pack: item " + std::to_string(i) + " has " + std::to_string(c) +
                                        " elements, more than a pack holds per set (2^32 - 1)");
        w.value(static_cast<std::uint32_t>(c));
    }
    w.end();

    w.begin("ROWS", rows ? rows->count * s * 4 : 0);
    if (rows)
        w.array(rows->rows);
    w.end();

    w.begin("ELEM", (shared > 0 ? e * 4 : 0) + e * (d - s) * 4);
    if (rows)
        w.array(rows->index);
    if (shared < dim) {
        const float* v = ds.values().data();
        for (std::size_t k = 0; k < e; ++k)
            w.bytes(v + k * d + s, (d - s) * sizeof(float));
    }
    w.end();

    w.begin("WGTS", e * 4);
    w.array(ds.weights());
    w.end();

    w.begin("SPLT", n);
    for (std::size_t i = 0; i < n; ++i)
        w.value(static_cast<std::uint8_t>(ds.split(i)));
    w.end();

    std::uint64_t labelBytes = 4;
    for (const LabelSet& ls : ds.labelSets()) {
        labelBytes += packStrSize(ls.name) + 4 + n * 4;
        for (const std::string& c : ls.classNames)
            labelBytes += packStrSize(c);
    }
    w.begin("LABL", labelBytes);
    w.value(static_cast<std::uint32_t>(ds.labelSets().size()));
    for (const LabelSet& ls : ds.labelSets()) {
        w.str(ls.name);
        w.value(static_cast<std::uint32_t>(ls.classNames.size()));
        for (const std::string& c : ls.classNames)
            w.str(c);
        w.array(ls.labels);
    }
    w.end();

    if (flags & kPackText) {
        // Each distinct string once.
        std::vector<const std::string*> table;
        std::unordered_map<std::string_view, std::uint32_t> ids;
        std::vector<std::uint32_t> index(e);
        std::uint64_t size = 4 + e * 4;
        for (std::size_t k = 0; k < e; ++k) {
            const std::string& t = ds.elementText(k);
            auto [it, fresh] = ids.try_emplace(t, static_cast<std::uint32_t>(table.size()));
            if (fresh) {
                table.push_back(&t);
                size += packStrSize(t);
            }
            index[k] = it->second;
        }
        w.begin("TEXT", size);
        w.value(static_cast<std::uint32_t>(table.size()));
        for (const std::string* t : table)
            w.str(*t);
        w.array(index);
        w.end();
    }

    if (flags & kPackImages) {
        const ImageFormat& f = ds.imageFormat();
        w.begin("IMGS", 12 + n * f.bytesPerItem());
        w.value(static_cast<std::int32_t>(f.width));
        w.value(static_cast<std::int32_t>(f.height));
        w.value(static_cast<std::int32_t>(f.channels));
        for (std::size_t i = 0; i < n; ++i)
            w.bytes(ds.image(i), f.bytesPerItem());
        w.end();
    }

    if (flags & kPackEdges) {
        w.begin("EDGE", n * 4 + ds.edgePairs().size() * 4);
        for (std::size_t i = 0; i < n; ++i)
            w.value(static_cast<std::uint32_t>(ds.edgeCount(i)));
        w.array(ds.edgePairs());
        w.end();
    }

    std::uint64_t noteBytes = 4;
    for (const std::string& note : ds.notes())
        noteBytes += packStrSize(note);
    w.begin("NOTE", noteBytes);
    w.value(static_cast<std::uint32_t>(ds.notes().size()));
    for (const std::string& note : ds.notes())
        w.str(note);
    w.end();
    w.finish();

    PackSummary sum;
    sum.source = source;
    sum.bytes = w.count();
    sum.sharedColumns = shared;
    sum.distinctRows = rows ? rows->count : 0;
    sum.elements = e;
    sum.items = n;
    return sum;
}

PackSummary writeDatasetPackFile(const std::string& path, const Dataset& ds, const std::string& source)
{
    PackSummary sum;
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    if (std::error_code ec; !parent.empty() && !std::filesystem::create_directories(parent, ec) && ec)
        throw std::runtime_error(path + ": cannot create the folder " + parent.string() + ": " + ec.message());
    util::writeFileAtomically(path, [&](std::ostream& out) { sum = writeDatasetPack(out, ds, source); });
    return sum;
}

// ------------------------------------------------------------------------------------------
// Reading

namespace {

/// Reads the values of one section, each read checked against the section's end.
class PackSection {
public:
    PackSection(std::string_view file, std::uint64_t begin, std::uint64_t end, const char* tag, const std::string& origin)
        : m_file(file)
        , m_pos(begin)
        , m_end(end)
        , m_tag(tag)
        , m_origin(origin)
    {
    }

    [[noreturn]] void refuse(const std::string& why) const { refuseAt(m_pos, why); }
    [[noreturn]] void refuseAt(std::uint64_t offset, const std::string& why) const
    {
        throw InputError(m_origin, std::string("section ") + m_tag + ", " + InputError::atOffset(offset), why);
    }

    std::uint64_t left() const { return m_end - m_pos; }
    std::uint64_t pos() const { return m_pos; }
    /// `n` bytes from here (refused when the section has fewer).
    const char* take(std::uint64_t n, const char* what)
    {
        if (n > left())
            refuse(std::string(what) + ": " + std::to_string(n) + " bytes needed, the section has " +
                   std::to_string(left()) + " left");
        const char* p = m_file.data() + m_pos;
        m_pos += n;
        return p;
    }
    template <class T>
    T value(const char* what)
    {
        T v;
        std::memcpy(&v, take(sizeof v, what), sizeof v);
        return v;
    }
    std::string str(const char* what)
    {
        const std::uint64_t at = m_pos;
        const auto n = value<std::uint32_t>(what);
        if (n > kPackMaxString)
            refuseAt(at, std::string(what) + ": a string of " + std::to_string(n) + " bytes (at most 1 MiB)");
        const char* p = take(n, what);
        return std::string(p, n);
    }
    /// `count` values of `size` bytes each, from here: the pointer to the first.
    const char* array(std::uint64_t count, std::uint64_t size, const char* what)
    {
        const std::optional<std::uint64_t> n = util::checkedMul(count, size);
        if (!n)
            refuse(std::string(what) + ": " + std::to_string(count) + " values overflow 64 bits");
        return take(*n, what);
    }
    void expectEnd() const
    {
        if (m_pos != m_end)
            refuse(std::to_string(m_end - m_pos) + " bytes after the section's content");
    }

private:
    std::string_view m_file;
    std::uint64_t m_pos;
    std::uint64_t m_end;
    const char* m_tag;
    const std::string& m_origin;
};

template <class T>
T packLoad(const char* p, std::uint64_t k)
{
    T v;
    std::memcpy(&v, p + k * sizeof(T), sizeof v);
    return v;
}

/// Walks the sections in their fixed order.
class PackSections {
public:
    PackSections(std::string_view file, std::uint64_t begin, std::uint64_t end, const std::string& origin)
        : m_file(file)
        , m_pos(begin)
        , m_end(end)
        , m_origin(origin)
    {
    }
    PackSection next(const char* tag)
    {
        if (m_end - m_pos < 12)
            throw InputError(m_origin, InputError::atOffset(m_pos),
                             std::string("section ") + tag + " expected, the file ends (" + std::to_string(m_end - m_pos) +
                                 " bytes before the checksum)");
        if (std::memcmp(m_file.data() + m_pos, tag, 4) != 0)
            throw InputError(m_origin, InputError::atOffset(m_pos),
                             std::string("section ") + tag + " expected here, found '" + printable(m_pos) + "'");
        std::uint64_t size;
        std::memcpy(&size, m_file.data() + m_pos + 4, 8);
        const std::uint64_t begin = m_pos + 12;
        if (size > m_end - begin)
            throw InputError(m_origin, InputError::atOffset(m_pos + 4),
                             std::string("section ") + tag + " claims " + std::to_string(size) + " bytes, the file has " +
                                 std::to_string(m_end - begin) + " before its checksum");
        m_pos = begin + size;
        return PackSection(m_file, begin, begin + size, tag, m_origin);
    }
    void expectEnd() const
    {
        if (m_pos != m_end)
            throw InputError(m_origin, InputError::atOffset(m_pos),
                             std::to_string(m_end - m_pos) + " bytes after the last section");
    }

private:
    std::string printable(std::uint64_t at) const
    {
        std::string s;
        for (std::uint64_t k = at; k < at + 4; ++k) {
            const unsigned char c = static_cast<unsigned char>(m_file[k]);
            s += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
        }
        return s;
    }
    std::string_view m_file;
    std::uint64_t m_pos;
    std::uint64_t m_end;
    const std::string& m_origin;
};

} // namespace

void readDatasetPack(std::string_view bytes, const std::string& origin, sdk::DatasetSink& sink,
                     const PackReadOptions& options)
{
    constexpr std::uint64_t kPreamble = 16 + 4 + 4;
    if (bytes.size() < kPreamble + 8 || bytes.substr(0, kPackMagic.size()) != kPackMagic)
        throw InputError(origin, "", "not a setscope dataset pack (the file does not start with its magic bytes)");
    const auto version = packLoad<std::uint32_t>(bytes.data() + 16, 0);
    if (version != kPackFormatVersion)
        throw InputError(origin, InputError::atOffset(16),
                         "pack format version " + std::to_string(version) + " (this setscope reads version " +
                             std::to_string(kPackFormatVersion) + ")");
    if (packLoad<std::uint32_t>(bytes.data() + 20, 0) != 0)
        throw InputError(origin, InputError::atOffset(20), "reserved field is not 0");
    const std::uint64_t body = bytes.size() - 8;
    if (options.verifyChecksum) {
        const std::uint64_t stored = packLoad<std::uint64_t>(bytes.data() + body, 0);
        if (XXH3_64bits(bytes.data(), body) != stored)
            throw InputError(origin, InputError::atOffset(body),
                             "checksum mismatch: the file is damaged or incomplete");
    }

    PackSections sections(bytes, kPreamble, body, origin);

    // HEAD
    PackSection head = sections.next("HEAD");
    const std::string name = head.str("name");
    const std::string source = head.str("source");
    const auto dim = head.value<std::int32_t>("dimension");
    if (dim < 1 || dim > kPackMaxDim)
        head.refuseAt(head.pos() - 4, "dimension " + std::to_string(dim) + " outside [1, " + std::to_string(kPackMaxDim) + "]");
    const auto n = head.value<std::uint64_t>("items");
    const auto e = head.value<std::uint64_t>("elements");
    if (n == 0)
        head.refuseAt(head.pos() - 16, "no items");
    if (e < n)
        head.refuseAt(head.pos() - 8, std::to_string(e) + " elements for " + std::to_string(n) +
                                           " items (every set has at least one)");
    const auto shared = head.value<std::int32_t>("shared columns");
    if (shared < 0 || shared > dim)
        head.refuseAt(head.pos() - 4, "shared columns " + std::to_string(shared) + " outside [0, " + std::to_string(dim) + "]");
    const auto rowCount = head.value<std::uint64_t>("distinct rows");
    if ((shared == 0 && rowCount != 0) || (shared > 0 && (rowCount == 0 || rowCount > e)))
        head.refuseAt(head.pos() - 8, std::to_string(rowCount) + " distinct rows for " + std::to_string(shared) +
                                           " shared columns and " + std::to_string(e) + " elements");
    const auto flags = head.value<std::uint8_t>("flags");
    if (flags & ~(kPackText | kPackImages | kPackEdges))
        head.refuseAt(head.pos() - 1, "unknown flags " + std::to_string(flags));
    head.expectEnd();
    const auto d = static_cast<std::uint64_t>(dim);
    const auto s = static_cast<std::uint64_t>(shared);

    // Everything below is bounded by the file's own bytes except the values, which repeat the
    // shared rows: weigh them before any is made.
    {
        const std::optional<std::uint64_t> values = util::checkedMul(e, d + 1);
        const std::optional<std::uint64_t> bytes = values ? util::checkedMul<std::uint64_t>(*values, sizeof(float)) : std::nullopt;
        if (!bytes)
            throw InputError(origin, "section HEAD", std::to_string(e) + " elements of dimension " + std::to_string(dim) +
                                                         " overflow 64 bits");
        util::requireMemory(origin, *bytes,
                            std::to_string(e) + " elements of dimension " + std::to_string(dim) + " as float32");
    }

    PackSection sets = sections.next("SETS");
    const char* sizes = sets.array(n, 4, "set sizes");
    sets.expectEnd();
    {
        std::uint64_t total = 0;
        for (std::uint64_t i = 0; i < n; ++i) {
            const auto c = packLoad<std::uint32_t>(sizes, i);
            if (c == 0)
                sets.refuseAt(sets.pos() - (n - i) * 4, "item " + std::to_string(i) + " is an empty set");
            total += c; // n x 2^32 cannot overflow 64 bits for any n a file can hold
        }
        if (total != e)
            sets.refuseAt(sets.pos() - n * 4, "the set sizes add up to " + std::to_string(total) + " elements, HEAD says " +
                                                  std::to_string(e));
    }

    PackSection rowsSec = sections.next("ROWS");
    const char* rows = rowsSec.array(rowCount, s * 4, "shared rows");
    rowsSec.expectEnd();

    PackSection elem = sections.next("ELEM");
    const char* rowIndex = shared > 0 ? elem.array(e, 4, "row indices") : nullptr;
    const char* own = elem.array(e, (d - s) * 4, "element columns");
    elem.expectEnd();
    if (rowIndex)
        for (std::uint64_t k = 0; k < e; ++k)
            if (packLoad<std::uint32_t>(rowIndex, k) >= rowCount)
                elem.refuseAt(elem.pos() - e * (d - s) * 4 - (e - k) * 4,
                              "element " + std::to_string(k) + " names row " + std::to_string(packLoad<std::uint32_t>(rowIndex, k)) +
                                  " of " + std::to_string(rowCount));

    PackSection wgts = sections.next("WGTS");
    const char* weights = wgts.array(e, 4, "weights");
    wgts.expectEnd();

    PackSection splt = sections.next("SPLT");
    const char* splits = splt.array(n, 1, "splits");
    splt.expectEnd();
    for (std::uint64_t i = 0; i < n; ++i)
        if (static_cast<std::uint8_t>(splits[i]) > 2)
            splt.refuseAt(splt.pos() - n + i, "item " + std::to_string(i) + " has split " +
                                                  std::to_string(static_cast<std::uint8_t>(splits[i])) +
                                                  " (0 train, 1 val, 2 test)");

    struct PackedLabelSet {
        std::string name;
        std::vector<std::string> classes;
        const char* labels = nullptr;
    };
    std::vector<PackedLabelSet> labelSets;
    PackSection labl = sections.next("LABL");
    {
        const auto count = labl.value<std::uint32_t>("label set count");
        if (count > kPackMaxLabelSets)
            labl.refuseAt(labl.pos() - 4, std::to_string(count) + " label sets (at most " + std::to_string(kPackMaxLabelSets) + ")");
        for (std::uint32_t k = 0; k < count; ++k) {
            PackedLabelSet ls;
            ls.name = labl.str("label set name");
            const auto classes = labl.value<std::uint32_t>("class count");
            if (classes > labl.left() / 4) // every class name takes at least its 4-byte length
                labl.refuseAt(labl.pos() - 4, std::to_string(classes) + " classes claimed, the section has room for " +
                                                  std::to_string(labl.left() / 4));
            if (classes > 0x7fffffffu)
                labl.refuseAt(labl.pos() - 4, std::to_string(classes) + " classes (label ids are 32-bit)");
            ls.classes.reserve(classes);
            for (std::uint32_t c = 0; c < classes; ++c)
                ls.classes.push_back(labl.str("class name"));
            ls.labels = labl.array(n, 4, "labels");
            for (std::uint64_t i = 0; i < n; ++i) {
                const auto v = packLoad<std::int32_t>(ls.labels, i);
                if (v != sdk::kUnlabelled && (v < 0 || static_cast<std::uint32_t>(v) >= classes))
                    labl.refuseAt(labl.pos() - (n - i) * 4, "label set '" + ls.name + "': item " + std::to_string(i) +
                                                               " has label " + std::to_string(v) + " of " +
                                                               std::to_string(classes) + " classes");
            }
            labelSets.push_back(std::move(ls));
        }
        labl.expectEnd();
    }

    std::vector<std::string> texts;
    const char* textIndex = nullptr;
    if (flags & kPackText) {
        PackSection text = sections.next("TEXT");
        const auto count = text.value<std::uint32_t>("string count");
        if (count == 0)
            text.refuseAt(text.pos() - 4, "no strings for the elements' text");
        if (count > text.left() / 4)
            text.refuseAt(text.pos() - 4, std::to_string(count) + " strings claimed, the section has room for " +
                                              std::to_string(text.left() / 4));
        texts.reserve(count);
        for (std::uint32_t k = 0; k < count; ++k)
            texts.push_back(text.str("element text"));
        textIndex = text.array(e, 4, "text indices");
        text.expectEnd();
        for (std::uint64_t k = 0; k < e; ++k)
            if (packLoad<std::uint32_t>(textIndex, k) >= count)
                text.refuseAt(text.pos() - (e - k) * 4, "element " + std::to_string(k) + " names string " +
                                                            std::to_string(packLoad<std::uint32_t>(textIndex, k)) + " of " +
                                                            std::to_string(count));
    }

    std::int32_t imageW = 0, imageH = 0, imageC = 0;
    const char* pixels = nullptr;
    std::uint64_t imageBytes = 0;
    if (flags & kPackImages) {
        PackSection imgs = sections.next("IMGS");
        imageW = imgs.value<std::int32_t>("image width");
        imageH = imgs.value<std::int32_t>("image height");
        imageC = imgs.value<std::int32_t>("image channels");
        if (imageW <= 0 || imageH <= 0 || (imageC != 1 && imageC != 3 && imageC != 4) || imageW > (1 << 16) ||
            imageH > (1 << 16))
            imgs.refuseAt(imgs.pos() - 12, "bad image format " + std::to_string(imageW) + "x" + std::to_string(imageH) +
                                               "x" + std::to_string(imageC));
        imageBytes = static_cast<std::uint64_t>(imageW) * static_cast<std::uint64_t>(imageH) * static_cast<std::uint64_t>(imageC);
        pixels = imgs.array(n, imageBytes, "images");
        imgs.expectEnd();
    }

    const char* edgeCounts = nullptr;
    const char* edgePairs = nullptr;
    if (flags & kPackEdges) {
        PackSection edge = sections.next("EDGE");
        edgeCounts = edge.array(n, 4, "edge counts");
        std::uint64_t total = 0;
        for (std::uint64_t i = 0; i < n; ++i)
            total += packLoad<std::uint32_t>(edgeCounts, i);
        edgePairs = edge.array(total, 8, "edges");
        edge.expectEnd();
    }

    std::vector<std::string> notes;
    PackSection note = sections.next("NOTE");
    {
        const auto count = note.value<std::uint32_t>("note count");
        if (count > note.left() / 4)
            note.refuseAt(note.pos() - 4, std::to_string(count) + " notes claimed, the section has room for " +
                                              std::to_string(note.left() / 4));
        for (std::uint32_t k = 0; k < count; ++k)
            notes.push_back(note.str("note"));
        note.expectEnd();
    }
    sections.expectEnd();

    // Every structure is checked: the dataset, item by item. The values are the builder's to
    // check (finite, weights non-negative with a positive sum).
    sink.setName(name.empty() ? std::filesystem::path(origin).stem().string() : name);
    sink.setDimension(dim);
    if (pixels)
        sink.setImageFormat(imageW, imageH, imageC);
    sink.reserve(n, e);
    std::vector<float> values;
    std::vector<float> itemWeights;
    std::vector<std::string> itemText;
    std::uint64_t first = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
        const std::uint64_t c = packLoad<std::uint32_t>(sizes, i);
        values.resize(c * d);
        itemWeights.resize(c);
        for (std::uint64_t k = 0; k < c; ++k) {
            const std::uint64_t el = first + k;
            float* out = values.data() + k * d;
            if (rowIndex) {
                const std::uint64_t r = packLoad<std::uint32_t>(rowIndex, el);
                std::memcpy(out, rows + r * s * 4, s * 4);
            }
            std::memcpy(out + s, own + el * (d - s) * 4, (d - s) * 4);
            itemWeights[k] = packLoad<float>(weights, el);
        }
        const std::size_t item = sink.addItem(values.data(), itemWeights.data(), c, static_cast<sdk::Split>(splits[i]));
        if (textIndex) {
            itemText.resize(c);
            for (std::uint64_t k = 0; k < c; ++k)
                itemText[k] = texts[packLoad<std::uint32_t>(textIndex, first + k)];
            sink.setElementText(item, itemText);
        }
        if (pixels)
            sink.setImage(item, reinterpret_cast<const std::uint8_t*>(pixels) + i * imageBytes);
        first += c;
    }
    if (edgeCounts) {
        std::uint64_t at = 0;
        std::vector<std::int32_t> pairs;
        for (std::uint64_t i = 0; i < n; ++i) {
            const std::uint64_t m = packLoad<std::uint32_t>(edgeCounts, i);
            pairs.resize(2 * m);
            if (m > 0)
                std::memcpy(pairs.data(), edgePairs + at * 8, m * 8);
            sink.setElementEdges(i, pairs.data(), m);
            at += m;
        }
    }
    for (const PackedLabelSet& ls : labelSets) {
        sink.defineLabelSet(ls.name, ls.classes);
        for (std::uint64_t i = 0; i < n; ++i)
            if (const auto v = packLoad<std::int32_t>(ls.labels, i); v != sdk::kUnlabelled)
                sink.setLabel(ls.name, i, v);
    }
    for (const std::string& text : notes)
        sink.note(text);
    sink.note("opened from the dataset pack " + origin + (source.empty() ? std::string() : " (made from " + source + ")"));
}

void loadDatasetPack(const std::string& path, sdk::DatasetSink& sink, const PackReadOptions& options)
{
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    if (ec)
        throw InputError(path, "", "cannot read: " + ec.message());
    util::requireMemory(path, size, "the dataset pack's bytes");
    std::string bytes;
    {
        std::ifstream in(path, std::ios::binary);
        if (!in)
            throw InputError(path, "", "cannot open the file");
        bytes.resize(static_cast<std::size_t>(size));
        in.read(bytes.data(), static_cast<std::streamsize>(size));
        if (static_cast<std::uintmax_t>(in.gcount()) != size)
            throw InputError(path, "", "the file ended after " + std::to_string(in.gcount()) + " of " +
                                           std::to_string(size) + " bytes (it changed while being read)");
    }
    readDatasetPack(bytes, path, sink, options);
    sink.addSourceFile(path);
}

bool looksLikeDatasetPack(const std::string& path)
{
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        return false;
    std::ifstream in(path, std::ios::binary);
    char head[16];
    if (!in.read(head, sizeof head))
        return false;
    return std::string_view(head, sizeof head) == kPackMagic;
}

sdk::LoaderInfo datasetPackLoaderInfo()
{
    return {"pack", "setscope dataset pack (setscope-cli export --format pack): sets, labels, splits, text, images, edges",
            {kPackExtension},
            {},
            [](const std::string& p) { return looksLikeDatasetPack(p); },
            [](const std::string& p, const sdk::OptionValues&, sdk::DatasetSink& s, sdk::LoadContext&) { loadDatasetPack(p, s); }};
}

} // namespace setscope::data
