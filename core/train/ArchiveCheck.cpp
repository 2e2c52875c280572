// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/train/ArchiveCheck.h"

#include "core/util/InputBudget.h"
#include "core/util/Memory.h"

#include <setscope/sdk/Errors.h>

#include <zip.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace setscope::train {

namespace {

// What LibTorch writes stays far below these; they bound what the check itself holds.
constexpr std::uint64_t kMaxTextRecord = 16ull << 20; // a class definition or a pickle
constexpr std::size_t kMaxRecords = 1u << 20;
constexpr int kMaxTypeDepth = 8;
constexpr std::size_t kMaxDims = 64;
constexpr int kMaxNesting = 1000;

[[noreturn]] void refuse(const std::string& file, const std::string& where, const std::string& why)
{
    throw sdk::InputError(file, where, "not a setscope checkpoint archive (refused before LibTorch reads it): " + why);
}

bool allDigits(std::string_view s, std::size_t maxLen)
{
    return !s.empty() && s.size() <= maxLen &&
           std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string printable(std::string_view s)
{
    std::string out;
    for (char c : s.substr(0, 80))
        out += (c >= 0x20 && c < 0x7f) ? c : '?';
    if (s.size() > 80)
        out += "...";
    return out;
}

// ---------------------------------------------------------------------------------------
// The zip.

enum class RecordKind { Text, Data, Reject };

struct Record {
    std::string name; ///< below the archive's top folder, e.g. "data.pkl", "data/3"
    RecordKind kind = RecordKind::Text;
    std::uint64_t size = 0;
    std::string text; ///< the content of every record but tensor data
};

struct Archive {
    std::string top; ///< the top folder, e.g. "archive"
    std::map<std::string, Record> records;
};

RecordKind recordKind(std::string_view rest)
{
    static const std::set<std::string_view> text = {"data.pkl", "constants.pkl", "version", "byteorder",
                                                    ".data/version", ".data/serialization_id",
                                                    "code/__torch__.py", "code/__torch__.py.debug_pkl"};
    if (text.count(rest))
        return RecordKind::Text;
    if (rest.substr(0, 5) == "data/" && allDigits(rest.substr(5), 19))
        return RecordKind::Data;
    constexpr std::string_view mangle = "code/__torch__/___torch_mangle_";
    if (rest.substr(0, mangle.size()) == mangle) {
        std::string_view tail = rest.substr(mangle.size());
        for (std::string_view suffix : {std::string_view(".py.debug_pkl"), std::string_view(".py")}) {
            if (tail.size() > suffix.size() && tail.substr(tail.size() - suffix.size()) == suffix &&
                allDigits(tail.substr(0, tail.size() - suffix.size()), 9))
                return RecordKind::Text;
        }
    }
    return RecordKind::Reject;
}

struct ZipHandle {
    zip_t* za = nullptr;
    ~ZipHandle()
    {
        if (za)
            zip_discard(za);
    }
};

/// Reads the raw bytes of entry `index` (as stored) through `sink`, which gets chunks.
template <class Sink>
void readRaw(zip_t* za, zip_uint64_t index, std::uint64_t compSize, const std::string& file, const std::string& where,
             util::InputBudget& budget, Sink&& sink)
{
    std::unique_ptr<zip_file_t, int (*)(zip_file_t*)> zf(zip_fopen_index(za, index, ZIP_FL_COMPRESSED), zip_fclose);
    if (!zf)
        refuse(file, where, std::string("cannot open the record: ") + zip_strerror(za));
    std::vector<char> buf(1u << 20);
    std::uint64_t left = compSize;
    while (left > 0) {
        const zip_uint64_t want = std::min<std::uint64_t>(left, buf.size());
        const zip_int64_t got = zip_fread(zf.get(), buf.data(), want);
        if (got <= 0)
            refuse(file, where, "the record is truncated (" + std::to_string(compSize - left) + " of " +
                                    std::to_string(compSize) + " bytes)");
        budget.chargeWork(1 + static_cast<std::uint64_t>(got) / 4096, where, "reading the records");
        sink(buf.data(), static_cast<std::size_t>(got));
        left -= static_cast<std::uint64_t>(got);
    }
}

Archive readZip(zip_source_t* src, const std::string& file, const ArchiveCheckOptions& options, util::InputBudget& budget)
{
    zip_error_t ze;
    zip_error_init(&ze);
    ZipHandle h;
    h.za = zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &ze);
    if (!h.za) {
        const std::string msg = zip_error_strerror(&ze);
        zip_error_fini(&ze);
        zip_source_free(src);
        refuse(file, "", "not a readable zip archive: " + msg);
    }
    zip_error_fini(&ze);

    const zip_int64_t n = zip_get_num_entries(h.za, 0);
    if (n <= 0)
        refuse(file, "", "the archive is empty");
    if (static_cast<std::uint64_t>(n) > kMaxRecords)
        refuse(file, "", std::to_string(n) + " records (at most " + std::to_string(kMaxRecords) + ")");

    Archive ar;
    std::uint64_t total = 0;
    std::vector<std::pair<zip_uint64_t, zip_stat_t>> entries;
    for (zip_int64_t i = 0; i < n; ++i) {
        zip_stat_t st;
        zip_stat_init(&st);
        if (zip_stat_index(h.za, static_cast<zip_uint64_t>(i), ZIP_FL_ENC_RAW, &st) != 0)
            refuse(file, "record " + std::to_string(i), std::string("cannot read its header: ") + zip_strerror(h.za));
        const zip_uint64_t need = ZIP_STAT_NAME | ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_COMP_METHOD | ZIP_STAT_CRC;
        if ((st.valid & need) != need)
            refuse(file, "record " + std::to_string(i), "its zip header is incomplete");
        const std::string name = st.name;
        const std::size_t slash = name.find('/');
        if (slash == std::string::npos || slash == 0)
            refuse(file, printable(name), "a record outside the archive's top folder");
        const std::string top = name.substr(0, slash);
        if (top == "." || top == ".." ||
            !std::all_of(top.begin(), top.end(), [](char c) {
                return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                       c == '-' || c == '.';
            }))
            refuse(file, printable(name), "the top folder's name has characters LibTorch does not write");
        if (ar.top.empty())
            ar.top = top;
        else if (top != ar.top)
            refuse(file, printable(name), "a second top folder ('" + printable(top) + "' besides '" + ar.top + "')");
        const std::string rest = name.substr(slash + 1);
        const RecordKind kind = recordKind(rest);
        if (kind == RecordKind::Reject)
            refuse(file, printable(name), "a record LibTorch's archive writer does not write (setscope's checkpoints "
                                          "hold tensors, numbers, strings and class declarations only)");
        if (ar.records.count(rest))
            refuse(file, printable(name), "the record appears twice");
        if ((st.valid & ZIP_STAT_ENCRYPTION_METHOD) && st.encryption_method != ZIP_EM_NONE)
            refuse(file, printable(name), "an encrypted record");
        if (st.comp_method != ZIP_CM_STORE && !(kind == RecordKind::Text && st.comp_method == ZIP_CM_DEFLATE))
            refuse(file, printable(name), kind == RecordKind::Data
                                              ? "tensor data that is compressed (LibTorch stores it uncompressed)"
                                              : "a compression method other than stored or deflate");
        if (st.comp_method == ZIP_CM_STORE && st.comp_size != st.size)
            refuse(file, printable(name), "a stored record whose sizes differ (" + std::to_string(st.comp_size) +
                                              " stored, " + std::to_string(st.size) + " claimed)");
        if (kind == RecordKind::Text && st.size > kMaxTextRecord)
            refuse(file, printable(name), "a record of " + util::formatBytes(st.size) + " (at most " +
                                              util::formatBytes(kMaxTextRecord) + " for this kind)");
        if (st.size > (std::uint64_t{1} << 56) || total + st.size < total)
            refuse(file, printable(name), "a record of " + std::to_string(st.size) + " bytes");
        total += st.size;
        ar.records[rest] = Record{rest, kind, st.size, {}};
        entries.emplace_back(static_cast<zip_uint64_t>(i), st);
    }
    // LibTorch holds every tensor record in memory, and this check holds the rest.
    util::requireMemory(file, total, "the archive's " + std::to_string(n) + " records, uncompressed");
    budget.chargeBytes(total, "", "the archive's records, uncompressed");

    for (const auto& entry : entries) {
        const zip_uint64_t index = entry.first;
        const zip_stat_t& st = entry.second;
        const std::string name = st.name;
        Record& rec = ar.records.at(name.substr(name.find('/') + 1));
        const bool isData = rec.kind == RecordKind::Data;
        uLong crc = crc32(0L, Z_NULL, 0);
        if (st.comp_method == ZIP_CM_STORE) {
            if (!isData)
                rec.text.reserve(static_cast<std::size_t>(st.size));
            readRaw(h.za, index, st.comp_size, file, name, budget, [&](const char* p, std::size_t len) {
                crc = crc32(crc, reinterpret_cast<const Bytef*>(p), static_cast<uInt>(len));
                if (!isData)
                    rec.text.append(p, len);
            });
        } else {
            z_stream zs{};
            if (inflateInit2(&zs, -MAX_WBITS) != Z_OK)
                refuse(file, name, "cannot start zlib");
            std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&zs, inflateEnd);
            rec.text.resize(static_cast<std::size_t>(st.size));
            zs.next_out = reinterpret_cast<Bytef*>(rec.text.data());
            zs.avail_out = static_cast<uInt>(st.size);
            int rc = Z_OK;
            readRaw(h.za, index, st.comp_size, file, name, budget, [&](const char* p, std::size_t len) {
                if (rc == Z_STREAM_END)
                    return; // bytes after the deflate stream: caught below by the size check
                zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(p));
                zs.avail_in = static_cast<uInt>(len);
                while (zs.avail_in > 0 && rc == Z_OK) {
                    const uLong before = zs.total_out;
                    rc = inflate(&zs, Z_NO_FLUSH);
                    budget.chargeWork(1 + (zs.total_out - before) / 4096, name, "inflating the records");
                    if (rc == Z_BUF_ERROR && zs.avail_out == 0)
                        refuse(file, name, "the record inflates to more than the " + std::to_string(st.size) +
                                               " bytes it claims");
                    if (rc != Z_OK && rc != Z_STREAM_END)
                        refuse(file, name, std::string("its deflate data is damaged (") + (zs.msg ? zs.msg : "zlib") + ")");
                }
            });
            if (rc != Z_STREAM_END || zs.total_out != st.size)
                refuse(file, name, "the record inflates to " + std::to_string(zs.total_out) + " bytes, not the " +
                                       std::to_string(st.size) + " it claims");
            crc = crc32(crc, reinterpret_cast<const Bytef*>(rec.text.data()), static_cast<uInt>(rec.text.size()));
        }
        if (options.verifyCrc && crc != st.crc)
            refuse(file, name, "its CRC-32 does not match (the file is damaged)");
    }
    return ar;
}

