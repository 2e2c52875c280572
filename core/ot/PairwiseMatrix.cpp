// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
//
// Pairwise distance matrices cached as memory-mapped float32 files (docs/OT_PAIRWISE.md).
//
// Durability protocol:
//  - A file appears complete-or-absent: header and zero matrix are written under a
//    temporary name, fsynced and renamed into place. From then on all progress lives in
//    the real file, which is what makes a killed run resumable.
//  - A worker writes only the upper triangle (j > i) of its block's rows, so a block's data
//    is one contiguous byte range. When the block is done it msyncs that range, then
//    records the block's checksum and completion bit and msyncs the header: a bit never
//    reaches the disk before its data.
//  - When every block is done the lower triangle is mirrored from the upper one and
//    msynced; only then is the header's complete flag set and msynced.
//  - On start every set bit is checked against its block checksum, so a bit whose data
//    went missing (a damaged disk, an OS crash between the two msyncs) is never trusted.
//  - One process at a time works on a key: flock() on pairwise-<key>.lock.

#include "core/ot/PairwiseMatrix.h"

#include "core/util/Paths.h"

#include "core/data/Dataset.h"
#include "core/dist/Communicator.h"
#include "core/ot/Chamfer.h"
#include "core/ot/CostMatrix.h"
#include "core/ot/Emd.h"
#include "core/util/Faults.h"
#include "core/util/Hash.h"

#include <xxhash.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <type_traits>
#include <utility>

namespace setscope::ot {

namespace {

namespace fs = std::filesystem;

constexpr char kMagic[8] = {'S', 'S', 'P', 'A', 'I', 'R', 'W', '\n'};
constexpr std::uint32_t kFormatVersion = 1;
constexpr std::uint32_t kByteOrderMark = 0x01020304;
// Part of the key: bump when a change to the solvers changes the values, so that old
// cache files stop matching.
constexpr std::uint32_t kAlgorithmVersion = 1;
constexpr std::int64_t kTargetPairsPerBlock = 2048;
constexpr std::int64_t kMinBlocks = 64;
constexpr std::uint64_t kDataAlignment = 4096;
constexpr std::int64_t kMaxItems = std::int64_t(1) << 30; // n * n * 4 bytes stays within int64
constexpr std::int64_t kMirrorTile = 64;

/// The fixed part of the header; native byte order (byteOrder tells a foreign file apart).
struct FileHeader {
    char magic[8];
    std::uint32_t version;
    std::uint32_t byteOrder;
    std::uint64_t n;
    std::uint64_t blockCount;
    std::uint64_t dataOffset;
    std::uint64_t fileBytes;
    char key[32];
    std::uint32_t distance;
    std::uint32_t ground;
    std::uint32_t chamferWeighted;
    std::uint32_t reserved0;
    std::uint64_t layoutChecksum; // XXH3-64 of the bytes above and of blockStarts[]
    std::uint32_t complete;       // 1 once every block is done and the lower triangle is durable
    std::uint32_t reserved1;
    std::uint8_t reserved2[16];
};
static_assert(sizeof(FileHeader) == 128);
static_assert(std::is_trivially_copyable_v<FileHeader>);

/// Byte offsets of the variable part of the header, which follows FileHeader:
/// u64 blockStarts[k + 1], u64 blockChecksums[k], u8 doneBits[ceil(k / 8)].
struct HeaderLayout {
    std::uint64_t starts = 0, checksums = 0, bits = 0, end = 0, dataOffset = 0;

    explicit HeaderLayout(std::uint64_t blocks)
    {
        starts = sizeof(FileHeader);
        checksums = starts + 8 * (blocks + 1);
        bits = checksums + 8 * blocks;
        end = bits + (blocks + 7) / 8;
        dataOffset = (end + kDataAlignment - 1) / kDataAlignment * kDataAlignment;
    }
};

[[noreturn]] void ioError(const std::string& path, const std::string& what, int err = errno)
{
    throw std::runtime_error(util::faults::describe(path + ": " + what, err));
}

class Fd {
public:
    explicit Fd(int fd = -1)
        : m_fd(fd)
    {
    }
    ~Fd() { reset(); }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    int get() const { return m_fd; }
    void reset(int fd = -1)
    {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = fd;
    }

private:
    int m_fd;
};

std::uint64_t layoutChecksum(const FileHeader& h, const std::uint64_t* starts)
{
    XXH3_state_t* s = XXH3_createState();
    XXH3_64bits_reset(s);
    XXH3_64bits_update(s, &h, offsetof(FileHeader, layoutChecksum));
    XXH3_64bits_update(s, starts, 8 * (h.blockCount + 1));
    const std::uint64_t out = XXH3_64bits_digest(s);
    XXH3_freeState(s);
    return out;
}

/// A whole cache file mapped with MAP_SHARED.
class Mapping {
public:
    Mapping() = default;
    ~Mapping() { unmap(); }
    Mapping(const Mapping&) = delete;
    Mapping& operator=(const Mapping&) = delete;

    enum class Status { Ok, Missing, Invalid };

