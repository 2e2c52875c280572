// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/KusnerMat.h"
#include "core/data/MatV5Check.h"
#include "core/util/Utf8.h"

#include "core/util/CheckedMath.h"
#include "core/util/FloatRange.h"
#include "core/util/Memory.h"
#include "core/util/Text.h"

#include <setscope/sdk/Errors.h>

#include <matio.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <sstream>
#include <tuple>
#include <utility>
#include <vector>

namespace fs = std::filesystem;

namespace setscope::data {

using sdk::InputError;
using sdk::Split;

namespace {

// matio's log levels (io.c): 1 error, 2 critical, 4 warning, 8 message, 16 debug.
constexpr int kMatLogWarning = 4;

// matio reports a truncated or damaged file through its log, often while still returning
// a (partly filled) variable, so every call runs with the log captured and any warning
// turns into an InputError.
thread_local std::string* t_matLog = nullptr;

void matioLog(int level, char* message)
{
    if (level > kMatLogWarning)
        return;
    const std::string msg = message ? message : "";
    if (t_matLog) {
        if (t_matLog->size() < 8192)
            *t_matLog += msg + "\n";
        return;
    }
    std::fprintf(stderr, "matio: %s\n", msg.c_str());
}

/// One line out of what matio logged: for an HDF5 error stack its innermost cause (the
/// last "minor:" entry, e.g. "File has been truncated"), otherwise the first message.
std::string summarise(const std::string& log)
{
    std::string last;
    std::size_t pos = 0;
    while ((pos = log.find("minor:", pos)) != std::string::npos) {
        const std::size_t end = log.find('\n', pos);
        last = log.substr(pos + 6, end == std::string::npos ? std::string::npos : end - pos - 6);
        pos += 6;
    }
    if (last.empty())
        last = log.substr(0, log.find('\n'));
    const auto b = last.find_first_not_of(" \t");
    return b == std::string::npos ? std::string() : last.substr(b);
}

std::mutex& matioMutex()
{
    static std::mutex m;
    return m;
}

/// Captures matio's log for the lifetime of the object (one load on one thread).
class LogCapture {
public:
    LogCapture()
    {
        static std::once_flag once;
        std::call_once(once, [] { Mat_LogInitFunc("setscope", &matioLog); });
        t_matLog = &m_log;
    }
    ~LogCapture() { t_matLog = nullptr; }
    LogCapture(const LogCapture&) = delete;
    LogCapture& operator=(const LogCapture&) = delete;

