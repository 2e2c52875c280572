// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/MatV5Check.h"

#include "core/util/CheckedMath.h"

#include <setscope/sdk/Errors.h>

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <vector>

namespace setscope::data {

namespace {

using sdk::InputError;

// Data types (MATLAB's "MAT-File Format", 2021, Table 1-1) and array classes (Table 1-3).
enum : std::uint32_t {
    miINT8 = 1,
    miUINT8 = 2,
    miINT16 = 3,
    miUINT16 = 4,
    miINT32 = 5,
    miUINT32 = 6,
    miSINGLE = 7,
    miDOUBLE = 9,
    miINT64 = 12,
    miUINT64 = 13,
    miMATRIX = 14,
    miCOMPRESSED = 15,
    miUTF8 = 16,
    miUTF16 = 17,
    miUTF32 = 18,
};
enum : std::uint32_t {
    mxCELL = 1,
    mxSTRUCT = 2,
    mxOBJECT = 3,
    mxCHAR = 4,
    mxSPARSE = 5,
    mxDOUBLE = 6,
    mxUINT64 = 15,
};
constexpr std::uint32_t kComplexFlag = 0x0800;
constexpr int kMaxDepth = 64;     // cells in cells in cells...
constexpr std::uint32_t kMaxRank = 64;
// What matio keeps per array header (matvar_t, its dims and name, the cell pointer): the
// memory estimate's cost of an array, whatever its size (measured 1.5.23: ~150 bytes).
constexpr std::uint64_t kArrayOverhead = 256;
constexpr std::size_t kWindow = 64 * 1024;

std::uint32_t swap32(std::uint32_t v) { return __builtin_bswap32(v); }

std::uint64_t pad8(std::uint64_t n) { return (n + 7) / 8 * 8; }

/// Bytes per element of a stored data type; 0 = not a numeric or character type.
std::uint64_t typeSize(std::uint32_t t)
{
    switch (t) {
    case miINT8:
    case miUINT8:
    case miUTF8: return 1;
    case miINT16:
    case miUINT16:
    case miUTF16: return 2;
    case miINT32:
    case miUINT32:
    case miSINGLE:
    case miUTF32: return 4;
    case miDOUBLE:
    case miINT64:
    case miUINT64: return 8;
    default: return 0;
    }
}

/// Bytes per element once matio has read an array of this class (it converts the stored
/// type to the class's type).
std::uint64_t classSize(std::uint32_t cls)
{
    switch (cls) {
    case mxCHAR: return 2;
    case 7: return 4;                 // mxSINGLE
    case 8: case 9: return 1;         // mxINT8, mxUINT8
    case 10: case 11: return 2;       // mxINT16, mxUINT16
    case 12: case 13: return 4;       // mxINT32, mxUINT32
    default: return 8;                // double, 64-bit integers, sparse values
    }
}

/// A forward-only stream of bytes: the file, or a compressed variable inflated on the fly.
class Source {
public:
    virtual ~Source() = default;
    /// Reads exactly n bytes or throws through fail().
    virtual void read(void* dst, std::size_t n) = 0;
    virtual void skip(std::uint64_t n) = 0;
    /// Bytes consumed so far (in this stream).
    virtual std::uint64_t offset() const = 0;
    /// Where the stream is, for messages.
    virtual std::string where() const = 0;
};

class FileSource final : public Source {
public:
    FileSource(std::ifstream& in, std::uint64_t start, std::uint64_t end)
        : m_in(in)
        , m_pos(start)
        , m_end(end)
    {
        m_in.clear();
        m_in.seekg(static_cast<std::streamoff>(start));
    }
    void read(void* dst, std::size_t n) override
    {
        if (n > m_end - m_pos)
            throw std::out_of_range("the file ends at byte " + std::to_string(m_end));
        m_in.read(static_cast<char*>(dst), static_cast<std::streamsize>(n));
        if (static_cast<std::size_t>(m_in.gcount()) != n)
            throw std::out_of_range("the file ends early");
        m_pos += n;
    }
    void skip(std::uint64_t n) override
    {
        if (n > m_end - m_pos)
            throw std::out_of_range("the file ends at byte " + std::to_string(m_end));
        m_pos += n;
        m_in.seekg(static_cast<std::streamoff>(m_pos));
    }
    std::uint64_t offset() const override { return m_pos; }
    std::string where() const override { return InputError::atOffset(m_pos); }

private:
    std::ifstream& m_in;
    std::uint64_t m_pos;
    std::uint64_t m_end;
};

/// A compressed variable's zlib stream, inflated through a fixed window: never more than
/// kWindow bytes of output at a time, whatever the variable claims.
class InflateSource final : public Source {
public:
    InflateSource(std::ifstream& in, std::uint64_t start, std::uint64_t length)
        : m_in(in)
        , m_filePos(start)
        , m_fileEnd(start + length)
        , m_start(start)
    {
        if (inflateInit(&m_z) != Z_OK)
            throw std::runtime_error("zlib cannot start");
        m_in.clear();
    }
    ~InflateSource() override { inflateEnd(&m_z); }
    InflateSource(const InflateSource&) = delete;
    InflateSource& operator=(const InflateSource&) = delete;