    /// Maps `path` and checks its header. Missing: no such file. Invalid: `reason` says
    /// what is wrong. Other I/O errors throw.
    Status open(const std::string& path, bool writable, std::string& reason)
    {
        unmap();
        m_path = path;
        m_fd.reset(::open(path.c_str(), (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC));
        if (m_fd.get() < 0) {
            if (errno == ENOENT)
                return Status::Missing;
            ioError(path, "cannot open");
        }
        struct stat st {};
        if (::fstat(m_fd.get(), &st) != 0)
            ioError(path, "cannot stat");
        const auto size = static_cast<std::uint64_t>(st.st_size);
        FileHeader h{};
        if (size < sizeof h) {
            reason = "file is too short for a header (" + std::to_string(size) + " bytes)";
            return Status::Invalid;
        }
        if (::pread(m_fd.get(), &h, sizeof h, 0) != static_cast<ssize_t>(sizeof h))
            ioError(path, "cannot read the header");
        reason = checkFixed(h, size);
        if (!reason.empty())
            return Status::Invalid;
        void* p = ::mmap(nullptr, size, writable ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, m_fd.get(), 0);
        if (p == MAP_FAILED)
            ioError(path, "cannot map " + std::to_string(size) + " bytes");
        m_base = static_cast<std::uint8_t*>(p);
        m_bytes = size;
        reason = checkVariable();
        return reason.empty() ? Status::Ok : Status::Invalid;
    }

    /// Hands the mapping over (the fd is closed; the mapping stays valid).
    std::pair<void*, std::size_t> release()
    {
        std::pair<void*, std::size_t> out{m_base, m_bytes};
        m_base = nullptr;
        m_bytes = 0;
        m_fd.reset();
        return out;
    }

    void unmap()
    {
        if (m_base)
            ::munmap(m_base, m_bytes);
        m_base = nullptr;
        m_bytes = 0;
        m_fd.reset();
    }

    const std::string& path() const { return m_path; }
    FileHeader& header() const { return *reinterpret_cast<FileHeader*>(m_base); }
    std::int64_t n() const { return static_cast<std::int64_t>(header().n); }
    std::int64_t blocks() const { return static_cast<std::int64_t>(header().blockCount); }
    std::uint64_t* starts() const { return reinterpret_cast<std::uint64_t*>(m_base + layout().starts); }
    std::uint64_t* checksums() const { return reinterpret_cast<std::uint64_t*>(m_base + layout().checksums); }
    std::uint8_t* bits() const { return m_base + layout().bits; }
    float* data() const { return reinterpret_cast<float*>(m_base + header().dataOffset); }
    std::string key() const { return std::string(header().key, sizeof header().key); }

    bool done(std::int64_t b) const { return (bits()[b / 8] >> (b % 8)) & 1u; }
    void setDone(std::int64_t b, bool on) const
    {
        const auto mask = static_cast<std::uint8_t>(1u << (b % 8));
        bits()[b / 8] = on ? (bits()[b / 8] | mask) : (bits()[b / 8] & ~mask);
    }

    /// msync(MS_SYNC) of [offset, offset + bytes), widened to whole pages.
    void sync(std::uint64_t offset, std::uint64_t bytes) const
    {
        static const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
        const std::uint64_t begin = offset / page * page;
        const std::uint64_t end = std::min<std::uint64_t>(offset + bytes, m_bytes);
        if (end <= begin)
            return;
        if (util::faults::msync(m_base + begin, end - begin, MS_SYNC, m_path.c_str()) != 0)
            ioError(m_path, "cannot write to disk (msync)");
    }
    void syncHeader() const { sync(0, header().dataOffset); }

    /// XXH3-64 of block b's upper triangle: rows [s_b, s_b+1), columns j > i.
    std::uint64_t blockChecksum(std::int64_t b) const
    {
        const std::int64_t n = this->n();
        const float* d = data();
        XXH3_state_t* s = XXH3_createState();
        XXH3_64bits_reset(s);
        for (auto i = static_cast<std::int64_t>(starts()[b]); i < static_cast<std::int64_t>(starts()[b + 1]); ++i)
            XXH3_64bits_update(s, d + i * n + i + 1, sizeof(float) * static_cast<std::size_t>(n - 1 - i));
        const std::uint64_t out = XXH3_64bits_digest(s);
        XXH3_freeState(s);
        return out;
    }

private:
    HeaderLayout layout() const { return HeaderLayout(header().blockCount); }

    static std::string checkFixed(const FileHeader& h, std::uint64_t size)
    {
        if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0)
            return "not a setscope pairwise matrix (bad magic)";
        if (h.byteOrder != kByteOrderMark)
            return "written on a machine of another byte order";
        if (h.version != kFormatVersion)
            return "format version " + std::to_string(h.version) + " (this build reads " +
                   std::to_string(kFormatVersion) + ")";
        if (h.n >= static_cast<std::uint64_t>(kMaxItems))
            return "implausible size n = " + std::to_string(h.n);
        if (h.blockCount > (h.n < 2 ? 0 : h.n - 1))
            return "implausible block count " + std::to_string(h.blockCount);
        const HeaderLayout l(h.blockCount);
        if (h.dataOffset != l.dataOffset)
            return "inconsistent data offset";
        if (h.fileBytes != h.dataOffset + h.n * h.n * sizeof(float))
            return "inconsistent file size in the header";
        if (size != h.fileBytes)
            return "file has " + std::to_string(size) + " bytes, the header says " + std::to_string(h.fileBytes) +
                   " (truncated?)";
        if (h.complete > 1)
            return "bad complete flag";
        for (char c : h.key)
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
                return "bad key";
        return {};
    }

    std::string checkVariable() const
    {
        const FileHeader& h = header();
        if (layoutChecksum(h, starts()) != h.layoutChecksum)
            return "header checksum mismatch";
        const std::uint64_t last = h.n < 2 ? 0 : h.n - 1;
        if (starts()[0] != 0 || starts()[h.blockCount] != last)
            return "bad block layout";
        for (std::uint64_t b = 0; b < h.blockCount; ++b)
            if (starts()[b + 1] <= starts()[b])
                return "bad block layout";
        if (h.complete)
            for (std::int64_t b = 0; b < blocks(); ++b)
                if (!done(b))
                    return "marked complete with block " + std::to_string(b) + " not done";
        return {};
    }

