// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/IdxLoader.h"

#include "core/util/CheckedMath.h"
#include "core/util/Memory.h"
#include "core/util/Text.h"

#include <setscope/sdk/Errors.h>

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <optional>

namespace fs = std::filesystem;

namespace setscope::data {

using sdk::InputError;
using sdk::Split;

namespace {

class GzFile {
public:
    explicit GzFile(const std::string& path)
        : m_path(path)
    {
        m_f = gzopen(path.c_str(), "rb");
        if (!m_f)
            throw InputError(path, "", std::string("cannot open: ") + std::strerror(errno));
        gzbuffer(m_f, 1 << 18);
    }
    ~GzFile() { gzclose(m_f); }
    GzFile(const GzFile&) = delete;
    GzFile& operator=(const GzFile&) = delete;

    /// Reads up to n bytes; returns how many were read. Throws on a corrupt stream.
    std::size_t read(void* dst, std::size_t n)
    {
        std::size_t total = 0;
        auto* p = static_cast<unsigned char*>(dst);
        while (total < n) {
            const unsigned chunk = static_cast<unsigned>(std::min<std::size_t>(n - total, 1u << 30));
            const int got = gzread(m_f, p + total, chunk);
            if (got < 0) {
                int err = 0;
                const char* msg = gzerror(m_f, &err);
                throw InputError(m_path, InputError::atOffset(m_offset + total),
                                 std::string("corrupt compressed data: ") + (msg ? msg : "unknown zlib error"));
            }
            if (got == 0)
                break;
            total += static_cast<std::size_t>(got);
        }
        m_offset += total;
        return total;
    }

    /// After a short read: was it a truncated gzip stream (as opposed to a short raw file)?
    std::string truncationReason()
    {
        int err = 0;
        const char* msg = gzerror(m_f, &err);
        if (err != Z_OK && msg && *msg)
            return std::string(" (") + msg + ")";
        return {};
    }

    std::uint64_t offset() const { return m_offset; }