    void read(void* dst, std::size_t n) override
    {
        auto* out = static_cast<unsigned char*>(dst);
        while (n > 0) {
            if (m_outPos == m_outEnd)
                refill();
            const std::size_t k = std::min<std::size_t>(n, m_outEnd - m_outPos);
            std::memcpy(out, m_out.data() + m_outPos, k);
            m_outPos += k;
            m_consumed += k;
            out += k;
            n -= k;
        }
    }
    void skip(std::uint64_t n) override
    {
        while (n > 0) {
            if (m_outPos == m_outEnd)
                refill();
            const std::uint64_t k = std::min<std::uint64_t>(n, m_outEnd - m_outPos);
            m_outPos += static_cast<std::size_t>(k);
            m_consumed += k;
            n -= k;
        }
    }
    std::uint64_t offset() const override { return m_consumed; }
    std::string where() const override
    {
        return "compressed variable at " + InputError::atOffset(m_start - 8) + ", inflated byte " +
               std::to_string(m_consumed);
    }

private:
    void refill()
    {
        m_outPos = 0;
        m_outEnd = 0;
        while (m_outEnd == 0) {
            if (m_z.avail_in == 0) {
                if (m_filePos >= m_fileEnd || m_ended)
                    throw std::out_of_range("the compressed data ends before the variable does");
                const std::size_t k = static_cast<std::size_t>(std::min<std::uint64_t>(m_inBuffer.size(), m_fileEnd - m_filePos));
                m_in.seekg(static_cast<std::streamoff>(m_filePos));
                m_in.read(reinterpret_cast<char*>(m_inBuffer.data()), static_cast<std::streamsize>(k));
                if (static_cast<std::size_t>(m_in.gcount()) != k)
                    throw std::out_of_range("the file ends early");
                m_filePos += k;
                m_z.next_in = m_inBuffer.data();
                m_z.avail_in = static_cast<uInt>(k);
            }
            m_z.next_out = m_out.data();
            m_z.avail_out = static_cast<uInt>(m_out.size());
            const int rc = inflate(&m_z, Z_NO_FLUSH);
            m_outEnd = m_out.size() - m_z.avail_out;
            if (rc == Z_STREAM_END)
                m_ended = true;
            else if (rc != Z_OK && !(rc == Z_BUF_ERROR && m_outEnd > 0))
                throw std::out_of_range(std::string("the compressed data is damaged (zlib: ") +
                                        (m_z.msg ? m_z.msg : "error " + std::to_string(rc)) + ")");
            if (m_outEnd == 0 && m_ended)
                throw std::out_of_range("the compressed data ends before the variable does");
        }
    }

    std::ifstream& m_in;
    std::uint64_t m_filePos;
    std::uint64_t m_fileEnd;
    std::uint64_t m_start;
    z_stream m_z{};
    bool m_ended = false;
    std::array<unsigned char, 16 * 1024> m_inBuffer{};
    std::vector<unsigned char> m_out = std::vector<unsigned char>(kWindow);
    std::size_t m_outPos = 0;
    std::size_t m_outEnd = 0;
    std::uint64_t m_consumed = 0;
};

struct Tag {
    std::uint32_t type = 0;
    std::uint64_t size = 0;  ///< bytes of data
    std::uint64_t total = 0; ///< bytes the element takes, tag and padding included
    bool small = false;      ///< the data (<= 4 bytes) is inside the tag
    std::array<unsigned char, 4> smallData{};
};

class Walker {
public:
    Walker(std::string path, bool swap, std::uint64_t budget)
        : m_path(std::move(path))
        , m_swap(swap)
        , m_budget(budget)
    {
    }

    MatClaims claims;

    [[noreturn]] void fail(const Source& s, const std::string& what, const std::string& message) const
    {
        throw InputError(m_path, what + " (" + s.where() + ")", message);
    }