// ---------------------------------------------------------------------------------------
// The class declarations (code/*.py).

struct Type {
    enum Kind { Tensor, Int, Float, Str, Bool, None, Tuple, List, Optional, Dict, Class } kind = Tensor;
    std::vector<Type> args;
    std::string cls; ///< for Class: the qualified module, "__torch__" or "__torch__.___torch_mangle_N"
};

struct ClassDef {
    std::string record; ///< "code/__torch__.py" ...
    std::vector<std::pair<std::string, Type>> attributes;
    std::unordered_map<std::string, std::size_t> index; ///< attribute name -> position in `attributes`
    std::set<std::string> tensorSlots; ///< __parameters__ and __buffers__
};

/// "__torch__.___torch_mangle_3" -> "code/__torch__/___torch_mangle_3.py"; "" if not one of ours.
std::string classRecord(std::string_view qualified)
{
    if (qualified == "__torch__")
        return "code/__torch__.py";
    constexpr std::string_view prefix = "__torch__.___torch_mangle_";
    if (qualified.substr(0, prefix.size()) == prefix && allDigits(qualified.substr(prefix.size()), 9))
        return "code/__torch__/" + std::string(qualified.substr(std::string_view("__torch__.").size())) + ".py";
    return {};
}

class TypeParser {
public:
    TypeParser(std::string_view s, util::InputBudget& budget, const std::string& where)
        : m_s(s)
        , m_budget(budget)
        , m_where(where)
    {
    }
    std::optional<Type> parseAll()
    {
        auto t = parse(0);
        if (!t || m_pos != m_s.size())
            return std::nullopt;
        return t;
    }

private:
    bool eat(std::string_view w)
    {
        if (m_s.substr(m_pos, w.size()) != w)
            return false;
        m_pos += w.size();
        return true;
    }
    std::optional<Type> parse(int depth)
    {
        if (depth > kMaxTypeDepth)
            return std::nullopt;
        m_budget.chargeWork(1, m_where, "class declarations");
        m_budget.chargeBytes(sizeof(Type) + 16, m_where, "class declarations");
        static const std::pair<std::string_view, Type::Kind> simple[] = {
            {"Tensor", Type::Tensor}, {"int", Type::Int},   {"float", Type::Float},
            {"str", Type::Str},       {"bool", Type::Bool}, {"NoneType", Type::None}};
        static const std::pair<std::string_view, Type::Kind> generic[] = {
            {"Tuple[", Type::Tuple}, {"List[", Type::List}, {"Optional[", Type::Optional}, {"Dict[", Type::Dict}};
        for (const auto& [word, kind] : generic) {
            if (!eat(word))
                continue;
            Type t;
            t.kind = kind;
            do {
                auto a = parse(depth + 1);
                if (!a)
                    return std::nullopt;
                t.args.push_back(std::move(*a));
            } while (eat(", "));
            if (!eat("]"))
                return std::nullopt;
            const std::size_t want = kind == Type::Dict ? 2 : kind == Type::Tuple ? t.args.size() : 1;
            if (t.args.size() != want)
                return std::nullopt;
            return t;
        }
        if (eat("__torch__")) {
            std::string qualified = "__torch__";
            const std::size_t start = m_pos;
            if (eat(".___torch_mangle_")) {
                const std::size_t digits = m_pos;
                while (m_pos < m_s.size() && m_s[m_pos] >= '0' && m_s[m_pos] <= '9')
                    ++m_pos;
                if (m_pos == digits)
                    return std::nullopt;
                qualified += std::string(m_s.substr(start, m_pos - start));
            }
            if (!eat(".Module"))
                return std::nullopt;
            Type t;
            t.kind = Type::Class;
            t.cls = qualified;
            return t;
        }
        for (const auto& [word, kind] : simple) {
            // A whole word only ("int" must not accept "integer").
            if (m_s.substr(m_pos, word.size()) == word) {
                const std::size_t end = m_pos + word.size();
                if (end < m_s.size() && (std::isalnum(static_cast<unsigned char>(m_s[end])) || m_s[end] == '_'))
                    continue;
                m_pos = end;
                Type t;
                t.kind = kind;
                return t;
            }
        }
        return std::nullopt;
    }