    std::string m_path;
    Fd m_fd;
    std::uint8_t* m_base = nullptr;
    std::size_t m_bytes = 0;
};

std::int64_t pairsOfRows(std::int64_t n, std::int64_t r0, std::int64_t r1)
{
    // Σ_{i=r0}^{r1-1} (n - 1 - i)
    return (r1 - r0) * (n - 1) - (r1 * (r1 - 1) - r0 * (r0 - 1)) / 2;
}

std::string cacheKey(const data::Dataset& ds, const PairwiseOptions& o)
{
    util::ContentHasher h;
    h.update(std::string("setscope pairwise matrix"));
    const std::uint32_t versions[2] = {kFormatVersion, kAlgorithmVersion};
    h.update(versions, sizeof versions);
    // The dataset's content hash covers its values, weights and set boundaries.
    h.update(ds.contentHash());
    h.update(std::string(setDistanceName(o.distance)));
    h.update(std::string(groundDistanceName(o.ground)));
    if (o.distance == SetDistance::Chamfer)
        h.update(std::string(o.chamferWeighted ? "weighted" : "unweighted"));
    return h.hex();
}

/// Exclusive flock() on a lock file; released when destroyed (close).
class LockFile {
public:
    explicit LockFile(const std::string& path)
        : m_path(path)
        , m_fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644))
    {
        if (m_fd.get() < 0)
            ioError(path, "cannot open the lock file");
    }
    /// True when locked, false when another holder has it.
    bool tryLock()
    {
        if (::flock(m_fd.get(), LOCK_EX | LOCK_NB) == 0)
            return true;
        if (errno == EWOULDBLOCK || errno == EINTR)
            return false;
        ioError(m_path, "cannot lock");
    }

private:
    std::string m_path;
    Fd m_fd;
};