    std::uint32_t u32(const unsigned char* p) const
    {
        std::uint32_t v;
        std::memcpy(&v, p, 4);
        return m_swap ? swap32(v) : v;
    }

    /// Reads a sub-element's tag inside an element with `rem` bytes left (rem is reduced by
    /// what the whole sub-element takes, data and padding included).
    Tag tag(Source& s, std::uint64_t& rem, const std::string& what, bool allowSmall = true)
    {
        if (rem < 8)
            fail(s, what, "an element ends inside a tag (" + std::to_string(rem) + " bytes left); the file is damaged");
        unsigned char b[8];
        s.read(b, 8);
        Tag t;
        const std::uint32_t first = u32(b);
        if (allowSmall && (first >> 16) != 0) {
            t.small = true;
            t.type = first & 0xffff;
            t.size = first >> 16;
            if (t.size > 4)
                fail(s, what, "a small data element claims " + std::to_string(t.size) + " bytes (at most 4)");
            std::memcpy(t.smallData.data(), b + 4, 4);
            t.total = 8;
        } else {
            t.type = first;
            t.size = u32(b + 4);
            if (t.size > rem - 8)
                fail(s, what,
                     "an element claims " + std::to_string(t.size) + " bytes but only " + std::to_string(rem - 8) +
                         " follow in its parent; the file is truncated or damaged");
            // Padded to 8 bytes, unless the parent ends first (some writers leave the last
            // element of an array unpadded).
            t.total = 8 + std::min(pad8(t.size), rem - 8);
        }
        rem -= 8;
        return t;
    }

    /// Skips the data of a non-small sub-element (and its padding).
    void skipData(Source& s, const Tag& t, std::uint64_t& rem)
    {
        if (t.small)
            return;
        const std::uint64_t n = t.total - 8;
        s.skip(n);
        rem -= n;
    }

    void account(Source& s, const std::string& what, std::uint64_t arrays, std::uint64_t elements, std::uint64_t bytesEach)
    {
        claims.arrays += arrays;
        claims.elements += elements;
        const std::optional<std::uint64_t> add = util::checkedMul(elements, bytesEach);
        const std::optional<std::uint64_t> head = util::checkedMul(arrays, kArrayOverhead);
        if (!add || !head || claims.memoryBytes > m_budget || *add > m_budget || *head > m_budget ||
            claims.memoryBytes + *add + *head > m_budget)
            fail(s, what,
                 "reading it would take more memory than the budget of " + std::to_string(m_budget >> 20) +
                     " MiB (" + std::to_string(claims.arrays) + " arrays, " + std::to_string(claims.elements) +
                     " elements so far); refused before reading");
        claims.memoryBytes += *add + *head;
    }

    /// One array nested in a cell array or a struct (`kind`: "a cell", "a struct field"),
    /// tag included, inside a parent with `rem` bytes left.
    void nested(Source& s, std::uint64_t& rem, const std::string& where, const char* kind, int depth)
    {
        const Tag c = tag(s, rem, where, false);
        if (c.type != miMATRIX)
            fail(s, where, std::string(kind) + " must be an array (miMATRIX), found type " + std::to_string(c.type));
        const std::uint64_t before = s.offset();
        matrix(s, c.size, where, depth + 1);
        s.skip(c.total - 8 - (s.offset() - before));
        rem -= c.total - 8;
    }