    std::string_view m_s;
    util::InputBudget& m_budget;
    const std::string& m_where;
    std::size_t m_pos = 0;
};

/// An attribute name LibTorch's class parser takes as a plain name: no keyword, nothing it
/// treats specially (dunder names).
bool isIdentifier(std::string_view s)
{
    static const std::set<std::string_view> keywords = {
        "False", "None",   "True",  "and",  "as",     "assert", "async", "await",  "break",  "class",  "continue",
        "def",   "del",    "elif",  "else", "except", "finally", "for",  "from",   "global", "if",     "import",
        "in",    "is",     "lambda", "nonlocal", "not", "or",   "pass",  "raise",  "return", "try",    "while",
        "with",  "yield"};
    if (s.empty() || s.size() > 256 || (s[0] >= '0' && s[0] <= '9') || s.substr(0, 2) == "__" || keywords.count(s))
        return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    });
}

/// A quoted attribute name as LibTorch prints it (no quote, backslash or control character).
std::optional<std::string> quoted(std::string_view s, std::size_t& pos)
{
    if (pos >= s.size() || s[pos] != '"')
        return std::nullopt;
    const std::size_t end = s.find('"', pos + 1);
    if (end == std::string_view::npos || end - pos - 1 > 256)
        return std::nullopt;
    std::string_view name = s.substr(pos + 1, end - pos - 1);
    if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) { return c >= 0x20 && c < 0x7f && c != '\\'; }))
        return std::nullopt;
    pos = end + 1;
    return std::string(name);
}

/// Counts one more value, memo entry or declared attribute of the archive against
/// kMaxArchiveValues.
template <class Where>
void countValue(std::uint64_t& values, const std::string& file, const Where& where)
{
    if (++values > kMaxArchiveValues) {
        std::string at;
        if constexpr (std::is_invocable_v<Where>)
            at = where();
        else
            at = where;
        refuse(file, at, "the archive declares or makes more than " + std::to_string(kMaxArchiveValues) +
                             " values (a checkpoint of setscope's self-attention encoder with its optimizer state makes "
                             "about 11 000)");
    }
}

ClassDef parseClass(const std::string& text, const std::string& record, const std::string& file, const std::string& top,
                    util::InputBudget& budget, std::uint64_t& values)
{
    ClassDef def;
    def.record = record;
    const std::string where = top + "/" + record;
    std::set<std::string> names;
    std::vector<std::string> slotNames;
    std::size_t lineNo = 0;
    bool header = false;
    int slotLists = 0; // LibTorch writes __parameters__, then __buffers__, right after the header
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string::npos)
            end = text.size();
        const std::string_view line(text.data() + pos, end - pos);
        pos = end + 1;
        ++lineNo;
        const std::string at = where + ", line " + std::to_string(lineNo);
        budget.chargeWork(1 + line.size() / 64, at, "class declarations");
        if (line.empty())
            continue;
        if (!header) {
            if (line != "class Module(Module):")
                refuse(file, at, "expected the class header 'class Module(Module):', found '" + printable(line) + "'");
            header = true;
            continue;
        }
        auto bad = [&]() {
            refuse(file, at,
                   "not an attribute declaration (setscope's checkpoints declare attributes and carry no code): '" +
                       printable(line) + "'");
        };
        if (line.size() < 3 || line.substr(0, 2) != "  " || line[2] == ' ')
            bad();
        std::string_view body = line.substr(2);
        auto declare = [&](const std::string& name, std::string_view typeText) {
            auto type = TypeParser(typeText, budget, at).parseAll();
            if (!type)
                refuse(file, at, "unknown type '" + printable(typeText) + "' for '" + printable(name) + "'");
            if (!names.insert(name).second)
                refuse(file, at, "'" + printable(name) + "' is declared twice");
            countValue(values, file, at);
            budget.chargeBytes(3 * (name.size() + 64), at, "class declarations");
            def.index.emplace(name, def.attributes.size());
            def.attributes.emplace_back(name, std::move(*type));
        };
        if (slotLists < 2) {
            const std::string_view list = slotLists == 0 ? "__parameters__ = [" : "__buffers__ = [";
            if (body.substr(0, list.size()) != list)
                refuse(file, at, std::string("expected the list ") + (slotLists == 0 ? "__parameters__" : "__buffers__") +
                                     ", found '" + printable(line) + "'");
            ++slotLists;
            std::size_t p = list.size();
            while (p < body.size() && body[p] != ']') {
                auto name = quoted(body, p);
                if (!name || body.substr(p, 2) != ", ")
                    bad();
                p += 2;
                countValue(values, file, at);
                budget.chargeBytes(name->size() + 32, at, "class declarations");
                slotNames.push_back(*name);
            }
            if (p + 1 != body.size())
                bad();
            continue;
        }
        if (body == "__annotations__ = []")
            continue;
        constexpr std::string_view ann = "__annotations__[";
        if (body.substr(0, ann.size()) == ann) {
            std::size_t p = ann.size();
            auto name = quoted(body, p);
            if (!name || body.substr(p, 4) != "] = ")
                bad();
            declare(*name, body.substr(p + 4));
            continue;
        }
        const std::size_t colon = body.find(" : ");
        if (colon == std::string_view::npos || !isIdentifier(body.substr(0, colon)))
            bad();
        declare(std::string(body.substr(0, colon)), body.substr(colon + 3));
    }
    if (!header || slotLists < 2)
        refuse(file, where, header ? "the class lacks its __parameters__ and __buffers__ lists" : "no class declaration");
    std::set<std::string> slotSeen;
    for (const std::string& slot : slotNames) {
        if (!slotSeen.insert(slot).second)
            refuse(file, where, "the parameter or buffer '" + printable(slot) + "' is listed twice");
        auto at = def.index.find(slot);
        if (at == def.index.end() || def.attributes[at->second].second.kind != Type::Tensor)
            refuse(file, where, "the parameter or buffer '" + printable(slot) + "' is not declared as a Tensor");
        def.tensorSlots.insert(slot);
    }
    return def;
}