    /// What matio reported since the last take(), summarised to one line; "" when nothing.
    std::string take()
    {
        const std::string log = std::exchange(m_log, {});
        return log.empty() ? log : summarise(log).empty() ? std::string("matio reported an error") : summarise(log);
    }

private:
    std::string m_log;
};

struct VarFree {
    void operator()(matvar_t* v) const { Mat_VarFree(v); }
};
using VarPtr = std::unique_ptr<matvar_t, VarFree>;

struct MatClose {
    void operator()(mat_t* m) const { Mat_Close(m); }
};

/// The number of elements of `v` (the product of its dimensions, which come from the
/// file), nullopt when that product does not fit in 64 bits.
std::optional<std::size_t> elementCount(const matvar_t* v)
{
    if (!v || v->rank < 1 || !v->dims)
        return std::size_t(0);
    return util::checkedProduct<std::size_t>(std::span<const std::size_t>(v->dims, static_cast<std::size_t>(v->rank)));
}

/// elementCount() of a variable Reader::checkShape() has accepted.
std::size_t numel(const matvar_t* v) { return elementCount(v).value_or(0); }

std::string shapeOf(const matvar_t* v)
{
    if (!v || !v->dims)
        return "?";
    std::string s;
    for (int d = 0; d < v->rank; ++d)
        s += (d ? "x" : "") + std::to_string(v->dims[d]);
    return s;
}

std::string className(const matvar_t* v)
{
    switch (v->class_type) {
    case MAT_C_CELL: return "a cell array";
    case MAT_C_STRUCT: return "a struct";
    case MAT_C_OBJECT: return "an object";
    case MAT_C_CHAR: return "a char array";
    case MAT_C_SPARSE: return "a sparse matrix";
    case MAT_C_FUNCTION: return "a function handle";
    case MAT_C_EMPTY: return "empty";
    default: return v->isComplex ? "a complex matrix" : "a numeric matrix";
    }
}

bool isVectorShape(const matvar_t* v) { return v->rank == 2 && (v->dims[0] <= 1 || v->dims[1] <= 1); }

std::string fmtNumber(double x)
{
    std::ostringstream s;
    s.precision(17);
    s << x;
    return s.str();
}

/// Reads one element of a numeric matrix as double, whatever its storage class.
double numberAt(const matvar_t* v, std::size_t i)
{
    const auto* p = static_cast<const unsigned char*>(v->data);
    switch (v->class_type) {
    case MAT_C_DOUBLE: return reinterpret_cast<const double*>(p)[i];
    case MAT_C_SINGLE: return reinterpret_cast<const float*>(p)[i];
    case MAT_C_INT8: return reinterpret_cast<const std::int8_t*>(p)[i];
    case MAT_C_UINT8: return reinterpret_cast<const std::uint8_t*>(p)[i];
    case MAT_C_INT16: return reinterpret_cast<const std::int16_t*>(p)[i];
    case MAT_C_UINT16: return reinterpret_cast<const std::uint16_t*>(p)[i];
    case MAT_C_INT32: return reinterpret_cast<const std::int32_t*>(p)[i];
    case MAT_C_UINT32: return reinterpret_cast<const std::uint32_t*>(p)[i];
    case MAT_C_INT64: return static_cast<double>(reinterpret_cast<const std::int64_t*>(p)[i]);
    case MAT_C_UINT64: return static_cast<double>(reinterpret_cast<const std::uint64_t*>(p)[i]);
    default: return std::nan("");
    }
}

bool isRealNumeric(const matvar_t* v)
{
    switch (v->class_type) {
    case MAT_C_DOUBLE: case MAT_C_SINGLE: case MAT_C_INT8: case MAT_C_UINT8: case MAT_C_INT16: case MAT_C_UINT16:
    case MAT_C_INT32: case MAT_C_UINT32: case MAT_C_INT64: case MAT_C_UINT64:
        return !v->isComplex;
    default:
        return false;
    }
}

/// A char array as UTF-8. MATLAB stores characters as UTF-16 code units (v7.3, most v5
/// files); matio and some writers store UTF-8 bytes. A multi-row char matrix (column-major)
/// is read row by row, rows joined by spaces. Trailing NULs (padding) are removed.
std::string charString(const matvar_t* v)
{
    const std::size_t n = numel(v);
    if (n == 0 || !v->data)
        return {};
    const std::size_t rows = v->rank == 2 ? v->dims[0] : 1;
    std::string out;
    if (v->data_size == 1 || v->data_type == MAT_T_UTF8 || v->data_type == MAT_T_UINT8 || v->data_type == MAT_T_INT8) {
        const auto* p = static_cast<const char*>(v->data);
        if (rows <= 1)
            out.assign(p, v->nbytes ? v->nbytes : n); // UTF-8: bytes, not characters
        else
            for (std::size_t r = 0; r < rows; ++r) {
                if (r)
                    out += ' ';
                for (std::size_t c = 0; c < n / rows; ++c)
                    out += p[r + c * rows];
            }
    } else if (v->data_size == 2) {
        const auto* p = static_cast<const std::uint16_t*>(v->data);
        const std::size_t r = std::max<std::size_t>(rows, 1);
        std::vector<std::uint16_t> units;
        for (std::size_t i = 0; i < r; ++i) {
            if (i)
                units.push_back(' ');
            for (std::size_t c = 0; c < n / r; ++c)
                units.push_back(p[i + c * r]);
        }
        for (std::size_t k = 0; k < units.size(); ++k) {
            std::uint32_t cp = units[k];
            if (cp >= 0xD800 && cp < 0xDC00 && k + 1 < units.size() && units[k + 1] >= 0xDC00 && units[k + 1] < 0xE000)
                cp = 0x10000 + ((cp - 0xD800) << 10) + (units[++k] - 0xDC00u);
            util::appendUtf8(out, cp);
        }
    } else if (v->data_size == 4) {
        const auto* p = static_cast<const std::uint32_t*>(v->data);
        for (std::size_t k = 0; k < n; ++k)
            util::appendUtf8(out, p[k]);
    }
    while (!out.empty() && out.back() == '\0')
        out.pop_back();
    return out;
}

std::string stripSuffixes(std::string name)
{
    for (const char* s : {"-emd_tr_te_split", "_tr_te_split", "-emd_tr_te", "_tr_te", "-emd"}) {
        const std::string suf = s;
        if (name.size() > suf.size() && name.compare(name.size() - suf.size(), suf.size(), suf) == 0)
            return name.substr(0, name.size() - suf.size());
    }
    return name;
}

/// One group of documents with its fields: the whole file for the X family, the train or
/// the test half for the xtr/xte family.
struct Part {
    std::string xName, bowName, wordsName, yName; ///< wordsName "" when the file has none
    VarPtr x, bow, words;
    std::vector<double> y;
    std::vector<Split> splits; ///< per document
    std::size_t size() const { return numel(x.get()); }
};

/// Per document after validation.
struct DocInfo {
    std::size_t words = 0; ///< n_i, 0 = empty (dropped)
    double countSum = 0;
};

class Reader {
public:
    Reader(std::string path, const KusnerMatOptions& opt)
        : m_path(std::move(path))
        , m_opt(opt)
    {
    }