    /// An miMATRIX element of `nbytes` bytes of data (its tag already read).
    void matrix(Source& s, std::uint64_t nbytes, const std::string& what, int depth)
    {
        if (depth > kMaxDepth)
            fail(s, what, "arrays nested more than " + std::to_string(kMaxDepth) + " deep");
        account(s, what, 1, 0, 0);
        if (nbytes == 0)
            return; // an empty array ([] in a cell)
        std::uint64_t rem = nbytes;
        // Array flags.
        const Tag flags = tag(s, rem, what);
        if (flags.small || flags.type != miUINT32 || flags.size != 8)
            fail(s, what, "array flags expected (8 bytes of miUINT32), found type " + std::to_string(flags.type) +
                              " of " + std::to_string(flags.size) + " bytes");
        unsigned char fb[8];
        s.read(fb, 8);
        rem -= 8;
        const std::uint32_t cls = u32(fb) & 0xff;
        const bool complex = (u32(fb) & kComplexFlag) != 0;
        // Dimensions.
        const Tag dims = tag(s, rem, what);
        if (dims.small || dims.type != miINT32 || dims.size % 4 != 0 || dims.size / 4 < 2 || dims.size / 4 > kMaxRank)
            fail(s, what, "dimensions expected (2 to " + std::to_string(kMaxRank) + " miINT32 values), found type " +
                              std::to_string(dims.type) + " of " + std::to_string(dims.size) + " bytes");
        std::vector<std::uint64_t> d(dims.size / 4);
        {
            std::vector<unsigned char> raw(dims.size); // at least 8 bytes: never a small element
            s.read(raw.data(), raw.size());
            for (std::size_t k = 0; k < d.size(); ++k) {
                const auto v = static_cast<std::int32_t>(u32(raw.data() + 4 * k));
                if (v < 0)
                    fail(s, what, "dimension " + std::to_string(k + 1) + " is negative (" + std::to_string(v) + ")");
                d[k] = static_cast<std::uint64_t>(v);
            }
            s.skip(dims.total - 8 - dims.size);
            rem -= dims.total - 8;
        }
        std::string shape;
        for (std::uint64_t v : d)
            shape += (shape.empty() ? "" : " x ") + std::to_string(v);
        const std::optional<std::uint64_t> count = util::checkedProduct<std::uint64_t>(d);
        if (!count)
            fail(s, what, "dimensions " + shape + " overflow 64 bits");
        const std::uint64_t n = *count;
        // Name (read for the messages; top-level variables have one).
        std::string name;
        {
            const Tag nt = tag(s, rem, what);
            if (nt.type != miINT8)
                fail(s, what, "array name expected (miINT8), found type " + std::to_string(nt.type));
            if (nt.small)
                name.assign(reinterpret_cast<const char*>(nt.smallData.data()), nt.size);
            else {
                const std::size_t keep = static_cast<std::size_t>(std::min<std::uint64_t>(nt.size, 64));
                name.resize(keep);
                s.read(name.data(), keep);
                s.skip(nt.total - 8 - keep);
                rem -= nt.total - 8;
            }
        }
        const std::string here = depth == 0 && !name.empty() ? "variable '" + name + "'" : what;

        switch (cls) {
        case mxCELL: {
            if (!util::fitsInBytes(n, 8, rem))
                fail(s, here,
                     "claims " + shape + " = " + std::to_string(n) + " cells but only " + std::to_string(rem) +
                         " bytes follow (each cell takes at least 8)");
            const std::string base = depth == 0 && !name.empty() ? name : what;
            for (std::uint64_t i = 0; i < n; ++i) {
                nested(s, rem, base + "{" + std::to_string(i + 1) + "}", "a cell", depth);
            }
            break;
        }
        case mxSTRUCT:
        case mxOBJECT: {
            if (cls == mxOBJECT) {
                const Tag cn = tag(s, rem, here);
                skipData(s, cn, rem);
            }
            const Tag lenTag = tag(s, rem, here);
            if (lenTag.type != miINT32 || lenTag.size != 4)
                fail(s, here, "field name length expected (one miINT32)");
            unsigned char lb[4];
            if (lenTag.small)
                std::memcpy(lb, lenTag.smallData.data(), 4);
            else {
                s.read(lb, 4);
                s.skip(lenTag.total - 8 - 4);
                rem -= lenTag.total - 8;
            }
            const std::uint64_t len = u32(lb);
            const Tag names = tag(s, rem, here);
            const std::uint64_t fields = len ? names.size / len : 0;
            skipData(s, names, rem);
            const std::optional<std::uint64_t> values = util::checkedMul(n, fields);
            if (!values || !util::fitsInBytes(*values, 8, rem))
                fail(s, here,
                     "claims " + shape + " structs of " + std::to_string(fields) + " fields but only " +
                         std::to_string(rem) + " bytes follow (each value takes at least 8)");
            for (std::uint64_t i = 0; i < *values; ++i) {
                const std::string f = here + ".field" + std::to_string(i % std::max<std::uint64_t>(fields, 1) + 1) + "(" +
                                      std::to_string(i / std::max<std::uint64_t>(fields, 1) + 1) + ")";
                nested(s, rem, f, "a struct field", depth);
            }
            break;
        }
        case mxSPARSE: {
            const Tag ir = tag(s, rem, here);
            const std::uint64_t nzmax = ir.size / 4;
            skipData(s, ir, rem);
            const Tag jc = tag(s, rem, here);
            if (d.size() != 2 || jc.size != 4 * (d[1] + 1))
                fail(s, here, "a sparse " + shape + " matrix has " + std::to_string(jc.size / 4) +
                                  " column indices; expected columns + 1");
            skipData(s, jc, rem);
            for (int part = 0; part < (complex ? 2 : 1); ++part) {
                const Tag pr = tag(s, rem, here);
                const std::uint64_t es = typeSize(pr.type);
                if (es == 0 || pr.size % es != 0 || pr.size / es > nzmax)
                    fail(s, here, "sparse values (" + std::to_string(pr.size) + " bytes of type " +
                                      std::to_string(pr.type) + ") do not fit its " + std::to_string(nzmax) + " row indices");
                skipData(s, pr, rem);
            }
            account(s, here, 0, nzmax, complex ? 20 : 12);
            break;
        }
        default: {
            if (cls != mxCHAR && (cls < mxDOUBLE || cls > mxUINT64)) {
                s.skip(rem); // function handles, opaque objects: matio refuses or skips them itself
                rem = 0;
                break;
            }
            for (int part = 0; part < (complex ? 2 : 1); ++part) {
                const Tag pr = tag(s, rem, here);
                const std::uint64_t es = typeSize(pr.type);
                if (es == 0)
                    fail(s, here, "data of unknown type " + std::to_string(pr.type));
                // UTF-8 text takes at least a byte per character; every other stored type
                // exactly its size per element.
                const bool fits = pr.type == miUTF8 ? pr.size >= n : util::checkedMul(n, es) == pr.size;
                if (!fits)
                    fail(s, here,
                         "claims " + shape + " = " + std::to_string(n) + " elements but holds " +
                             std::to_string(pr.size) + " bytes of " + std::to_string(es) + "-byte values");
                skipData(s, pr, rem);
            }
            account(s, here, 0, n, classSize(cls) * (complex ? 2 : 1));
            break;
        }
        }
        s.skip(rem); // padding
    }

private:
    std::string m_path;
    bool m_swap;
    std::uint64_t m_budget;
};

} // namespace

MatClaims checkMatV5Claims(const std::string& path, std::uint64_t memoryBudget)
{
    MatClaims claims;
    std::error_code ec;
    const std::uint64_t size = std::filesystem::file_size(path, ec);
    if (ec)
        throw InputError(path, "", "cannot read: " + ec.message());
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw InputError(path, "", "cannot open");
    unsigned char head[128];
    in.read(reinterpret_cast<char*>(head), sizeof head);
    if (in.gcount() != sizeof head)
        return claims; // the caller's header check says why
    bool swap = false;
    if (head[126] == 'I' && head[127] == 'M')
        swap = false;
    else if (head[126] == 'M' && head[127] == 'I')
        swap = true;
    else
        return claims;
    // Bytes 124-125: the version, 0x0100 for v5/v7, 0x0200 for v7.3 (HDF5).
    const std::uint16_t version = swap ? static_cast<std::uint16_t>(head[124] << 8 | head[125])
                                       : static_cast<std::uint16_t>(head[125] << 8 | head[124]);
    if (version != 0x0100)
        return claims;

    Walker w(path, swap, memoryBudget);
    w.claims.checked = true;
    std::uint64_t offset = 128;
    while (offset < size) {
        const std::string what = "variable " + std::to_string(w.claims.variables + 1);
        std::uint64_t nbytes = 0;
        try {
            FileSource file(in, offset, size);
            if (size - offset < 8)
                w.fail(file, what, "the file ends inside a tag; it is truncated");
            unsigned char b[8];
            file.read(b, 8);
            const std::uint32_t type = w.u32(b);
            nbytes = w.u32(b + 4);
            if (nbytes > size - offset - 8)
                w.fail(file, what,
                       "claims " + std::to_string(nbytes) + " bytes but only " + std::to_string(size - offset - 8) +
                           " follow; the file is truncated or damaged");
            if (type == miCOMPRESSED) {
                InflateSource z(in, offset + 8, nbytes);
                unsigned char t[8];
                z.read(t, 8);
                if (w.u32(t) != miMATRIX)
                    w.fail(z, what, "a compressed variable must hold an array (miMATRIX), found type " +
                                        std::to_string(w.u32(t)));
                w.matrix(z, w.u32(t + 4), what, 0);
            } else if (type == miMATRIX) {
                FileSource body(in, offset + 8, offset + 8 + nbytes);
                w.matrix(body, nbytes, what, 0);
            }
            // Other top-level elements: matio skips them.
        } catch (const std::out_of_range& e) {
            throw InputError(path, what + " (" + InputError::atOffset(offset) + ")",
                             std::string(e.what()) + "; the file is truncated or damaged");
        }
        ++w.claims.variables;
        offset += 8 + nbytes;
    }
    return w.claims;
}

} // namespace setscope::data