// ---------------------------------------------------------------------------------------
// The pickles.

enum class Kind { Mark, None, Bool, Int, Float, Str, Tuple, List, Dict, Global, Object, Storage, Tensor };
enum class Fn { ModuleClass, OrderedDict, RebuildTensor, StorageType, IntList, DoubleList, BoolList, TensorList };

struct Node {
    Kind kind = Kind::None;
    std::int64_t i = 0; ///< Int, Bool; Storage: numel
    std::string s;      ///< Str; Global/Object: the class ("__torch__..."); Storage: the record key
    std::vector<std::shared_ptr<Node>> items;                                      ///< Tuple, List
    std::vector<std::pair<std::shared_ptr<Node>, std::shared_ptr<Node>>> entries; ///< Dict
    Fn fn = Fn::ModuleClass;                                                        ///< Global
    int elementSize = 0;                                                            ///< Global storage type
    bool built = false;                                                             ///< Object
    /// Inside another value already: LibTorch fills a list, dict or object before it uses it
    /// anywhere, and refusing to fill one afterwards rules out reference cycles.
    bool closed = false;
    int depth = 1; ///< nesting; bounded so that neither this check nor LibTorch recurses without end
    /// The declared type this value was last found to have (a value is filled before it is put
    /// inside another and never changes afterwards, so the answer holds): a value that memo
    /// references share many times is walked once per type, not once per reference.
    const Type* matched = nullptr;
};
using Ref = std::shared_ptr<Node>;

const char* kindName(Kind k)
{
    switch (k) {
    case Kind::Mark: return "a mark";
    case Kind::None: return "None";
    case Kind::Bool: return "a bool";
    case Kind::Int: return "an int";
    case Kind::Float: return "a float";
    case Kind::Str: return "a string";
    case Kind::Tuple: return "a tuple";
    case Kind::List: return "a list";
    case Kind::Dict: return "a dict";
    case Kind::Global: return "a global";
    case Kind::Object: return "an object";
    case Kind::Storage: return "a storage";
    case Kind::Tensor: return "a tensor";
    }
    return "?";
}

enum class PickleRole { Data, Constants, Debug };

class PickleMachine {
public:
    PickleMachine(const std::string& bytes, const std::string& where, const std::string& file, const Archive& ar,
                  const std::map<std::string, ClassDef>& classes, PickleRole role, util::InputBudget& budget,
                  std::uint64_t& values)
        : m_b(bytes)
        , m_where(where)
        , m_file(file)
        , m_ar(ar)
        , m_classes(classes)
        , m_role(role)
        , m_budget(budget)
        , m_values(values)
    {
    }