    /// True for a plain (not gzip-compressed) file; valid after the first read.
    bool direct() { return gzdirect(m_f) != 0; }

private:
    std::string m_path;
    gzFile m_f = nullptr;
    std::uint64_t m_offset = 0;
};

fs::path findWithOptionalGz(const fs::path& dir, const std::string& stem)
{
    for (const char* suffix : {".gz", ""}) {
        const fs::path p = dir / (stem + suffix);
        if (fs::is_regular_file(p))
            return p;
    }
    // Some distributions use dots: train-images.idx3-ubyte
    std::string dotted = stem;
    const auto pos = dotted.find("-idx");
    if (pos != std::string::npos) {
        dotted[pos] = '.';
        for (const char* suffix : {".gz", ""}) {
            const fs::path p = dir / (dotted + suffix);
            if (fs::is_regular_file(p))
                return p;
        }
    }
    return {};
}

bool isFashion(const std::string& path) { return util::toLower(fs::absolute(path).string()).find("fashion") != std::string::npos; }

void checkImages(const IdxArray& a, const std::string& path)
{
    if (a.dims.size() != 3)
        throw InputError(path, InputError::atOffset(3),
                         "expected an image array with 3 dimensions (count, rows, columns), found " +
                             std::to_string(a.dims.size()));
}

void checkLabels(const IdxArray& a, const std::string& path)
{
    if (a.dims.size() != 1)
        throw InputError(path, InputError::atOffset(3),
                         "expected a label array with 1 dimension, found " + std::to_string(a.dims.size()));
}

struct SplitFiles {
    fs::path images;
    fs::path labels; // may be empty: unlabelled
    Split split;
};

/// The magic number, element type and dimensions of an IDX file; `f` is left at the payload.
/// Throws InputError naming the file and offset.
std::vector<std::uint64_t> readIdxHeader(GzFile& f, const std::string& path)
{
    unsigned char head[4];
    if (f.read(head, 4) != 4)
        throw InputError(path, InputError::atOffset(f.offset()), "file too short for an IDX header" + f.truncationReason());
    if (head[0] != 0 || head[1] != 0)
        throw InputError(path, InputError::atOffset(0), "wrong magic number: not an IDX file");
    if (head[2] != 0x08)
        throw InputError(path, InputError::atOffset(2),
                         "IDX element type code " + std::to_string(head[2]) + " is not supported (only unsigned bytes, code 8)");
    const int ndims = head[3];
    if (ndims < 1 || ndims > 4)
        throw InputError(path, InputError::atOffset(3), "IDX header declares " + std::to_string(ndims) + " dimensions");
    std::vector<std::uint64_t> dims;
    for (int d = 0; d < ndims; ++d) {
        unsigned char b[4];
        if (f.read(b, 4) != 4)
            throw InputError(path, InputError::atOffset(f.offset()), "truncated IDX header" + f.truncationReason());
        dims.push_back((std::uint64_t(b[0]) << 24) | (std::uint64_t(b[1]) << 16) | (std::uint64_t(b[2]) << 8) | b[3]);
    }
    return dims;
}

/// The dimensions an IDX header claims (empty when the header cannot be read: readIdx then
/// says why). Reads only the header, also of a gzip file.
std::vector<std::uint64_t> idxDims(const std::string& path)
{
    try {
        GzFile f(path);
        return readIdxHeader(f, path);
    } catch (const InputError&) {
        return {};
    }
}

/// Weighs the whole load against the memory budget from the headers alone, before any payload
/// is read: per image its bytes as read, its float32 values and its kept pixels, plus the largest
/// file's bytes held while it is converted (docs/RELIABILITY.md, "Memory").
void requireMemoryFor(const std::vector<SplitFiles>& parts, const std::string& origin)
{
    std::uint64_t images = 0, bytes = 0, largest = 0;
    std::string shape;
    for (const SplitFiles& part : parts) {
        const std::vector<std::uint64_t> dims = idxDims(part.images.string());
        if (dims.size() != 3)
            return; // readIdx / checkImages explain what is wrong with the file
        const std::optional<std::uint64_t> raw = util::checkedProduct<std::uint64_t>(dims);
        if (!raw)
            return; // readIdx refuses the overflow with its own message
        images += dims[0];
        const std::uint64_t items = dims[0] * (sizeof(std::int64_t) + sizeof(float) + sizeof(Split) + 2 * sizeof(std::int32_t));
        bytes = util::checkedAdd(bytes, util::checkedMul<std::uint64_t>(*raw, 1 + sizeof(float) + 1).value_or(UINT64_MAX))
                    .value_or(UINT64_MAX);
        bytes = util::checkedAdd(bytes, items).value_or(UINT64_MAX);
        largest = std::max(largest, *raw);
        shape = std::to_string(dims[1]) + " x " + std::to_string(dims[2]);
    }
    util::requireMemory(origin, util::checkedAdd(bytes, largest).value_or(UINT64_MAX),
                        std::to_string(images) + " images of " + shape + " pixels as float32 values and bytes");
}

void emitSplits(const std::vector<SplitFiles>& parts, const std::string& origin, sdk::DatasetSink& sink)
{
    requireMemoryFor(parts, origin);
    bool first = true;
    int rows = 0, cols = 0;
    const bool fashion = isFashion(origin);
    std::size_t itemBase = 0;
    for (const SplitFiles& part : parts) {
        const IdxArray img = readIdx(part.images.string());
        checkImages(img, part.images.string());
        sink.addSourceFile(part.images.string());
        IdxArray lab;
        if (!part.labels.empty()) {
            lab = readIdx(part.labels.string());
            checkLabels(lab, part.labels.string());
            sink.addSourceFile(part.labels.string());
            if (lab.dims[0] != img.dims[0])
                throw InputError(part.labels.string(), InputError::atOffset(4),
                                 "holds " + std::to_string(lab.dims[0]) + " labels but " + part.images.string() +
                                     " holds " + std::to_string(img.dims[0]) + " images");
        } else {
            sink.note(part.images.string() + ": no labels file found beside it; items are unlabelled");
        }
        // Rows and columns come from the header: refused, not truncated, when an image
        // would have more pixels than an int (the dataset dimension) holds.
        const std::optional<int> rr = util::checkedCast<int>(img.dims[1]), cc = util::checkedCast<int>(img.dims[2]);
        if (!rr || !cc || !util::checkedMul(*rr, *cc))
            throw InputError(part.images.string(), InputError::atOffset(8),
                             "header: images of " + std::to_string(img.dims[1]) + " x " + std::to_string(img.dims[2]) +
                                 " pixels have more than " + std::to_string(std::numeric_limits<int>::max()) +
                                 " values");
        const int r = *rr, c = *cc;
        // Without images there is no payload to bound rows x columns by the file's size, and
        // the pixel buffer (and the dimension) would come from the header alone: 10 455 x
        // 68 108 pixels made a 2.8 GB buffer for a 16-byte file (the idx fuzz target, issue 12).
        if (img.dims[0] == 0)
            throw InputError(part.images.string(), InputError::atOffset(4), "header: the file holds no images");
        if (first) {
            rows = r;
            cols = c;
            sink.setDimension(r * c);
            sink.setImageFormat(c, r, 1);
            sink.defineLabelSet("fine", fashion ? fashionMnistClassNames()
                                                : std::vector<std::string>{"0", "1", "2", "3", "4", "5", "6",
                                                                           "7", "8", "9"});
            if (fashion)
                sink.defineLabelSet("coarse", fashionMnistCoarseNames());
            first = false;
        } else if (r != rows || c != cols) {
            throw InputError(part.images.string(), InputError::atOffset(8),
                             "images are " + std::to_string(r) + "x" + std::to_string(c) + " but the first file's are " +
                                 std::to_string(rows) + "x" + std::to_string(cols));
        }
        const std::size_t n = img.dims[0];
        const std::size_t px = static_cast<std::size_t>(r) * static_cast<std::size_t>(c);
        sink.reserve(itemBase + n, itemBase + n);
        std::vector<float> v(px);
        for (std::size_t i = 0; i < n; ++i) {
            const std::uint8_t* p = img.data.data() + i * px;
            for (std::size_t k = 0; k < px; ++k)
                v[k] = static_cast<float>(p[k]) * (1.0f / 255.0f);
            const std::size_t item = sink.addItem(v.data(), nullptr, 1, part.split);
            sink.setImage(item, p);
            if (!lab.data.empty()) {
                const int l = lab.data[i];
                if (l > 9)
                    throw InputError(part.labels.string(), InputError::atOffset(8 + i),
                                     "label " + std::to_string(l) + " outside 0..9");
                sink.setLabel("fine", item, l);
                if (fashion)
                    sink.setLabel("coarse", item, fashionMnistFineToCoarse()[static_cast<std::size_t>(l)]);
            }
        }
        itemBase += n;
    }
}

} // namespace

IdxArray readIdx(const std::string& path)
{
    GzFile f(path);
    IdxArray a;
    a.type = 0x08;
    const std::vector<std::uint64_t> dims = readIdxHeader(f, path);
    a.dims.assign(dims.begin(), dims.end()); // each read from 4 bytes
    const auto ndims = static_cast<int>(dims.size());
    std::string dimsText;
    for (std::uint64_t d : dims)
        dimsText += (dimsText.empty() ? "" : " x ") + std::to_string(d);
    const std::optional<std::uint64_t> product = util::checkedProduct<std::uint64_t>(dims);
    if (!product)
        throw InputError(path, InputError::atOffset(4),
                         "header: dimensions " + dimsText + " have more elements than fit in 64 bits");
    const std::uint64_t total = *product;
    if (total > (std::uint64_t(1) << 36))
        throw InputError(path, InputError::atOffset(4), "header: dimensions " + dimsText + " declare an implausible size");
    const std::uint64_t headerBytes = 4 + 4 * static_cast<std::uint64_t>(ndims);

    // The payload is bounded by the file before anything is allocated for it: exactly for a
    // plain file; for a gzip file by deflate's largest expansion (1032 : 1).
    std::error_code ec;
    const std::uint64_t fileBytes = fs::file_size(path, ec);
    const bool plain = f.direct();
    constexpr std::uint64_t kMaxDeflateRatio = 1032;
    if (!ec && plain && total > fileBytes - std::min(fileBytes, headerBytes))
        throw InputError(path, InputError::atOffset(fileBytes),
                         "truncated: header promises " + std::to_string(total) + " payload bytes, found " +
                             std::to_string(fileBytes - std::min(fileBytes, headerBytes)));
    if (!ec && !plain &&
        total > util::checkedMul(fileBytes, kMaxDeflateRatio).value_or(std::numeric_limits<std::uint64_t>::max()))
        throw InputError(path, InputError::atOffset(headerBytes),
                         "truncated or not an IDX file: header promises " + std::to_string(total) +
                             " payload bytes, more than a gzip file of " + std::to_string(fileBytes) + " bytes can hold");
    // A gzip stream's real size shows only while it is read (and a file of unknown size is
    // not bounded above): start from a typical ratio and let the vector grow, so that
    // memory follows the bytes the stream delivers.
    if (!ec)
        a.data.reserve(plain ? total
                             : std::min(total, util::checkedMul<std::uint64_t>(fileBytes, 4)
                                                   .value_or(std::numeric_limits<std::uint64_t>::max())));
    constexpr std::uint64_t kChunk = std::uint64_t(1) << 24;
    while (a.data.size() < total) {
        const std::size_t have = a.data.size();
        const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, total - have));
        a.data.resize(have + want);
        const std::size_t got = f.read(a.data.data() + have, want);
        if (got != want)
            throw InputError(path, InputError::atOffset(headerBytes + have + got),
                             "truncated: header promises " + std::to_string(total) + " payload bytes, found " +
                                 std::to_string(have + got) + f.truncationReason());
    }
    unsigned char extra;
    if (f.read(&extra, 1) != 0)
        throw InputError(path, InputError::atOffset(headerBytes + total),
                         "trailing bytes after the payload the header describes");
    return a;
}