/// Writes a fresh file (header, no block done, zero matrix) under a temporary name, makes
/// it durable and renames it to `path`.
void createFile(const std::string& path, std::int64_t n, const std::string& key, const PairwiseOptions& o)
{
    const std::vector<std::int64_t> starts = pairwiseBlocks(n, o.blockRows);
    const auto blocks = static_cast<std::uint64_t>(starts.size() - 1);
    const HeaderLayout l(blocks);
    std::vector<std::uint8_t> head(l.dataOffset, 0);
    FileHeader h{};
    std::memcpy(h.magic, kMagic, sizeof kMagic);
    h.version = kFormatVersion;
    h.byteOrder = kByteOrderMark;
    h.n = static_cast<std::uint64_t>(n);
    h.blockCount = blocks;
    h.dataOffset = l.dataOffset;
    h.fileBytes = l.dataOffset + h.n * h.n * sizeof(float);
    std::memcpy(h.key, key.data(), std::min(key.size(), sizeof h.key));
    h.distance = static_cast<std::uint32_t>(o.distance);
    h.ground = static_cast<std::uint32_t>(o.ground);
    h.chamferWeighted = o.distance == SetDistance::Chamfer && o.chamferWeighted ? 1 : 0;
    std::vector<std::uint64_t> s(starts.begin(), starts.end());
    h.layoutChecksum = layoutChecksum(h, s.data());
    std::memcpy(head.data(), &h, sizeof h);
    std::memcpy(head.data() + l.starts, s.data(), 8 * s.size());

    const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
    Fd fd(::open(tmp.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (fd.get() < 0)
        ioError(tmp, "cannot create");
    try {
        // Reserve the space now: running out of disk later, inside the mapping, would be a
        // SIGBUS instead of an error message.
        if (const int rc = util::faults::fallocate(fd.get(), 0, static_cast<off_t>(h.fileBytes), tmp.c_str()); rc != 0)
            ioError(path, "cannot reserve " + std::to_string(h.fileBytes) + " bytes", rc);
        if (!util::faults::pwriteAll(fd.get(), head.data(), head.size(), 0, tmp.c_str()))
            ioError(path, "cannot write the header");
        if (util::faults::fsync(fd.get(), tmp.c_str()) != 0)
            ioError(path, "cannot write to disk (fsync)");
        fd.reset();
        if (util::faults::rename(tmp.c_str(), path.c_str()) != 0)
            ioError(path, "cannot rename " + tmp + " to it");
    } catch (...) {
        fd.reset();
        ::unlink(tmp.c_str());
        throw;
    }
    const std::string dir = fs::path(path).parent_path().string();
    Fd dfd(::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dfd.get() >= 0)
        ::fsync(dfd.get()); // makes the rename durable; best effort (some filesystems refuse)
}

/// Temporary files of killed creations for this key. Called under the key's lock, so no
/// other process is writing one.
void removeStaleTemporaries(const std::string& path)
{
    const fs::path p(path);
    const std::string prefix = p.filename().string() + ".tmp-";
    std::error_code ec;
    for (fs::directory_iterator it(p.parent_path(), ec), end; !ec && it != end; it.increment(ec))
        if (it->path().filename().string().rfind(prefix, 0) == 0)
            fs::remove(it->path(), ec);
}

/// Bitwise equality of (i, j) and (j, i) for all pairs, and a zero diagonal.
bool isMirrored(const float* d, std::int64_t n)
{
    for (std::int64_t i = 0; i < n; ++i)
        if (d[i * n + i] != 0.0f || std::signbit(d[i * n + i]))
            return false;
    for (std::int64_t ib = 0; ib < n; ib += kMirrorTile)
        for (std::int64_t jb = ib; jb < n; jb += kMirrorTile)
            for (std::int64_t i = ib; i < std::min(ib + kMirrorTile, n); ++i)
                for (std::int64_t j = std::max(jb, i + 1); j < std::min(jb + kMirrorTile, n); ++j)
                    if (std::memcmp(d + i * n + j, d + j * n + i, sizeof(float)) != 0)
                        return false;
    return true;
}

/// One thread's solver state: the EMD solver and the buffers it reuses for every pair.
class PairWorker {
public:
    /// `control` is polled inside every EMD solve, so a cancel does not wait for a long pair.
    PairWorker(const data::Dataset& ds, const PairwiseOptions& o, job::JobControl& control)
        : m_ds(ds)
        , m_options(o)
    {
        m_emdOptions.control = &control;
    }

    void setRow(std::int64_t i)
    {
        m_a = pointSet(m_ds, static_cast<std::size_t>(i));
        if (m_options.distance == SetDistance::Emd)
            m_wa.assign(m_a.weights, m_a.weights + m_a.n);
    }

    /// d(row item, item j), computed exactly as ot::emd / ot::chamfer do.
    double distance(std::int64_t j)
    {
        const PointSet b = pointSet(m_ds, static_cast<std::size_t>(j));
        costMatrix(m_a, b, m_options.ground, m_cost);
        if (m_options.distance == SetDistance::Chamfer)
            return chamferFromCost(m_cost.data(), m_a.weights, m_a.n, b.weights, b.n, m_options.chamferWeighted);
        m_wb.assign(b.weights, b.weights + b.n);
        return m_solver.solveCost(m_cost.data(), m_wa.data(), m_a.n, m_wb.data(), b.n, m_emdOptions).emd;
    }

private:
    const data::Dataset& m_ds;
    const PairwiseOptions& m_options;
    EmdOptions m_emdOptions;
    EmdSolver m_solver;
    PointSet m_a;
    std::vector<double> m_cost, m_wa, m_wb;
};

/// Solves the pairs of `blocks` (rows starts[b] .. starts[b + 1] - 1, columns j > i) on
/// `threads` threads, writing row i's pairs to row(b, i)[j - i - 1] (the n - 1 - i slots after
/// the diagonal) and handing each finished block to finished(b) (on the worker; the caller
/// locks what it shares). The workers take the blocks in
/// turn, or, with `take`, those whose index in `blocks` take() gives (shared with other ranks;
/// an index past the end stops). `done` counts the pairs; `report` is called from this thread
/// about every 100 ms while they run. The first error stops every worker and is rethrown here.
void computeBlocks(const data::Dataset& ds, const PairwiseOptions& o, job::JobControl& control,
                   const std::vector<std::int64_t>& starts, const std::vector<std::int64_t>& blocks, int threadCount,
                   const std::function<float*(std::int64_t, std::int64_t)>& row,
                   const std::function<void(std::int64_t)>& finished, std::atomic<std::int64_t>& done,
                   std::atomic<std::int64_t>& computed, const std::function<void(std::int64_t)>& report,
                   const std::function<std::int64_t()>& take = {})
{
    if (blocks.empty())
        return;
    const auto n = static_cast<std::int64_t>(ds.size());
    const auto threads = static_cast<std::size_t>(
        std::clamp<std::int64_t>(threadCount, 1, static_cast<std::int64_t>(blocks.size())));
    std::atomic<std::size_t> next{0};
    std::atomic<bool> stop{false};
    std::mutex waitMutex;
    std::condition_variable waitCv;
    std::size_t running = threads;
    std::exception_ptr error;

    const auto work = [&](PairWorker& w) {
        while (!stop.load(std::memory_order_relaxed)) {
            const auto q = static_cast<std::size_t>(take ? take() : static_cast<std::int64_t>(next.fetch_add(1)));
            if (q >= blocks.size())
                return;
            const std::int64_t b = blocks[q];
            for (std::int64_t i = starts[static_cast<std::size_t>(b)]; i < starts[static_cast<std::size_t>(b) + 1]; ++i) {
                w.setRow(i);
                float* out = row(b, i);
                for (std::int64_t j = i + 1; j < n; ++j) {
                    if (stop.load(std::memory_order_relaxed))
                        return;
                    control.checkpoint();
                    try {
                        out[j - i - 1] = static_cast<float>(w.distance(j));
                    } catch (const OtError& e) {
                        throw OtError("items " + std::to_string(i) + " and " + std::to_string(j) + ": " + e.what());
                    }
                    done.fetch_add(1, std::memory_order_relaxed);
                    computed.fetch_add(1, std::memory_order_relaxed);
                }
            }
            finished(b);
        }
    };
    {
        std::vector<std::jthread> pool;
        // Stops the workers before the pool joins them if this thread leaves by an exception.
        struct StopOnExit {
            std::atomic<bool>& stop;
            ~StopOnExit() { stop = true; }
        };
        const StopOnExit guard{stop};
        for (std::size_t t = 0; t < threads; ++t)
            pool.emplace_back([&] {
                try {
                    PairWorker w(ds, o, control);
                    work(w);
                } catch (...) {
                    std::lock_guard lock(waitMutex);
                    if (!error)
                        error = std::current_exception();
                    stop = true;
                }
                {
                    std::lock_guard lock(waitMutex);
                    --running;
                }
                waitCv.notify_all();
            });
        std::unique_lock lock(waitMutex);
        std::int64_t reported = done.load();
        while (running > 0) {
            waitCv.wait_for(lock, std::chrono::milliseconds(100));
            const std::int64_t now = done.load(std::memory_order_relaxed);
            if (now != reported && running > 0) {
                lock.unlock();
                report(now);
                reported = now;
                lock.lock();
            }
        }
    }
    if (error)
        std::rethrow_exception(error);
}

/// Pairs in block b: its rows' upper triangles, packed row after row.
std::int64_t blockPairs(const std::vector<std::int64_t>& starts, std::int64_t b, std::int64_t n)
{
    return pairsOfRows(n, starts[static_cast<std::size_t>(b)], starts[static_cast<std::size_t>(b) + 1]);
}


} // namespace


std::string defaultPairwiseCacheDir() { return util::userCacheDir(); }

std::vector<std::int64_t> pairwiseBlocks(std::int64_t n, std::int64_t blockRows)
{
    std::vector<std::int64_t> b{0};
    if (n < 2)
        return b;
    const std::int64_t rows = n - 1; // the last row has no pair j > i
    if (blockRows > 0) {
        for (std::int64_t r = blockRows; r < rows; r += blockRows)
            b.push_back(r);
        b.push_back(rows);
        return b;
    }
    const std::int64_t pairs = n * (n - 1) / 2;
    const std::int64_t k = std::clamp((pairs + kTargetPairsPerBlock - 1) / kTargetPairsPerBlock,
                                      std::min(kMinBlocks, rows), rows);
    // Cut after row r when the cumulative pair count is nearer to the next multiple of
    // pairs / k than it would be after row r + 1.
    const double share = static_cast<double>(pairs) / static_cast<double>(k);
    std::int64_t cum = 0, cut = 1;
    const auto nearer = [&](std::int64_t nextRow) {
        return 2.0 * static_cast<double>(cum) + static_cast<double>(nextRow) >= 2.0 * static_cast<double>(cut) * share;
    };
    for (std::int64_t r = 0; r + 1 < rows; ++r) {
        cum += n - 1 - r;
        const std::int64_t nextRow = n - 2 - r;
        if (cut < k && nearer(nextRow)) {
            b.push_back(r + 1);
            while (cut < k && nearer(nextRow))
                ++cut;
        }
    }
    b.push_back(rows);
    return b;
}

// --- DistanceMatrix --------------------------------------------------------------------

DistanceMatrix::~DistanceMatrix()
{
    if (m_map)
        ::munmap(m_map, m_mapBytes);
}

namespace {
/// Maps an existing pairwise file read-only; throws naming the file when it is missing or
/// not a valid pairwise file.
void openReadOnly(Mapping& m, const std::string& path)
{
    std::string reason;
    switch (m.open(path, false, reason)) {
    case Mapping::Status::Missing: throw std::runtime_error(path + ": no such file");
    case Mapping::Status::Invalid: throw std::runtime_error(path + ": " + reason);
    case Mapping::Status::Ok: break;
    }
}
} // namespace

std::shared_ptr<const DistanceMatrix> DistanceMatrix::open(const std::string& path)
{
    Mapping m;
    openReadOnly(m, path);
    if (!m.header().complete)
        throw std::runtime_error(path + ": the matrix is not complete (an interrupted run; run the pairwise job "
                                        "again to resume it)");
    std::shared_ptr<DistanceMatrix> out(new DistanceMatrix);
    out->m_path = path;
    out->m_key = m.key();
    out->m_n = m.n();
    out->m_data = m.data();
    std::tie(out->m_map, out->m_mapBytes) = m.release();
    return out;
}

PairwiseFileInfo inspectPairwiseFile(const std::string& path)
{
    Mapping m;
    openReadOnly(m, path);
    PairwiseFileInfo info;
    info.n = m.n();
    info.key = m.key();
    info.dataOffset = static_cast<std::int64_t>(m.header().dataOffset);
    info.blockStarts.assign(m.starts(), m.starts() + m.blocks() + 1);
    for (std::int64_t b = 0; b < m.blocks(); ++b)
        info.blockDone.push_back(m.done(b));
    info.complete = m.header().complete == 1;
    return info;
}

std::string pairwiseCachePath(const data::Dataset& dataset, const PairwiseOptions& options)
{
    const std::string dir = options.cacheDir.empty() ? defaultPairwiseCacheDir() : options.cacheDir;
    return (fs::path(dir) / ("pairwise-" + cacheKey(dataset, options) + ".f32")).string();
}

std::shared_ptr<const DistanceMatrix> findCachedMatrix(const data::Dataset& dataset, const PairwiseOptions& options,
                                                       std::string* why)
{
    const std::string key = cacheKey(dataset, options);
    const std::string dir = options.cacheDir.empty() ? defaultPairwiseCacheDir() : options.cacheDir;
    const std::string path = (fs::path(dir) / ("pairwise-" + key + ".f32")).string();
    auto refuse = [&](const std::string& reason) -> std::shared_ptr<const DistanceMatrix> {
        if (why)
            *why = reason;
        return nullptr;
    };
    Mapping m;
    std::string reason;
    switch (m.open(path, false, reason)) {
    case Mapping::Status::Missing:
        return refuse("no cached " + std::string(setDistanceName(options.distance)) + " matrix of this dataset (" +
                      path + ")");
    case Mapping::Status::Invalid: return refuse(path + ": " + reason);
    case Mapping::Status::Ok: break;
    }
    const auto n = static_cast<std::int64_t>(dataset.size());
    if (m.key() != key || m.n() != n)
        return refuse(path + ": header is for another key or size");
    if (!m.header().complete) {
        std::int64_t done = 0;
        for (std::int64_t b = 0; b < m.blocks(); ++b)
            done += m.done(b) ? 1 : 0;
        return refuse(path + ": interrupted (" + std::to_string(done) + " of " + std::to_string(m.blocks()) +
                      " blocks done; run the pairwise job again to finish it)");
    }
    for (std::int64_t b = 0; b < m.blocks(); ++b)
        if (m.blockChecksum(b) != m.checksums()[b])
            return refuse(path + ": block " + std::to_string(b) + " does not match its checksum (damaged)");
    if (!isMirrored(m.data(), n))
        return refuse(path + ": the matrix is not symmetric (damaged)");
    std::shared_ptr<DistanceMatrix> out(new DistanceMatrix);
    out->m_path = path;
    out->m_key = m.key();
    out->m_n = n;
    out->m_data = m.data();
    std::tie(out->m_map, out->m_mapBytes) = m.release();
    if (why)
        *why = "using " + path;
    return out;
}

// --- Sharding over ranks -----------------------------------------------------------------

// Message tags of the blocks a rank sends to rank 0 after each round.
constexpr int kTagCount = 1;
constexpr int kTagBlock = 2;
constexpr int kTagData = 3;

/// Blocks per rank and round (rank 0's choice, for every rank). The ranks wait for each other at
/// the end of a round (for the slowest block in progress), and rank 0 writes the others' blocks
/// only then (docs/DISTRIBUTED.md has the measurements that chose 16 over 4).
std::int64_t blocksPerRound(int threads) { return 16 * static_cast<std::int64_t>(std::max(1, threads)); }

/// Round r's blocks: the next `perRound` x world of the list. Within a round the ranks' threads
/// take them one at a time from a counter in the run's store, so a slow rank takes fewer (the
/// ranks meet at the end of each round; a static share made the faster rank wait).
std::vector<std::int64_t> roundBlocks(const std::vector<std::int64_t>& pending, std::int64_t round, std::int64_t perRound,
                                      int world)
{
    const std::int64_t size = perRound * world;
    const auto b = static_cast<std::size_t>(std::min<std::int64_t>(round * size, static_cast<std::int64_t>(pending.size())));
    const auto e = static_cast<std::size_t>(std::min<std::int64_t>((round + 1) * size, static_cast<std::int64_t>(pending.size())));
    return {pending.begin() + static_cast<std::ptrdiff_t>(b), pending.begin() + static_cast<std::ptrdiff_t>(e)};
}

std::int64_t roundCount(std::size_t pending, std::int64_t perRound, int world)
{
    const std::int64_t size = perRound * world;
    return (static_cast<std::int64_t>(pending) + size - 1) / size;
}

// --- PairwiseJob -----------------------------------------------------------------------

struct PairwiseJob::State {
    std::string key;
    std::string dir;
    std::string path;
    std::atomic<std::int64_t> blocksReused{0};
    std::atomic<std::int64_t> blockCount{0};
    std::atomic<std::int64_t> pairsComputed{0};
    mutable std::mutex resultMutex;
    std::shared_ptr<const DistanceMatrix> result;
};

PairwiseJob::PairwiseJob(std::shared_ptr<const data::Dataset> dataset, PairwiseOptions options)
    : m_dataset(std::move(dataset))
    , m_options(std::move(options))
    , m_state(std::make_unique<State>())
{
    if (!m_dataset)
        throw std::invalid_argument("PairwiseJob: no dataset");
    m_state->key = cacheKey(*m_dataset, m_options);
    m_state->dir = m_options.cacheDir.empty() ? defaultPairwiseCacheDir() : m_options.cacheDir;
    m_state->path = (fs::path(m_state->dir) / ("pairwise-" + m_state->key + ".f32")).string();
}

PairwiseJob::~PairwiseJob() { stopAndWait(); }

const std::string& PairwiseJob::key() const { return m_state->key; }
std::string PairwiseJob::cachePath() const { return m_state->path; }
std::int64_t PairwiseJob::blocksReused() const { return m_state->blocksReused.load(); }
std::int64_t PairwiseJob::blockCount() const { return m_state->blockCount.load(); }
std::int64_t PairwiseJob::pairsComputed() const { return m_state->pairsComputed.load(); }

std::shared_ptr<const DistanceMatrix> PairwiseJob::result() const
{
    std::lock_guard lock(m_state->resultMutex);
    return m_state->result;
}

void PairwiseJob::run()
{
    State& st = *m_state;
    const data::Dataset& ds = *m_dataset;
    const auto n = static_cast<std::int64_t>(ds.size());
    const std::string what = std::string(setDistanceName(m_options.distance)) + " pairs";
    if (n >= kMaxItems)
        throw std::invalid_argument("pairwise matrix: " + std::to_string(n) + " items is too many");

    // Bad input fails before any file is touched, naming the item.
    for (std::int64_t i = 0; i < n; ++i) {
        if (i % 4096 == 0)
            control().checkpoint();
        validate(pointSet(ds, static_cast<std::size_t>(i)), "item " + std::to_string(i));
    }
    const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const int threads = m_options.threads > 0 ? m_options.threads : hw;
    const std::int64_t total = n * (n - 1) / 2;

    // Sharded over the ranks of a run: the same data on every rank (the key hashes it), rank 0
    // alone holds the file; the others compute their blocks and send them to it.
    dist::Communicator* comm = m_options.comm && m_options.comm->size() > 1 ? m_options.comm.get() : nullptr;
    if (comm) {
        std::string key = st.key;
        comm->broadcast(key, 0);
        if (key != st.key)
            throw std::invalid_argument("rank " + std::to_string(comm->rank()) + " has other data or options than rank 0 (key " +
                                        st.key + ", rank 0's " + key + "): every rank must run the same command on the same dataset");
    }
    if (comm && comm->rank() != 0) {
        runFollower(*comm, threads);
        return;
    }

    std::error_code ec;
    fs::create_directories(st.dir, ec);
    if (ec)
        throw std::runtime_error(st.dir + ": cannot create the cache directory: " + ec.message());

    LockFile lock((fs::path(st.dir) / ("pairwise-" + st.key + ".lock")).string());
    for (bool told = false; !lock.tryLock();) {
        if (!told)
            reportMessage("waiting for another process computing " + st.path);
        told = true;
        control().checkpoint();
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    removeStaleTemporaries(st.path);

    Mapping m;
    std::string reason;
    Mapping::Status status = m.open(st.path, true, reason);
    if (status == Mapping::Status::Ok && (m.key() != st.key || m.n() != n)) {
        reason = "header is for another key or size";
        status = Mapping::Status::Invalid;
    }
    if (status != Mapping::Status::Ok) {
        if (status == Mapping::Status::Invalid)
            reportMessage(st.path + ": " + reason + "; computing it again");
        m.unmap();
        createFile(st.path, n, st.key, m_options);
        if (m.open(st.path, true, reason) != Mapping::Status::Ok)
            throw std::runtime_error(st.path + ": the file just written does not read back: " + reason);
    }

    // Trust a completion bit only when its block's checksum matches the data.
    const std::int64_t blocks = m.blocks();
    st.blockCount = blocks;
    std::int64_t reused = 0, reusedPairs = 0;
    bool dropped = false;
    std::vector<std::int64_t> pending;
    for (std::int64_t b = 0; b < blocks; ++b) {
        control().checkpoint();
        if (m.done(b) && m.blockChecksum(b) == m.checksums()[b]) {
            ++reused;
            reusedPairs += pairsOfRows(n, static_cast<std::int64_t>(m.starts()[b]),
                                       static_cast<std::int64_t>(m.starts()[b + 1]));
            continue;
        }
        if (m.done(b)) {
            m.setDone(b, false);
            dropped = true;
        }
        pending.push_back(b);
    }
    if (m.header().complete && (dropped || !isMirrored(m.data(), n))) {
        m.header().complete = 0;
        dropped = true;
    }
    if (dropped) {
        m.syncHeader();
        reportMessage(st.path + ": some cached blocks did not match their checksums; computing them again");
    }
    st.blocksReused = reused;
    if (reused > 0)
        reportMessage("reusing " + std::to_string(reused) + " of " + std::to_string(blocks) + " blocks of " + st.path);
    reportProgress(reusedPairs, total, what);

    const std::vector<std::int64_t> starts(m.starts(), m.starts() + blocks + 1);
    std::mutex headerMutex;
    // A block's rows are in the file: data first, then the bit (each msynced): never a bit without its data.
    const auto finishBlock = [&](std::int64_t b) {
        const std::int64_t r0 = starts[static_cast<std::size_t>(b)], r1 = starts[static_cast<std::size_t>(b) + 1];
        const std::uint64_t off = m.header().dataOffset + static_cast<std::uint64_t>(r0 * n) * sizeof(float);
        m.sync(off, static_cast<std::uint64_t>((r1 - r0) * n) * sizeof(float));
        const std::uint64_t sum = m.blockChecksum(b);
        std::lock_guard lock(headerMutex);
        m.checksums()[b] = sum;
        m.setDone(b, true);
        m.syncHeader();
    };
    float* d = m.data();
    const auto row = [d, n](std::int64_t, std::int64_t i) { return d + i * n + i + 1; };
    std::atomic<std::int64_t> done{reusedPairs};
    const auto report = [&](std::int64_t now) { reportProgress(now, total, what); };

    if (comm) {
        // The layout, the blocks left, the round size and a name for this run's counters in the
        // store, to every rank.
        std::vector<std::int64_t> layout = starts, todo = pending,
                                  per{blocksPerRound(threads), static_cast<std::int64_t>(std::random_device{}() >> 1)};
        comm->broadcast(layout, 0);
        comm->broadcast(todo, 0);
        comm->broadcast(per, 0);
        const int world = comm->size();
        reportMessage(std::to_string(pending.size()) + " blocks to compute on " + std::to_string(world) + " ranks");
        using Clock = std::chrono::steady_clock;
        double computing = 0, waiting = 0, writing = 0;
        for (std::int64_t round = 0; round < roundCount(pending.size(), per[0], world); ++round) {
            std::exception_ptr failure;
            bool cancelled = false;
            const auto t0 = Clock::now();
            const std::string counter = "pairwise/" + std::to_string(per[1]) + "/" + std::to_string(round);
            try {
                computeBlocks(ds, m_options, control(), starts, roundBlocks(pending, round, per[0], world), threads, row,
                              finishBlock, done, st.pairsComputed, report, [&] { return comm->add(counter, 1) - 1; });
            } catch (const job::Cancelled&) {
                cancelled = true;
            } catch (...) {
                failure = std::current_exception();
            }
            const auto t1 = Clock::now();
            // Who stopped, then every other rank's finished blocks of the round.
            double flags[2] = {cancelled ? 1.0 : 0.0, failure ? 1.0 : 0.0};
            comm->allreduceSum(std::span<double>(flags));
            const auto t2 = Clock::now();
            computing += std::chrono::duration<double>(t1 - t0).count();
            waiting += std::chrono::duration<double>(t2 - t1).count();
            std::vector<std::int64_t> got; // the others' blocks of the round, in the file, not yet synced
            for (int src = 1; src < world; ++src) {
                // The round's blocks of rank src in three messages: their count, their indices, their
                // packed pairs one block after the other.
                std::int64_t count = 0;
                comm->recv(std::span<std::int64_t>(&count, 1), src, kTagCount);
                if (count < 0 || count > blocks)
                    throw std::runtime_error("rank " + std::to_string(src) + " announced " + std::to_string(count) + " blocks");
                if (count == 0)
                    continue;
                std::vector<std::int64_t> ids(static_cast<std::size_t>(count));
                comm->recv(std::span<std::int64_t>(ids), src, kTagBlock);
                std::int64_t floats = 0;
                for (std::int64_t b : ids) {
                    if (b < 0 || b >= blocks)
                        throw std::runtime_error("rank " + std::to_string(src) + " sent block " + std::to_string(b) +
                                                 " of a " + std::to_string(blocks) + "-block layout");
                    floats += blockPairs(starts, b, n);
                }
                std::vector<float> buf(static_cast<std::size_t>(floats));
                comm->recv(std::span<float>(buf), src, kTagData);
                const float* p = buf.data();
                for (std::int64_t b : ids) {
                    for (std::int64_t i = starts[static_cast<std::size_t>(b)]; i < starts[static_cast<std::size_t>(b) + 1]; ++i) {
                        std::copy(p, p + (n - 1 - i), d + i * n + i + 1);
                        p += n - 1 - i;
                    }
                    got.push_back(b);
                }
                done += floats;
            }
            if (!got.empty()) {
                // One msync for the data of all of them (only their pages are dirty: rank 0's own
                // blocks were synced as they finished), then their bits in one header write.
                std::int64_t r0 = n, r1 = 0;
                for (std::int64_t b : got) {
                    r0 = std::min(r0, starts[static_cast<std::size_t>(b)]);
                    r1 = std::max(r1, starts[static_cast<std::size_t>(b) + 1]);
                }
                m.sync(m.header().dataOffset + static_cast<std::uint64_t>(r0 * n) * sizeof(float),
                       static_cast<std::uint64_t>((r1 - r0) * n) * sizeof(float));
                std::vector<std::uint64_t> sums;
                for (std::int64_t b : got)
                    sums.push_back(m.blockChecksum(b));
                std::lock_guard lock(headerMutex);
                for (std::size_t k = 0; k < got.size(); ++k) {
                    m.checksums()[got[k]] = sums[k];
                    m.setDone(got[k], true);
                }
                m.syncHeader();
            }
            writing += std::chrono::duration<double>(Clock::now() - t2).count();
            report(done.load());
            if (failure)
                std::rethrow_exception(failure);
            if (flags[1] > 0)
                throw std::runtime_error("another rank failed (see its message); the blocks finished so far are in " + st.path);
            if (cancelled || flags[0] > 0)
                throw job::Cancelled();
        }
        char line[160];
        std::snprintf(line, sizeof line, "rank 0: %.1f s computing its blocks, %.1f s waiting for the other ranks, %.1f s "
                      "receiving and writing theirs", computing, waiting, writing);
        reportMessage(line);
    } else {
        computeBlocks(ds, m_options, control(), starts, pending, threads, row, finishBlock, done, st.pairsComputed, report);
    }

    if (!m.header().complete) {
        for (std::int64_t ib = 0; ib < n; ib += kMirrorTile) {
            control().checkpoint();
            for (std::int64_t jb = ib; jb < n; jb += kMirrorTile)
                for (std::int64_t i = ib; i < std::min(ib + kMirrorTile, n); ++i)
                    for (std::int64_t j = std::max(jb, i + 1); j < std::min(jb + kMirrorTile, n); ++j)
                        d[j * n + i] = d[i * n + j];
        }
        for (std::int64_t i = 0; i < n; ++i)
            d[i * n + i] = 0.0f;
        m.sync(m.header().dataOffset, static_cast<std::uint64_t>(n * n) * sizeof(float));
        m.header().complete = 1;
        m.syncHeader();
    }
    m.unmap();
    auto matrix = DistanceMatrix::open(st.path);
    if (comm)
        comm->barrier(); // the other ranks finish once the matrix is complete
    reportProgress(total, total, what);
    std::lock_guard resultLock(st.resultMutex);
    st.result = std::move(matrix);
}

void PairwiseJob::runFollower(dist::Communicator& comm, int threads)
{
    State& st = *m_state;
    const data::Dataset& ds = *m_dataset;
    const auto n = static_cast<std::int64_t>(ds.size());
    const std::string what = std::string(setDistanceName(m_options.distance)) + " pairs (rank " +
                             std::to_string(comm.rank()) + ")";
    std::vector<std::int64_t> starts, pending, per;
    comm.broadcast(starts, 0);
    comm.broadcast(pending, 0);
    comm.broadcast(per, 0);
    if (per.size() != 2 || per[0] < 1)
        throw std::runtime_error("rank 0 sent no round size");
    if (starts.empty() || starts.back() != std::max<std::int64_t>(n - 1, 0))
        throw std::runtime_error("rank 0's block layout does not fit " + std::to_string(n) + " items");
    st.blockCount = static_cast<std::int64_t>(starts.size()) - 1;
    const int world = comm.size();
    // Progress counts the pairs of every rank's blocks (this rank's share is not known ahead).
    std::int64_t all = 0;
    for (std::int64_t b : pending)
        all += blockPairs(starts, b, n);
    std::atomic<std::int64_t> done{0};
    const auto report = [&](std::int64_t now) { reportProgress(now, all, what); };
    reportProgress(0, all, what);

    std::map<std::int64_t, std::vector<float>> buffers; // block -> its packed pairs
    std::mutex buffersMutex;
    std::vector<std::int64_t> finishedBlocks;
    for (std::int64_t round = 0; round < roundCount(pending.size(), per[0], world); ++round) {
        finishedBlocks.clear();
        buffers.clear();
        std::exception_ptr failure;
        bool cancelled = false;
        {
            const std::vector<std::int64_t> blocks = roundBlocks(pending, round, per[0], world);
            const std::string counter = "pairwise/" + std::to_string(per[1]) + "/" + std::to_string(round);
            for (std::int64_t b : blocks) // the buffers of every block this rank may take
                buffers[b].resize(static_cast<std::size_t>(blockPairs(starts, b, n)));
            const auto row = [&](std::int64_t b, std::int64_t i) {
                // Each block's buffer is written by one worker only; the map is not resized meanwhile.
                return buffers.at(b).data() + pairsOfRows(n, starts[static_cast<std::size_t>(b)], i);
            };
            const auto finished = [&](std::int64_t b) {
                std::lock_guard lock(buffersMutex);
                finishedBlocks.push_back(b);
            };
            try {
                computeBlocks(ds, m_options, control(), starts, blocks, threads, row, finished, done, st.pairsComputed,
                              report, [&] { return comm.add(counter, 1) - 1; });
            } catch (const job::Cancelled&) {
                cancelled = true;
            } catch (...) {
                failure = std::current_exception();
            }
        }
        double flags[2] = {cancelled ? 1.0 : 0.0, failure ? 1.0 : 0.0};
        comm.allreduceSum(std::span<double>(flags));
        {
            const std::int64_t count = static_cast<std::int64_t>(finishedBlocks.size());
            comm.send(std::span<const std::int64_t>(&count, 1), 0, kTagCount);
            if (count > 0) {
                std::vector<float> packed;
                for (std::int64_t b : finishedBlocks)
                    packed.insert(packed.end(), buffers.at(b).begin(), buffers.at(b).end());
                comm.send(std::span<const std::int64_t>(finishedBlocks), 0, kTagBlock);
                comm.send(std::span<const float>(packed), 0, kTagData);
            }
        }
        report(done.load());
        if (failure)
            std::rethrow_exception(failure);
        if (flags[1] > 0)
            throw std::runtime_error("another rank failed (see its message)");
        if (cancelled || flags[0] > 0)
            throw job::Cancelled();
    }
    comm.barrier(); // rank 0 has completed the file
    reportProgress(all, all, what);
}

} // namespace setscope::ot