    Ref run()
    {
        if (m_b.size() < 2 || static_cast<unsigned char>(m_b[0]) != 0x80 || static_cast<unsigned char>(m_b[1]) != 2)
            fail(0, "does not start with pickle protocol 2 (what LibTorch writes)");
        m_pos = 2;
        while (true) {
            m_op = m_pos;
            m_budget.chargeWork(1, [this] { return at(m_op); }, "pickle opcodes");
            const unsigned char op = static_cast<unsigned char>(byte());
            switch (op) {
            case '.': // STOP
                if (m_pos != m_b.size())
                    fail(m_op, std::to_string(m_b.size() - m_pos) + " bytes after the end of the pickle");
                if (m_stack.size() != 1 || m_stack[0]->kind == Kind::Mark)
                    fail(m_op, "the pickle ends with " + std::to_string(m_stack.size()) + " values, not one");
                return m_stack[0];
            case 'c': global(); break;
            case 'q': memoPut(static_cast<std::uint64_t>(static_cast<unsigned char>(byte()))); break;
            case 'r': memoPut(u32()); break;
            case 'h': memoGet(static_cast<std::uint64_t>(static_cast<unsigned char>(byte()))); break;
            case 'j': memoGet(u32()); break;
            case '(': push(shared(m_mark, Kind::Mark)); break;
            case ')': push(make(Kind::Tuple)); break;
            case 't': {
                auto t = make(Kind::Tuple);
                t->items = popToMark();
                adoptAll(*t, t->items);
                push(t);
                break;
            }
            case 0x85:
            case 0x86:
            case 0x87: {
                auto t = make(Kind::Tuple);
                t->items = popN(op - 0x84);
                adoptAll(*t, t->items);
                push(t);
                break;
            }
            case ']': push(make(Kind::List)); break;
            case 'a': {
                auto v = popN(1);
                Ref list = open(Kind::List, "APPEND");
                adoptAll(*list, v);
                m_budget.chargeBytes(sizeof(Ref), [this] { return at(m_op); }, "the pickles' values");
                list->items.push_back(v[0]);
                break;
            }
            case 'e': {
                auto v = popToMark();
                Ref list = open(Kind::List, "APPENDS");
                adoptAll(*list, v);
                m_budget.chargeBytes(sizeof(Ref) * v.size(), [this] { return at(m_op); }, "the pickles' values");
                list->items.insert(list->items.end(), v.begin(), v.end());
                break;
            }
            case '}': push(make(Kind::Dict)); break;
            case 's': setItems(popN(2)); break;
            case 'u': setItems(popToMark()); break;
            case 'N': push(shared(m_none, Kind::None)); break;
            case 0x88: push(shared(m_true, Kind::Bool, 1)); break;
            case 0x89: push(shared(m_false, Kind::Bool, 0)); break;
            case 'J': pushInt(static_cast<std::int32_t>(u32())); break;
            case 'K': pushInt(static_cast<unsigned char>(byte())); break;
            case 'M': {
                const std::uint64_t lo = static_cast<unsigned char>(byte());
                pushInt(static_cast<std::int64_t>(lo | (static_cast<std::uint64_t>(static_cast<unsigned char>(byte())) << 8)));
                break;
            }
            case 0x8a: { // LONG1: n little-endian two's complement bytes
                const std::size_t n = static_cast<unsigned char>(byte());
                if (n > 8)
                    fail(m_op, "an integer of " + std::to_string(n) + " bytes (at most 8)");
                std::uint64_t v = 0;
                for (std::size_t k = 0; k < n; ++k)
                    v |= static_cast<std::uint64_t>(static_cast<unsigned char>(byte())) << (8 * k);
                if (n > 0 && n < 8 && (v >> (8 * n - 1)) & 1)
                    v |= ~std::uint64_t{0} << (8 * n);
                pushInt(static_cast<std::int64_t>(v));
                break;
            }
            case 'G':
                need(8);
                m_pos += 8;
                push(make(Kind::Float));
                break;
            case 'X': {
                const std::uint64_t n = u32();
                need(n);
                m_budget.chargeBytes(n, [this] { return at(m_op); }, "the pickles' strings");
                auto v = make(Kind::Str);
                v->s.assign(m_b, m_pos, static_cast<std::size_t>(n));
                m_pos += static_cast<std::size_t>(n);
                push(v);
                break;
            }
            case 'Q': persistentId(); break;
            case 'R': reduce(); break;
            case 0x81: newObject(); break;
            case 'b': build(); break;
            default: {
                char hex[8];
                std::snprintf(hex, sizeof hex, "0x%02x", op);
                fail(m_op, std::string("the pickle opcode ") + hex + " (LibTorch's pickler does not write it)");
            }
            }
            if (m_stack.size() > m_b.size())
                fail(m_op, "the stack outgrows the pickle"); // cannot happen: one push per opcode
        }
    }

private:
    std::string at(std::size_t offset) const { return m_where + ", byte offset " + std::to_string(offset); }
    [[noreturn]] void fail(std::size_t offset, const std::string& why) const { refuse(m_file, at(offset), why); }
    void need(std::uint64_t n) const
    {
        if (n > m_b.size() - m_pos)
            fail(m_op, "the pickle is truncated");
    }
    char byte()
    {
        need(1);
        return m_b[m_pos++];
    }
    std::uint64_t u32()
    {
        need(4);
        std::uint64_t v = 0;
        for (int k = 0; k < 4; ++k)
            v |= static_cast<std::uint64_t>(static_cast<unsigned char>(m_b[m_pos + k])) << (8 * k);
        m_pos += 4;
        return v;
    }
    /// A new value: charged to the memory budget (the node, its control block, a reference on
    /// the stack and the allocator's share).
    Ref make(Kind k)
    {
        m_budget.chargeBytes(sizeof(Node) + 64, [this] { return at(m_op); }, "the pickles' values");
        auto n = std::make_shared<Node>();
        n->kind = k;
        return n;
    }
    /// Marks, None and the two bools are one node each per pickle: nothing about them changes
    /// when they are put inside a value, and a pickle of millions of them then costs no more
    /// memory than its stack.
    Ref shared(Ref& slot, Kind k, std::int64_t i = 0)
    {
        if (!slot) {
            slot = make(k);
            slot->i = i;
        }
        return slot;
    }
    /// Every push counts against kMaxArchiveValues: memo references make no node, but each
    /// takes a place on the stack or in a container.
    void push(Ref r)
    {
        countValue(m_values, m_file, [this] { return at(m_op); });
        m_stack.push_back(std::move(r));
    }
    void pushInt(std::int64_t v)
    {
        auto n = make(Kind::Int);
        n->i = v;
        push(n);
    }
    std::vector<Ref> popN(std::size_t n)
    {
        if (m_stack.size() < n)
            fail(m_op, "the opcode needs " + std::to_string(n) + " values, the stack holds " + std::to_string(m_stack.size()));
        std::vector<Ref> out(m_stack.end() - static_cast<std::ptrdiff_t>(n), m_stack.end());
        for (const Ref& r : out)
            if (r->kind == Kind::Mark)
                fail(m_op, "the opcode would take a mark as a value");
        m_stack.resize(m_stack.size() - n);
        return out;
    }
    std::vector<Ref> popToMark()
    {
        auto it = std::find_if(m_stack.rbegin(), m_stack.rend(), [](const Ref& r) { return r->kind == Kind::Mark; });
        if (it == m_stack.rend())
            fail(m_op, "no mark on the stack");
        const auto markAt = it.base() - 1;
        std::vector<Ref> out(markAt + 1, m_stack.end());
        m_stack.erase(markAt, m_stack.end());
        return out;
    }
    Ref& top(const char* what)
    {
        if (m_stack.empty() || m_stack.back()->kind == Kind::Mark)
            fail(m_op, std::string(what) + " with no value on the stack");
        return m_stack.back();
    }
    Ref below(Kind k, const char* what)
    {
        Ref& t = top(what);
        if (t->kind != k)
            fail(m_op, std::string(what) + " on " + kindName(t->kind) + ", not on " + kindName(k));
        return t;
    }
    /// The top of the stack, of kind `k`, to be filled: refused once it is inside another value.
    Ref open(Kind k, const char* what)
    {
        Ref t = below(k, what);
        if (t->closed)
            fail(m_op, std::string(what) + " on " + kindName(k) +
                           " already inside another value (LibTorch fills a value before using it)");
        return t;
    }
    void adoptAll(Node& parent, const std::vector<Ref>& children)
    {
        // `parent` is open, so inside no value: only itself could close a cycle.
        for (const Ref& c : children) {
            if (c.get() == &parent)
                fail(m_op, std::string("a value put inside itself (") + kindName(parent.kind) + ")");
            c->closed = true;
            parent.depth = std::max(parent.depth, c->depth + 1);
        }
        if (parent.depth > kMaxNesting)
            fail(m_op, "values nested more than " + std::to_string(kMaxNesting) + " deep");
    }
    void memoPut(std::uint64_t index)
    {
        Ref& t = top("a memo entry");
        auto [it, added] = m_memo.try_emplace(index, t);
        if (added) {
            countValue(m_values, m_file, [this] { return at(m_op); });
            m_budget.chargeBytes(64, [this] { return at(m_op); }, "the pickles' memo");
        }
        else
            it->second = t;
    }
    void memoGet(std::uint64_t index)
    {
        auto it = m_memo.find(index);
        if (it == m_memo.end())
            fail(m_op, "a reference to memo entry " + std::to_string(index) + ", which was never stored");
        push(it->second);
    }