    void load(sdk::DatasetSink& sink);

private:
    [[noreturn]] void fail(const std::string& location, const std::string& message) const
    {
        throw InputError(m_path, location, message);
    }

    void checkHeader() const;
    void checkShape(const matvar_t* v, const std::string& where) const;
    void open();
    VarPtr read(const std::string& name);
    bool has(const std::string& name) const { return std::find(m_fields.begin(), m_fields.end(), name) != m_fields.end(); }
    std::string fieldList() const;
    void requireFields(const std::vector<std::string>& names, const std::string& family) const;
    std::vector<double> readNumbers(const std::string& name, bool& isVector, std::size_t& rows, std::size_t& cols);
    void readPart(Part& p);
    void readSplitsX(Part& p);
    matvar_t* cell(const VarPtr& v, const std::string& field, std::size_t i) const;
    void validate(const Part& p, std::vector<DocInfo>& info);
    void emit(const Part& p, const std::vector<DocInfo>& info, const std::map<double, std::int32_t>& classOf,
              sdk::DatasetSink& sink);

    std::string m_path;
    KusnerMatOptions m_opt;
    std::unique_ptr<LogCapture> m_log;
    std::unique_ptr<mat_t, MatClose> m_mat;
    std::vector<std::string> m_fields;
    std::map<std::string, VarPtr> m_vars; ///< the fields read, until a Part takes them
    int m_dim = 0;              ///< word-vector dimension D, from the first non-empty document
    std::string m_dimFrom;      ///< where D was first seen, e.g. "X{1}"
    std::vector<std::string> m_notes;
};

void Reader::checkHeader() const
{
    std::error_code ec;
    if (!fs::is_regular_file(m_path, ec))
        fail("", "no such file");
    std::ifstream f(m_path, std::ios::binary);
    if (!f)
        fail("", std::string("cannot open: ") + std::strerror(errno));
    char head[128];
    f.read(head, sizeof head);
    const auto got = static_cast<std::size_t>(f.gcount());
    if (got < sizeof head)
        fail(InputError::atOffset(got), "too short for a MAT-file: the header alone is 128 bytes, the file has " +
                                           std::to_string(got));
    // MAT v5, v7 and v7.3 files carry the endian indicator "IM" or "MI" at bytes 126-127.
    if (!((head[126] == 'I' && head[127] == 'M') || (head[126] == 'M' && head[127] == 'I')))
        fail(InputError::atOffset(126), "not a MATLAB v5/v7/v7.3 MAT-file (no endian mark at byte 126; MATLAB v4 "
                                        "files cannot hold the cell arrays of a WMD file)");
}

/// Every variable and cell this reader looks into passes here first: its dimensions
/// (from the file) must multiply without overflow, a cell array must be indexable by
/// matio's int cell index, and numeric or character data must hold as many elements as
/// the dimensions say (numberAt and charString index it by them).
void Reader::checkShape(const matvar_t* v, const std::string& where) const
{
    const std::optional<std::size_t> n = elementCount(v);
    if (!n)
        fail(where, "has dimensions " + shapeOf(v) + ": more elements than fit in 64 bits; the file is damaged");
    if (v->class_type == MAT_C_CELL && *n > static_cast<std::size_t>(std::numeric_limits<int>::max()))
        fail(where, "is a cell array of " + std::to_string(*n) + " cells, more than matio can index");
    if (v->data && v->data_size > 0 && (isRealNumeric(v) || v->class_type == MAT_C_CHAR)) {
        const std::optional<std::size_t> bytes = util::checkedMul(*n, static_cast<std::size_t>(v->data_size));
        if (!bytes || *bytes > v->nbytes)
            fail(where, "holds " + std::to_string(v->nbytes) + " bytes of data for " + shapeOf(v) + " elements of " +
                            std::to_string(v->data_size) + " bytes; the file is damaged");
    }
}

void Reader::open()
{
    m_mat.reset(Mat_Open(m_path.c_str(), MAT_ACC_RDONLY));
    std::string why = m_log->take();
    // For a damaged v7.3 file matio can return a handle after HDF5 failed to open it.
    if (!m_mat || !why.empty())
        fail("", "cannot be opened as a MAT-file, it is truncated or damaged" + (why.empty() ? "" : ": " + why));
    if (Mat_GetVersion(m_mat.get()) == MAT_FT_MAT4)
        fail("", "a MATLAB v4 MAT-file cannot hold the cell arrays of a WMD file");
    if (Mat_GetVersion(m_mat.get()) == MAT_FT_MAT73)
        // Measured with matio 1.5.23: 15 / 30 / 100 documents with their words took 2.4 / 14 /
        // 205 s, against 2.8 s for 737 documents in a v5 file (upstream matio issues 157, 196).
        m_notes.push_back("MATLAB v7.3 (HDF5) file: matio reads its cell arrays in time growing faster than "
                          "linearly with the number of cells; for large files re-save them as -v7");
    // One pass over the file, keeping the fields a WMD file uses. Mat_VarRead(name) would
    // scan from the start for every field, and for a compressed v5 file that means
    // inflating every cell array before it again: 3x slower on a bbcsport-sized file.
    static const char* const kWanted[] = {"X",   "BOW_X",   "Y",       "TR",       "TE",      "words",
                                          "the_words", "xtr", "xte", "BOW_xtr", "BOW_xte", "ytr",
                                          "yte", "words_tr", "words_te"};
    for (;;) {
        VarPtr v(Mat_VarReadNext(m_mat.get()));
        why = m_log->take();
        if (!why.empty())
            fail(m_fields.empty() ? "" : "after field " + m_fields.back(),
                 "cannot be read, the file is truncated or damaged: " + why);
        if (!v)
            break;
        const std::string name = v->name ? v->name : "";
        m_fields.push_back(name);
        if (std::find(std::begin(kWanted), std::end(kWanted), name) != std::end(kWanted))
            m_vars[name] = std::move(v);
    }
}

VarPtr Reader::read(const std::string& name)
{
    auto it = m_vars.find(name);
    if (it == m_vars.end() || !it->second)
        fail("field " + name, "is missing; the file holds: " + fieldList());
    VarPtr v = std::move(it->second);
    if (v->rank < 1 || !v->dims)
        fail("field " + name, "has no dimensions; the file is damaged");
    checkShape(v.get(), "field " + name);
    return v;
}

std::string Reader::fieldList() const
{
    if (m_fields.empty())
        return "(no variables)";
    std::string s;
    for (const std::string& f : m_fields)
        s += (s.empty() ? "" : ", ") + f;
    return s;
}

void Reader::requireFields(const std::vector<std::string>& names, const std::string& family) const
{
    std::string missing;
    for (const std::string& n : names)
        if (!has(n))
            missing += (missing.empty() ? "" : ", ") + n;
    if (!missing.empty())
        fail("", "missing field(s) " + missing + " of a Kusner WMD file (" + family + "); the file holds: " +
                     fieldList());
}

std::vector<double> Reader::readNumbers(const std::string& name, bool& isVector, std::size_t& rows, std::size_t& cols)
{
    const VarPtr v = read(name);
    if (!isRealNumeric(v.get()))
        fail("field " + name, "is " + className(v.get()) + ", expected a real numeric matrix");
    if (v->rank != 2)
        fail("field " + name, "has " + std::to_string(v->rank) + " dimensions, expected a matrix");
    const std::size_t n = numel(v.get());
    if (n && !v->data)
        fail("field " + name, "holds no data; the file is damaged");
    isVector = isVectorShape(v.get());
    rows = v->dims[0];
    cols = v->dims[1];
    std::vector<double> out(n);
    for (std::size_t i = 0; i < n; ++i)
        out[i] = numberAt(v.get(), i);
    return out;
}

void Reader::readPart(Part& p)
{
    p.x = read(p.xName);
    p.bow = read(p.bowName);
    if (!p.wordsName.empty())
        p.words = read(p.wordsName);
    for (const auto* pair : {&p.x, &p.bow, &p.words}) {
        const matvar_t* v = pair->get();
        if (!v)
            continue;
        if (v->class_type != MAT_C_CELL)
            fail("field " + std::string(v->name ? v->name : "?"),
                 "is " + className(v) + ", expected a cell array with one entry per document");
        if (!isVectorShape(v))
            fail("field " + std::string(v->name ? v->name : "?"),
                 "is a " + shapeOf(v) + " cell array, expected 1 x N (one entry per document)");
    }
    const std::size_t n = p.size();
    if (numel(p.bow.get()) != n)
        fail("field " + p.bowName, "holds " + std::to_string(numel(p.bow.get())) + " documents but " + p.xName +
                                       " holds " + std::to_string(n));
    if (p.words && numel(p.words.get()) != n)
        fail("field " + p.wordsName, "holds " + std::to_string(numel(p.words.get())) + " documents but " + p.xName +
                                         " holds " + std::to_string(n));
    bool vec = false;
    std::size_t r = 0, c = 0;
    p.y = readNumbers(p.yName, vec, r, c);
    if (!vec)
        fail("field " + p.yName, "is a " + std::to_string(r) + "x" + std::to_string(c) +
                                     " matrix, expected a vector of one label per document");
    if (p.y.size() != n)
        fail("field " + p.yName, "holds " + std::to_string(p.y.size()) + " labels but " + p.xName + " holds " +
                                     std::to_string(n) + " documents");
    for (std::size_t i = 0; i < n; ++i)
        if (!std::isfinite(p.y[i]) || p.y[i] != std::round(p.y[i]) || std::abs(p.y[i]) > 1e15)
            fail(p.yName + "(" + std::to_string(i + 1) + ")",
                 "label " + fmtNumber(p.y[i]) + " of document " + std::to_string(i + 1) + " is not an integer");
}

void Reader::readSplitsX(Part& p)
{
    const std::size_t n = p.size();
    const bool hasTr = has("TR"), hasTe = has("TE");
    if (!hasTr && !hasTe) {
        p.splits.assign(n, Split::Train);
        m_notes.push_back("the file has no TR / TE split: every document is Train");
        return;
    }
    if (hasTr != hasTe)
        fail("", std::string("has ") + (hasTr ? "TR" : "TE") + " but no " + (hasTr ? "TE" : "TR") +
                     "; a Kusner WMD file has both or neither. The file holds: " + fieldList());
    struct Rows {
        std::vector<double> v;
        std::size_t rows = 0, cols = 0;
    } tr, te;
    for (auto [name, m] : {std::pair<const char*, Rows*>{"TR", &tr}, {"TE", &te}}) {
        bool vec = false;
        std::size_t r = 0, c = 0;
        m->v = readNumbers(name, vec, r, c);
        if (vec && !m->v.empty()) { // a single split, stored as a row or a column
            m->rows = 1;
            m->cols = m->v.size();
        } else {
            m->rows = r;
            m->cols = c;
        }
    }
    if (tr.rows != te.rows && !tr.v.empty() && !te.v.empty())
        fail("field TE", "holds " + std::to_string(te.rows) + " splits (rows) but TR holds " + std::to_string(tr.rows));
    const std::size_t splitsInFile = std::max(tr.rows, te.rows);
    if (m_opt.split < 1 || static_cast<std::size_t>(m_opt.split) > splitsInFile)
        fail("field TR", "split " + std::to_string(m_opt.split) + " was asked for; the file holds " +
                             std::to_string(splitsInFile) + " train/test split(s) (rows of TR and TE), numbered 1.." +
                             std::to_string(splitsInFile));
    const std::size_t s = static_cast<std::size_t>(m_opt.split - 1);
    enum : std::uint8_t { kNone, kTr, kTe };
    std::vector<std::uint8_t> state(n, kNone);
    for (auto [name, m, mark] :
         {std::tuple<const char*, Rows*, std::uint8_t>{"TR", &tr, kTr}, {"TE", &te, kTe}}) {
        for (std::size_t k = 0; k < m->cols && !m->v.empty(); ++k) {
            const double x = m->v[s + k * m->rows];
            const std::string loc = std::string(name) + "(" + std::to_string(s + 1) + "," + std::to_string(k + 1) + ")";
            if (!std::isfinite(x) || x != std::round(x))
                fail(loc, fmtNumber(x) + " is not an integer document index");
            if (x < 1 || x > static_cast<double>(n))
                fail(loc, "document index " + fmtNumber(x) + " is outside 1.." + std::to_string(n) +
                              " (indices are 1-based and " + p.xName + " holds " + std::to_string(n) + " documents)");
            const auto d = static_cast<std::size_t>(x) - 1;
            if (state[d] == mark)
                fail(loc, "document " + fmtNumber(x) + " appears twice in row " + std::to_string(s + 1) + " of " + name);
            if (state[d] != kNone)
                fail(loc, "document " + fmtNumber(x) + " is in both TR and TE (row " + std::to_string(s + 1) + ")");
            state[d] = mark;
        }
    }
    p.splits.resize(n);
    std::size_t none = 0;
    for (std::size_t i = 0; i < n; ++i) {
        p.splits[i] = state[i] == kTr ? Split::Train : state[i] == kTe ? Split::Test : Split::Val;
        none += state[i] == kNone;
    }
    m_notes.push_back("train/test split " + std::to_string(s + 1) + " of " + std::to_string(splitsInFile) +
                      " (row " + std::to_string(s + 1) + " of TR / TE)");
    if (none)
        m_notes.push_back(std::to_string(none) + " document(s) are in neither TR nor TE row " + std::to_string(s + 1) +
                          "; they are kept as Val");
}

matvar_t* Reader::cell(const VarPtr& v, const std::string& field, std::size_t i) const
{
    matvar_t* c = Mat_VarGetCell(v.get(), static_cast<int>(i));
    if (!c || c->rank < 1 || !c->dims)
        fail(field + "{" + std::to_string(i + 1) + "}", "cannot be read; the file is truncated or damaged");
    checkShape(c, field + "{" + std::to_string(i + 1) + "}");
    if (numel(c) && !c->data && c->class_type != MAT_C_CELL)
        fail(field + "{" + std::to_string(i + 1) + "}", "holds no data; the file is truncated or damaged");
    return c;
}

void Reader::validate(const Part& p, std::vector<DocInfo>& info)
{
    const std::size_t n = p.size();
    info.assign(n, {});
    for (std::size_t i = 0; i < n; ++i) {
        const std::string k = "{" + std::to_string(i + 1) + "}";
        const std::string doc = " of document " + std::to_string(i + 1);
        const matvar_t* x = cell(p.x, p.xName, i);
        const matvar_t* b = cell(p.bow, p.bowName, i);
        if (!isRealNumeric(x) || (x->class_type != MAT_C_DOUBLE && x->class_type != MAT_C_SINGLE))
            fail(p.xName + k, "is " + className(x) + ", expected a matrix of double word vectors (D x n)");
        if (x->rank != 2)
            fail(p.xName + k, "has " + std::to_string(x->rank) + " dimensions, expected a D x n matrix");
        if (!isRealNumeric(b))
            fail(p.bowName + k, "is " + className(b) + ", expected a vector of word counts");
        const std::size_t words = numel(x) ? x->dims[1] : 0;
        const std::size_t counts = numel(b);
        if (words == 0) {
            if (counts)
                fail(p.bowName + k, "holds " + std::to_string(counts) + " counts but " + p.xName + k + " has no words");
            continue; // an empty document, dropped by the caller
        }
        if (counts != words)
            fail(p.bowName + k, "holds " + std::to_string(counts) + " counts but " + p.xName + k + " has " +
                                    std::to_string(words) + " word columns" + doc);
        // D comes from the file: refused, not truncated, beyond an int (D + 1 with the
        // term-frequency feature).
        const std::optional<int> rowsFit = util::checkedCast<int>(x->dims[0]);
        if (!rowsFit || *rowsFit == std::numeric_limits<int>::max())
            fail(p.xName + k, "has word vectors of dimension " + std::to_string(x->dims[0]) + ", more than " +
                                  std::to_string(std::numeric_limits<int>::max() - 1));
        const int rows = *rowsFit;
        if (m_dim == 0) {
            m_dim = rows;
            m_dimFrom = p.xName + k;
        } else if (rows != m_dim) {
            fail(p.xName + k, "has word vectors of dimension " + std::to_string(rows) + " (rows) but " + m_dimFrom +
                                  " has " + std::to_string(m_dim));
        }
        double sum = 0;
        for (std::size_t j = 0; j < counts; ++j) {
            const double c = numberAt(b, j);
            if (!std::isfinite(c) || c < 0)
                fail(p.bowName + k, "count " + std::to_string(j + 1) + doc + " is " + fmtNumber(c) +
                                        "; counts must be finite and non-negative");
            sum += c;
        }
        if (!(sum > 0))
            fail(p.bowName + k, "the counts" + doc + " sum to 0");
        if (p.words) {
            const matvar_t* w = cell(p.words, p.wordsName, i);
            if (w->class_type == MAT_C_CHAR) {
                if (words != 1)
                    fail(p.wordsName + k, "is one string but " + p.xName + k + " has " + std::to_string(words) + " words");
            } else if (w->class_type != MAT_C_CELL) {
                fail(p.wordsName + k, "is " + className(w) + ", expected a cell array of strings");
            } else if (numel(w) != words) {
                fail(p.wordsName + k, "holds " + std::to_string(numel(w)) + " words but " + p.xName + k + " has " +
                                          std::to_string(words) + " word columns" + doc);
            } else {
                for (std::size_t j = 0; j < words; ++j) {
                    const matvar_t* s = Mat_VarGetCell(const_cast<matvar_t*>(w), static_cast<int>(j));
                    const std::string where = p.wordsName + k + "{" + std::to_string(j + 1) + "}";
                    if (s && s->dims)
                        checkShape(s, where);
                    if (!s || !s->dims || (s->class_type != MAT_C_CHAR && numel(s) != 0))
                        fail(where, std::string("is ") + (s && s->dims ? className(s) : "unreadable") + ", expected a string");
                }
            }
        }
        info[i] = {words, sum};
    }
}

void Reader::emit(const Part& p, const std::vector<DocInfo>& info, const std::map<double, std::int32_t>& classOf,
                  sdk::DatasetSink& sink)
{
    const int outDim = m_dim + (m_opt.appendTermFrequency ? 1 : 0);
    std::vector<float> values, weights;
    std::vector<std::string> text;
    for (std::size_t i = 0; i < p.size(); ++i) {
        const DocInfo& d = info[i];
        if (d.words == 0)
            continue;
        const matvar_t* x = Mat_VarGetCell(p.x.get(), static_cast<int>(i));
        const matvar_t* b = Mat_VarGetCell(p.bow.get(), static_cast<int>(i));
        values.resize(d.words * static_cast<std::size_t>(outDim));
        weights.resize(d.words);
        for (std::size_t j = 0; j < d.words; ++j) {
            weights[j] = static_cast<float>(numberAt(b, j) / d.countSum);
            float* row = values.data() + j * static_cast<std::size_t>(outDim);
            for (int r = 0; r < m_dim; ++r) {
                // Column-major D x n: word j's vector is column j.
                const double v = numberAt(x, static_cast<std::size_t>(r) + j * static_cast<std::size_t>(m_dim));
                if (!(std::fabs(v) <= util::maxSafeMagnitude(m_dim))) // also NaN; util/FloatRange.h
                    fail(p.xName + "{" + std::to_string(i + 1) + "}",
                         "value " + (std::isfinite(v) ? util::valueProblem(v, m_dim) : fmtNumber(v)) + " at row " + std::to_string(r + 1) + ", column " +
                             std::to_string(j + 1) + " (word " + std::to_string(j + 1) + " of document " +
                             std::to_string(i + 1) + ")");
                row[r] = static_cast<float>(v);
            }
            if (m_opt.appendTermFrequency)
                row[m_dim] = weights[j];
        }
        const std::size_t item = sink.addItem(values.data(), weights.data(), d.words, p.splits[i]);
        sink.setLabel("fine", item, classOf.at(p.y[i]));
        if (p.words) {
            text.assign(d.words, {});
            const matvar_t* w = Mat_VarGetCell(p.words.get(), static_cast<int>(i));
            if (w->class_type == MAT_C_CHAR)
                text[0] = charString(w);
            else
                for (std::size_t j = 0; j < d.words; ++j)
                    text[j] = charString(Mat_VarGetCell(const_cast<matvar_t*>(w), static_cast<int>(j)));
            sink.setElementText(item, text);
        }
    }
}

void Reader::load(sdk::DatasetSink& sink)
{
    checkHeader();
    // Every size a v5/v7 header claims, checked against the file and the memory budget
    // (util::memoryBudget: what is available now, or SETSCOPE_MEMORY_LIMIT) before matio
    // allocates what the headers say (docs/DATASETS.md, "Untrusted .mat files").
    checkMatV5Claims(m_path, util::memoryBudget().bytes);
    std::lock_guard lock(matioMutex());
    m_log = std::make_unique<LogCapture>();
    open();

    std::vector<Part> parts;
    if (has("X")) {
        requireFields({"X", "BOW_X", "Y"}, "fields X, BOW_X, Y, TR, TE, words");
        Part p;
        p.xName = "X";
        p.bowName = "BOW_X";
        p.yName = "Y";
        p.wordsName = has("words") ? "words" : has("the_words") ? "the_words" : "";
        readPart(p);
        readSplitsX(p);
        parts.push_back(std::move(p));
    } else if (has("xtr") || has("xte")) {
        requireFields({"xtr", "xte", "BOW_xtr", "BOW_xte", "ytr", "yte"},
                      "fields xtr, xte, BOW_xtr, BOW_xte, ytr, yte, words_tr, words_te");
        const bool words = has("words_tr") && has("words_te");
        if (has("words_tr") != has("words_te"))
            fail("", "has only one of words_tr and words_te; the file holds: " + fieldList());
        for (const char* half : {"tr", "te"}) {
            Part p;
            p.xName = std::string("x") + half;
            p.bowName = std::string("BOW_x") + half;
            p.yName = std::string("y") + half;
            p.wordsName = words ? std::string("words_") + half : "";
            readPart(p);
            p.splits.assign(p.size(), std::string(half) == "tr" ? Split::Train : Split::Test);
            parts.push_back(std::move(p));
        }
        m_notes.push_back("train / test as given by the file (xtr, xte)");
    } else {
        fail("", "not a Kusner WMD document file: expected fields X, BOW_X, Y (with TR, TE, words) or xtr, xte, "
                 "BOW_xtr, BOW_xte, ytr, yte; the file holds: " +
                     fieldList());
    }

    std::vector<std::vector<DocInfo>> info(parts.size());
    std::map<double, std::int32_t> classOf;
    std::size_t items = 0, elements = 0;
    for (std::size_t q = 0; q < parts.size(); ++q) {
        validate(parts[q], info[q]);
        std::vector<std::string> dropped;
        std::size_t droppedBySplit[3] = {0, 0, 0};
        for (std::size_t i = 0; i < parts[q].size(); ++i) {
            if (info[q][i].words == 0) {
                if (dropped.size() < 10)
                    dropped.push_back(parts[q].xName + "{" + std::to_string(i + 1) + "}");
                else if (dropped.size() == 10)
                    dropped.push_back("...");
                ++droppedBySplit[static_cast<int>(parts[q].splits[i])];
                continue;
            }
            classOf.emplace(parts[q].y[i], 0);
            ++items;
            elements += info[q][i].words;
        }
        const std::size_t nd = droppedBySplit[0] + droppedBySplit[1] + droppedBySplit[2];
        if (nd) {
            std::string list;
            for (const std::string& d : dropped)
                list += (list.empty() ? "" : ", ") + d;
            m_notes.push_back("dropped " + std::to_string(nd) + " empty document(s) of " + parts[q].xName +
                              " (no words): " + list + " (" + std::to_string(droppedBySplit[0]) + " train, " +
                              std::to_string(droppedBySplit[2]) + " test, " + std::to_string(droppedBySplit[1]) +
                              " val)");
        }
    }
    if (items == 0)
        fail("", "every document is empty (no word vectors)");

    std::vector<std::string> classNames;
    for (auto& [value, id] : classOf) { // std::map: ascending numeric order
        id = static_cast<std::int32_t>(classNames.size());
        classNames.push_back(fmtNumber(value));
    }

    sink.setName(stripSuffixes(fs::path(m_path).stem().string()));
    sink.addSourceFile(m_path);
    sink.setDimension(m_dim + (m_opt.appendTermFrequency ? 1 : 0));
    sink.reserve(items, elements);
    sink.defineLabelSet("fine", classNames);
    for (std::size_t q = 0; q < parts.size(); ++q)
        emit(parts[q], info[q], classOf, sink);

    if (m_opt.appendTermFrequency)
        m_notes.push_back("feature " + std::to_string(m_dim + 1) +
                          " is the word's normalised term frequency (its weight), appended to the " +
                          std::to_string(m_dim) + "-d word vector");
    if (parts.front().wordsName.empty())
        m_notes.push_back("the file has no words field: elements have no text");
    for (const std::string& n : m_notes)
        sink.note(n);
}

} // namespace

sdk::OptionSchema KusnerMatOptions::schema()
{
    const KusnerMatOptions d;
    return {sdk::OptionSpec::integer("split", d.split, 1, 1000,
                                     "which train/test split: row S of TR and TE (the files hold five)"),
            sdk::OptionSpec::flag("tf", d.appendTermFrequency,
                                  "append each word's normalised frequency as one more feature (the papers' 300 + 1)")};
}

KusnerMatOptions KusnerMatOptions::fromValues(const sdk::OptionValues& v)
{
    KusnerMatOptions k;
    k.split = static_cast<int>(v.integer("split"));
    k.appendTermFrequency = v.flag("tf");
    return k;
}

bool looksLikeKusnerMat(const std::string& path) { return util::lowerExtension(path) == ".mat"; }

void loadKusnerMat(const std::string& path, sdk::DatasetSink& sink, const KusnerMatOptions& options)
{
    Reader(path, options).load(sink);
}

sdk::LoaderInfo kusnerMatLoaderInfo()
{
    return {"wmd-mat", "Kusner's WMD documents (.mat: X, BOW_X, Y, TR, TE, words; split 1), MATLAB v5/v7/v7.3",
            {".mat"},
            KusnerMatOptions::schema(),
            [](const std::string& p) { return looksLikeKusnerMat(p); },
            [](const std::string& p, const sdk::OptionValues& o, sdk::DatasetSink& s, sdk::LoadContext&) {
                loadKusnerMat(p, s, KusnerMatOptions::fromValues(o));
            }};
}

} // namespace setscope::data