bool looksLikeIdx(const std::string& path)
{
    std::error_code ec;
    if (fs::is_directory(path, ec))
        return !findWithOptionalGz(path, "train-images-idx3-ubyte").empty() ||
               !findWithOptionalGz(path, "t10k-images-idx3-ubyte").empty();
    const std::string name = util::toLower(fs::path(path).filename().string());
    return name.find("idx3-ubyte") != std::string::npos || name.find("idx1-ubyte") != std::string::npos;
}

void loadIdx(const std::string& path, sdk::DatasetSink& sink)
{
    std::error_code ec;
    std::vector<SplitFiles> parts;
    if (fs::is_directory(path, ec)) {
        const fs::path dir(path);
        const fs::path trI = findWithOptionalGz(dir, "train-images-idx3-ubyte");
        const fs::path teI = findWithOptionalGz(dir, "t10k-images-idx3-ubyte");
        if (trI.empty() && teI.empty())
            throw InputError(path, "", "no train-images-idx3-ubyte[.gz] or t10k-images-idx3-ubyte[.gz] in this folder");
        if (!trI.empty())
            parts.push_back({trI, findWithOptionalGz(dir, "train-labels-idx1-ubyte"), Split::Train});
        if (!teI.empty())
            parts.push_back({teI, findWithOptionalGz(dir, "t10k-labels-idx1-ubyte"), Split::Test});
        sink.setName(isFashion(path) ? "fashion-mnist" : dir.filename().string());
    } else {
        const fs::path img(path);
        if (!fs::is_regular_file(img, ec))
            throw InputError(path, "", "no such file");
        std::string name = img.filename().string();
        const std::string lname = util::toLower(name);
        if (lname.find("idx1") != std::string::npos)
            throw InputError(path, "", "this is a labels file; open the images file (…-images-idx3-ubyte) instead");
        fs::path labels;
        const auto pos = name.find("images");
        if (pos != std::string::npos) {
            std::string ln = name;
            ln.replace(pos, 6, "labels");
            const auto p3 = ln.find("idx3");
            if (p3 != std::string::npos)
                ln.replace(p3, 4, "idx1");
            if (fs::is_regular_file(img.parent_path() / ln))
                labels = img.parent_path() / ln;
        }
        const bool test = lname.rfind("t10k", 0) == 0 || lname.rfind("test", 0) == 0;
        parts.push_back({img, labels, test ? Split::Test : Split::Train});
        sink.setName(name);
    }
    emitSplits(parts, path, sink);
}