    void global()
    {
        auto line = [&]() {
            const std::size_t nl = m_b.find('\n', m_pos);
            if (nl == std::string::npos || nl - m_pos > 256)
                fail(m_op, "a global name without its newline");
            std::string s = m_b.substr(m_pos, nl - m_pos);
            m_pos = nl + 1;
            return s;
        };
        const std::string module = line();
        const std::string name = line();
        auto g = make(Kind::Global);
        const std::string full = module + "." + name;
        static const std::map<std::string, int> storages = {
            {"FloatStorage", 4}, {"DoubleStorage", 8}, {"HalfStorage", 2}, {"BFloat16Storage", 2},
            {"LongStorage", 8},  {"IntStorage", 4},    {"ShortStorage", 2}, {"CharStorage", 1},
            {"ByteStorage", 1},  {"BoolStorage", 1},   {"ComplexFloatStorage", 8}, {"ComplexDoubleStorage", 16}};
        static const std::map<std::string, Fn> lists = {{"build_intlist", Fn::IntList},
                                                        {"build_doublelist", Fn::DoubleList},
                                                        {"build_boollist", Fn::BoolList},
                                                        {"build_tensorlist", Fn::TensorList}};
        bool ok = false;
        if (m_role == PickleRole::Debug) {
            ok = module == "torch.jit._pickle" && name == "build_intlist";
            g->fn = Fn::IntList;
        } else if (name == "Module" && !classRecord(module).empty()) {
            if (!m_classes.count(module))
                fail(m_op, "the class " + printable(module) + ".Module has no declaration in the archive");
            g->fn = Fn::ModuleClass;
            g->s = module;
            ok = true;
        } else if (module == "collections" && name == "OrderedDict") {
            g->fn = Fn::OrderedDict;
            ok = true;
        } else if (module == "torch._utils" && name == "_rebuild_tensor_v2") {
            g->fn = Fn::RebuildTensor;
            ok = true;
        } else if (module == "torch" && storages.count(name)) {
            g->fn = Fn::StorageType;
            g->elementSize = storages.at(name);
            ok = true;
        } else if (module == "torch.jit._pickle" && lists.count(name)) {
            g->fn = lists.at(name);
            ok = true;
        }
        if (!ok)
            fail(m_op, "the global " + printable(full) + " (only the archive's own classes, tensors, storages and "
                                                         "typed lists are allowed)");
        push(g);
    }

    void setItems(std::vector<Ref> kv)
    {
        if (kv.size() % 2)
            fail(m_op, "a dict update with an odd number of values");
        Ref d = open(Kind::Dict, "a dict update");
        adoptAll(*d, kv);
        for (std::size_t k = 0; k < kv.size(); k += 2) {
            const Kind kk = kv[k]->kind;
            if (kk != Kind::Str && kk != Kind::Int)
                fail(m_op, std::string("a dict key that is ") + kindName(kk));
            d->entries.emplace_back(kv[k], kv[k + 1]);
        }
        if (d->entries.size() > m_b.size())
            fail(m_op, "the dict outgrows the pickle");
    }

    void persistentId()
    {
        Ref pid = popN(1)[0];
        if (pid->kind != Kind::Tuple || pid->items.size() != 5)
            fail(m_op, "a persistent id that is not ('storage', type, key, location, size)");
        const auto& a = pid->items;
        if (a[0]->kind != Kind::Str || a[0]->s != "storage" || a[1]->kind != Kind::Global ||
            a[1]->fn != Fn::StorageType || a[2]->kind != Kind::Str || a[3]->kind != Kind::Str || a[4]->kind != Kind::Int)
            fail(m_op, "a persistent id that is not ('storage', type, key, location, size)");
        const std::string& key = a[2]->s;
        const std::string& location = a[3]->s;
        const bool cuda = location.rfind("cuda", 0) == 0 &&
                          (location.size() == 4 || (location[4] == ':' && allDigits(std::string_view(location).substr(5), 3)));
        if (location != "cpu" && !cuda)
            fail(m_op, "a storage on device '" + printable(location) + "'");
        if (!allDigits(key, 19))
            fail(m_op, "a storage key '" + printable(key) + "'");
        auto rec = m_ar.records.find("data/" + key);
        if (rec == m_ar.records.end())
            fail(m_op, "a storage whose record " + m_ar.top + "/data/" + printable(key) + " is missing");
        const std::int64_t numel = a[4]->i;
        const std::uint64_t elem = static_cast<std::uint64_t>(a[1]->elementSize);
        if (numel < 0 || static_cast<std::uint64_t>(numel) > rec->second.size / elem)
            fail(m_op, "a storage of " + std::to_string(numel) + " elements of " + std::to_string(elem) +
                           " bytes in the record " + m_ar.top + "/data/" + key + " of " +
                           std::to_string(rec->second.size) + " bytes");
        auto s = make(Kind::Storage);
        s->i = numel;
        s->s = key;
        push(s);
    }

    std::vector<std::int64_t> ints(const Ref& t, const char* what)
    {
        if (t->kind != Kind::Tuple || t->items.size() > kMaxDims)
            fail(m_op, std::string("a tensor's ") + what + " that is not a tuple of at most 64 ints");
        std::vector<std::int64_t> out;
        for (const Ref& v : t->items) {
            if (v->kind != Kind::Int || v->i < 0)
                fail(m_op, std::string("a tensor's ") + what + " with a value that is not a non-negative int");
            out.push_back(v->i);
        }
        return out;
    }

    Ref rebuildTensor(const std::vector<Ref>& a)
    {
        if ((a.size() != 6 && a.size() != 7) || a[0]->kind != Kind::Storage || a[1]->kind != Kind::Int ||
            a[4]->kind != Kind::Bool || a[5]->kind != Kind::Dict || !a[5]->entries.empty() ||
            (a.size() == 7 && a[6]->kind != Kind::Dict && a[6]->kind != Kind::None))
            fail(m_op, "a tensor rebuilt from arguments other than (storage, offset, size, stride, requires_grad, "
                       "hooks)");
        const std::vector<std::int64_t> size = ints(a[2], "size");
        const std::vector<std::int64_t> stride = ints(a[3], "stride");
        if (size.size() != stride.size())
            fail(m_op, "a tensor with " + std::to_string(size.size()) + " sizes and " + std::to_string(stride.size()) +
                           " strides");
        const std::int64_t offset = a[1]->i;
        const std::int64_t numel = a[0]->i;
        if (offset < 0 || offset > numel)
            fail(m_op, "a tensor at offset " + std::to_string(offset) + " of a storage of " + std::to_string(numel) +
                           " elements");
        const bool empty = std::find(size.begin(), size.end(), 0) != size.end();
        if (!empty) {
            // The last element's index, offset + sum (size - 1) * stride, must stay below numel;
            // checked term by term without overflow (every term is non-negative).
            std::int64_t last = offset;
            for (std::size_t d = 0; d <= size.size(); ++d) {
                if (last >= numel)
                    fail(m_op, "a tensor that reaches past the " + std::to_string(numel) +
                                   " elements of its storage (record " + m_ar.top + "/data/" + a[0]->s + ")");
                if (d == size.size())
                    break;
                const std::int64_t room = numel - 1 - last; // >= 0 here
                if (stride[d] > 0 && size[d] - 1 > room / stride[d])
                    fail(m_op, "a tensor that reaches past the " + std::to_string(numel) +
                                   " elements of its storage (record " + m_ar.top + "/data/" + a[0]->s + ")");
                last += (size[d] - 1) * stride[d];
            }
            std::uint64_t elements = 1;
            for (std::size_t d = 0; d < size.size(); ++d) {
                if (static_cast<std::uint64_t>(size[d]) > (std::uint64_t{1} << 48) / elements)
                    fail(m_op, "a tensor of more than 2^48 elements");
                elements *= static_cast<std::uint64_t>(size[d]);
            }
        }
        return make(Kind::Tensor);
    }

    void reduce()
    {
        auto v = popN(2);
        const Ref& fn = v[0];
        const Ref& args = v[1];
        if (fn->kind != Kind::Global || args->kind != Kind::Tuple)
            fail(m_op, std::string("a call of ") + kindName(fn->kind) + " with " + kindName(args->kind));
        switch (fn->fn) {
        case Fn::OrderedDict:
            if (!args->items.empty())
                fail(m_op, "an OrderedDict made with arguments");
            push(make(Kind::Dict));
            return;
        case Fn::RebuildTensor: push(rebuildTensor(args->items)); return;
        case Fn::IntList:
        case Fn::DoubleList:
        case Fn::BoolList:
        case Fn::TensorList: {
            if (args->items.size() != 1 || args->items[0]->kind != Kind::List)
                fail(m_op, "a typed list made from something else than one list");
            const Kind want = fn->fn == Fn::IntList      ? Kind::Int
                              : fn->fn == Fn::DoubleList ? Kind::Float
                              : fn->fn == Fn::BoolList   ? Kind::Bool
                                                         : Kind::Tensor;
            for (const Ref& e : args->items[0]->items)
                if (e->kind != want)
                    fail(m_op, std::string("a typed list of ") + kindName(want) + " holding " + kindName(e->kind));
            push(args->items[0]);
            return;
        }
        case Fn::ModuleClass:
        case Fn::StorageType: fail(m_op, "a call of a class or a storage type (LibTorch's pickler never writes one)");
        }
    }

    void newObject()
    {
        auto v = popN(2);
        if (v[0]->kind != Kind::Global || v[0]->fn != Fn::ModuleClass || v[1]->kind != Kind::Tuple ||
            !v[1]->items.empty())
            fail(m_op, "an object made from something else than one of the archive's classes");
        auto o = make(Kind::Object);
        o->s = v[0]->s;
        push(o);
    }

    /// Whether `v` is of the declared type `t`. A container already found to be of `t` is not
    /// walked again (values do not change once inside another, and a mismatch ends the check),
    /// so memo references that put one list into another many times cost one walk per type;
    /// every step is charged to the budget besides.
    bool matches(const Type& t, const Ref& v, int depth)
    {
        if (depth > kMaxTypeDepth)
            return false;
        if (v->matched == &t)
            return true;
        m_budget.chargeWork(1, [this] { return at(m_op); }, "type checks of the pickles' values");
        const bool ok = matchesOnce(t, v, depth);
        if (ok)
            v->matched = &t;
        return ok;
    }
    bool matchesOnce(const Type& t, const Ref& v, int depth)
    {
        switch (t.kind) {
        case Type::Tensor: return v->kind == Kind::Tensor;
        case Type::Int: return v->kind == Kind::Int;
        case Type::Float: return v->kind == Kind::Float;
        case Type::Str: return v->kind == Kind::Str;
        case Type::Bool: return v->kind == Kind::Bool;
        case Type::None: return v->kind == Kind::None;
        case Type::Optional: return v->kind == Kind::None || matches(t.args[0], v, depth + 1);
        case Type::Tuple:
            if (v->kind != Kind::Tuple || v->items.size() != t.args.size())
                return false;
            for (std::size_t k = 0; k < t.args.size(); ++k)
                if (!matches(t.args[k], v->items[k], depth + 1))
                    return false;
            return true;
        case Type::List:
            if (v->kind != Kind::List)
                return false;
            for (const Ref& e : v->items)
                if (!matches(t.args[0], e, depth + 1))
                    return false;
            return true;
        case Type::Dict:
            if (v->kind != Kind::Dict)
                return false;
            for (const auto& [k, e] : v->entries)
                if (!matches(t.args[0], k, depth + 1) || !matches(t.args[1], e, depth + 1))
                    return false;
            return true;
        case Type::Class: return v->kind == Kind::Object && v->built && v->s == t.cls;
        }
        return false;
    }

    void build()
    {
        Ref state = popN(1)[0];
        Ref obj = open(Kind::Object, "BUILD");
        if (obj->built)
            fail(m_op, "an object built twice");
        adoptAll(*obj, {state});
        if (state->kind != Kind::Dict)
            fail(m_op, std::string("an object built from ") + kindName(state->kind) + ", not from a dict");
        const ClassDef& def = m_classes.at(obj->s);
        std::set<std::string> seen;
        for (const auto& entry : state->entries) {
            const Ref& k = entry.first;
            const Ref& v = entry.second;
            if (k->kind != Kind::Str)
                fail(m_op, "an attribute name that is not a string");
            const auto found = def.index.find(k->s);
            if (found == def.index.end())
                fail(m_op, "the attribute '" + printable(k->s) + "', which " + m_ar.top + "/" + def.record +
                               " does not declare");
            if (!seen.insert(k->s).second)
                fail(m_op, "the attribute '" + printable(k->s) + "' set twice");
            if (!matches(def.attributes[found->second].second, v, 0))
                fail(m_op, "the attribute '" + printable(k->s) + "' is " + kindName(v->kind) +
                               (v->kind == Kind::Object && !v->built ? " not yet built" : "") +
                               ", not of the type its class declares");
        }
        if (seen.size() != def.attributes.size())
            fail(m_op, "an object of " + m_ar.top + "/" + def.record + " without all of its " +
                           std::to_string(def.attributes.size()) + " attributes");
        obj->built = true;
    }