const std::vector<std::string>& fashionMnistClassNames()
{
    static const std::vector<std::string> names{"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                                                "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};
    return names;
}

const std::vector<std::string>& fashionMnistCoarseNames()
{
    static const std::vector<std::string> names{"tops", "bottoms & dresses", "footwear", "bags"};
    return names;
}

const std::vector<std::int32_t>& fashionMnistFineToCoarse()
{
    // tops: T-shirt, Pullover, Coat, Shirt; bottoms & dresses: Trouser, Dress;
    // footwear: Sandal, Sneaker, Ankle boot; bags: Bag.
    static const std::vector<std::int32_t> map{0, 1, 0, 1, 0, 2, 0, 2, 3, 2};
    return map;
}

std::string fashionMnistDir()
{
    if (const char* env = std::getenv("SETSCOPE_FASHION_MNIST_DIR"); env && *env)
        return env;
    return "/usr/share/datasets/fashion-mnist";
}

sdk::LoaderInfo idxLoaderInfo()
{
    return {"idx", "IDX images and labels (MNIST / Fashion-MNIST layout, .gz or raw, or their folder)",
            {".gz", ".idx3-ubyte", ""},
            {},
            [](const std::string& p) { return looksLikeIdx(p); },
            [](const std::string& p, const sdk::OptionValues&, sdk::DatasetSink& s, sdk::LoadContext&) { loadIdx(p, s); }};
}

} // namespace setscope::data