    const std::string& m_b;
    std::string m_where;
    const std::string& m_file;
    const Archive& m_ar;
    const std::map<std::string, ClassDef>& m_classes;
    PickleRole m_role;
    util::InputBudget& m_budget;
    std::uint64_t& m_values;
    std::size_t m_pos = 0;
    std::size_t m_op = 0;
    std::vector<Ref> m_stack;
    std::unordered_map<std::uint64_t, Ref> m_memo;
    Ref m_mark, m_none, m_true, m_false;
};

// ---------------------------------------------------------------------------------------

void checkArchive(const Archive& ar, const std::string& file, util::InputBudget& budget)
{
    auto text = [&](const std::string& rest) -> const std::string* {
        auto it = ar.records.find(rest);
        return it == ar.records.end() ? nullptr : &it->second.text;
    };
    for (const char* required : {"data.pkl", "constants.pkl", "code/__torch__.py"})
        if (!text(required))
            refuse(file, ar.top + "/" + required, "the record is missing");
    // LibTorch's PyTorchStreamWriter writes its format version to "version" below version 6 and
    // to ".data/version" from 6 on (caffe2/serialize/inline_container.cc, writeEndOfFile, in
    // 1.13 and 2.x alike); one of them must be there.
    if (!text("version") && !text(".data/version"))
        refuse(file, ar.top + "/version", "the record is missing (nor is there a .data/version)");
    if (const std::string* rec = text("version")) {
        std::string v = *rec;
        if (!v.empty() && v.back() == '\n')
            v.pop_back();
        if (!allDigits(v, 3))
            refuse(file, ar.top + "/version", "not a version number: '" + printable(v) + "'");
    }
    if (const std::string* bo = text("byteorder"); bo && *bo != "little")
        refuse(file, ar.top + "/byteorder", "'" + printable(*bo) + "' (only little-endian archives)");
    if (const std::string* v = text(".data/version")) {
        std::string_view digits = *v;
        if (!digits.empty() && digits.back() == '\n')
            digits.remove_suffix(1);
        if (!allDigits(digits, 3))
            refuse(file, ar.top + "/.data/version", "not a version number");
    }

    // The classes, by qualified name.
    std::uint64_t values = 0; // declared attributes, then every value and memo entry of the pickles
    std::map<std::string, ClassDef> classes;
    for (const auto& [rest, rec] : ar.records) {
        if (rest.size() < 3 || rest.compare(rest.size() - 3, 3, ".py") != 0)
            continue;
        std::string qualified = rest.substr(5, rest.size() - 8); // "code/" ... ".py"
        std::replace(qualified.begin(), qualified.end(), '/', '.');
        classes.emplace(qualified, parseClass(rec.text, rest, file, ar.top, budget, values));
    }
    // Every referenced class is there, and none contains itself (LibTorch's type parser
    // would recurse without end).
    std::map<std::string, int> state; // 1 = on the path, 2 = done
    std::vector<std::string> path;
    std::function<void(const std::string&)> visit = [&](const std::string& cls) {
        state[cls] = 1;
        path.push_back(cls);
        if (path.size() > 1000)
            refuse(file, ar.top + "/" + classes.at(cls).record, "classes nested more than 1000 deep");
        std::function<void(const Type&)> refs = [&](const Type& t) {
            if (t.kind == Type::Class) {
                auto it = classes.find(t.cls);
                if (it == classes.end())
                    refuse(file, ar.top + "/" + classes.at(cls).record,
                           "refers to the class " + t.cls + ".Module, which the archive does not declare");
                if (state[t.cls] == 1)
                    refuse(file, ar.top + "/" + classes.at(cls).record, "the class contains itself (through " + t.cls + ")");
                if (state[t.cls] == 0)
                    visit(t.cls);
            }
            for (const Type& a : t.args)
                refs(a);
        };
        for (const auto& [name, type] : classes.at(cls).attributes)
            refs(type);
        path.pop_back();
        state[cls] = 2;
    };
    for (const auto& [cls, def] : classes)
        if (state[cls] == 0)
            visit(cls);

    Ref root =
        PickleMachine(*text("data.pkl"), ar.top + "/data.pkl", file, ar, classes, PickleRole::Data, budget, values).run();
    if (root->kind != Kind::Object || root->s != "__torch__" || !root->built)
        refuse(file, ar.top + "/data.pkl", std::string("its value is ") + kindName(root->kind) +
                                               ", not the archive's root object (__torch__.Module)");
    Ref constants =
        PickleMachine(*text("constants.pkl"), ar.top + "/constants.pkl", file, ar, classes, PickleRole::Constants, budget,
                      values)
            .run();
    if (constants->kind != Kind::Tuple || !constants->items.empty())
        refuse(file, ar.top + "/constants.pkl", "constants (setscope's archives have none)");
    for (const auto& [rest, rec] : ar.records) {
        if (rest.size() < 10 || rest.compare(rest.size() - 10, 10, ".debug_pkl") != 0)
            continue;
        if (!ar.records.count(rest.substr(0, rest.size() - 10)))
            refuse(file, ar.top + "/" + rest, "debug information of a class the archive does not declare");
        Ref debug =
            PickleMachine(rec.text, ar.top + "/" + rest, file, ar, classes, PickleRole::Debug, budget, values).run();
        if (debug->kind != Kind::Tuple)
            refuse(file, ar.top + "/" + rest, std::string("its value is ") + kindName(debug->kind) + ", not a tuple");
    }
}

} // namespace

void checkTorchArchiveFile(const std::string& path, const ArchiveCheckOptions& options)
{
    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t* src = zip_source_file_create(path.c_str(), 0, -1, &ze);
    if (!src) {
        const std::string msg = zip_error_strerror(&ze);
        zip_error_fini(&ze);
        throw sdk::InputError(path, "", "cannot open the checkpoint: " + msg);
    }
    zip_error_fini(&ze);
    util::InputBudget budget(path);
    budget.setPoll(options.poll);
    checkArchive(readZip(src, path, options, budget), path, budget);
}

void checkTorchArchive(std::string_view bytes, const std::string& file, const ArchiveCheckOptions& options)
{
    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t* src = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &ze);
    if (!src) {
        const std::string msg = zip_error_strerror(&ze);
        zip_error_fini(&ze);
        throw sdk::InputError(file, "", "cannot read the archive: " + msg);
    }
    zip_error_fini(&ze);
    util::InputBudget budget(file);
    budget.setPoll(options.poll);
    checkArchive(readZip(src, file, options, budget), file, budget);
}

} // namespace setscope::train
