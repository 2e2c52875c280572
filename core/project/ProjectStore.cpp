// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/project/ProjectStore.h"

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <random>
#include <system_error>

#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <unistd.h>
#endif

namespace fs = std::filesystem;

namespace setscope::project {

namespace {

/// PRAGMA application_id of every setscope project ("SSCP"), stored in the file header so
/// that a foreign database is recognised from its first 100 bytes, before SQLite opens it.
constexpr std::int32_t kApplicationId = 0x53534350;
constexpr char kSqliteMagic[16] = {'S', 'Q', 'L', 'i', 't', 'e', ' ', 'f', 'o', 'r', 'm', 'a', 't', ' ', '3', '\0'};

#define SETSCOPE_NOW "(strftime('%Y-%m-%dT%H:%M:%fZ','now'))"

// Schema version 1. Labels of a label set live in one BLOB (little-endian int32 per item) so
// that an edit rewrites only the pages of the items it touches (incremental blob I/O) and
// reading a label set is one row. Every change of every edit keeps its old and new label,
// which is what undo and redo replay.
constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE schema_version (
  version     INTEGER NOT NULL,
  written_by  TEXT NOT NULL,
  created_at  TEXT NOT NULL DEFAULT )sql" SETSCOPE_NOW R"sql(
);
CREATE TABLE datasets (
  id           INTEGER PRIMARY KEY,
  name         TEXT NOT NULL,
  path         TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  items        INTEGER NOT NULL CHECK (items >= 0),
  added_at     TEXT NOT NULL DEFAULT )sql" SETSCOPE_NOW R"sql(,
  UNIQUE (path, content_hash)
);
CREATE TABLE label_sets (
  id          INTEGER PRIMARY KEY,
  dataset_id  INTEGER NOT NULL REFERENCES datasets(id),
  name        TEXT NOT NULL,
  labels      BLOB NOT NULL,
  created_at  TEXT NOT NULL DEFAULT )sql" SETSCOPE_NOW R"sql(,
  UNIQUE (dataset_id, name)
);
CREATE TABLE label_classes (
  label_set_id INTEGER NOT NULL REFERENCES label_sets(id),
  class_id     INTEGER NOT NULL CHECK (class_id >= 0),
  name         TEXT NOT NULL,
  PRIMARY KEY (label_set_id, class_id),
  UNIQUE (label_set_id, name)
) WITHOUT ROWID;
CREATE TABLE edits (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  label_set_id INTEGER NOT NULL REFERENCES label_sets(id),
  description  TEXT NOT NULL,
  changes      INTEGER NOT NULL CHECK (changes > 0),
  undone       INTEGER NOT NULL DEFAULT 0 CHECK (undone IN (0, 1)),
  created_at   TEXT NOT NULL DEFAULT )sql" SETSCOPE_NOW R"sql(
);
CREATE INDEX edits_by_label_set ON edits(label_set_id, undone, id);
CREATE TABLE edit_changes (
  edit_id    INTEGER NOT NULL REFERENCES edits(id) ON DELETE CASCADE,
  item       INTEGER NOT NULL CHECK (item >= 0),
  old_label  INTEGER NOT NULL CHECK (old_label >= -1),
  new_label  INTEGER NOT NULL CHECK (new_label >= -1),
  PRIMARY KEY (edit_id, item)
) WITHOUT ROWID;
CREATE TABLE runs (
  id          INTEGER PRIMARY KEY,
  dataset_id  INTEGER NOT NULL REFERENCES datasets(id),
  config_json TEXT NOT NULL,
  status      TEXT NOT NULL CHECK (status IN ('running', 'finished', 'cancelled', 'failed')),
  note        TEXT NOT NULL DEFAULT '',
  started_at  TEXT NOT NULL DEFAULT )sql" SETSCOPE_NOW R"sql(,
  finished_at TEXT NOT NULL DEFAULT ''
);
CREATE INDEX runs_by_dataset ON runs(dataset_id);
CREATE TABLE metrics (
  id      INTEGER PRIMARY KEY,
  run_id  INTEGER NOT NULL REFERENCES runs(id),
  epoch   INTEGER NOT NULL,
  step    INTEGER NOT NULL,
  name    TEXT NOT NULL,
  value   REAL
);
CREATE INDEX metrics_by_run ON metrics(run_id, id);
CREATE TABLE checkpoints (
  id          INTEGER PRIMARY KEY,
  run_id      INTEGER NOT NULL REFERENCES runs(id),
  step        INTEGER NOT NULL,
  path        TEXT NOT NULL,
  created_at  TEXT NOT NULL DEFAULT )sql" SETSCOPE_NOW R"sql(
);
CREATE INDEX checkpoints_by_run ON checkpoints(run_id, id);
)sql";

// Version 2: the mapping a label set was derived by (weak labels, docs/LABELS.md), kept so it
// can be edited and applied again. A version-1 project gains the table when opened.
constexpr const char* kSchemaV2 = R"sql(
CREATE TABLE label_mappings (
  label_set_id INTEGER PRIMARY KEY REFERENCES label_sets(id),
  source       TEXT NOT NULL,
  mapping_json TEXT NOT NULL,
  updated_at   TEXT NOT NULL DEFAULT )sql" SETSCOPE_NOW R"sql(
);
)sql";

#undef SETSCOPE_NOW

constexpr const char* kTables[] = {"schema_version", "datasets", "label_sets", "label_classes", "edits",
                                   "edit_changes",   "runs",     "metrics",    "checkpoints"};
constexpr const char* kTablesV2[] = {"label_mappings"};

std::string hint(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return " (another program kept the project locked for more than " +
               std::to_string(ProjectStore::kBusyTimeoutMs / 1000) + " s)";
    case SQLITE_FULL:
        return " (the disk is full)";
    case SQLITE_READONLY:
    case SQLITE_PERM:
        return " (the project file or its folder is read-only)";
    case SQLITE_IOERR:
        return " (input/output error)";
    case SQLITE_CANTOPEN:
        return " (cannot open the file or create its -wal/-shm companions)";
    default:
        return {};
    }
}

/// One SQLite connection plus what the current call is doing (for error messages).
struct Connection {
    ~Connection()
    {
        if (db)
            sqlite3_close_v2(db);
    }

    [[noreturn]] void fail(const std::string& detail) const
    {
        throw ProjectError(path, op.empty() ? detail : op + ": " + detail);
    }
    [[noreturn]] void failSqlite(int rc) const
    {
        const std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
        if ((rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB)
            fail("the project file is damaged (truncated or corrupted): " + msg);
        fail(msg + hint(rc));
    }
    void check(int rc) const
    {
        if (rc != SQLITE_OK)
            failSqlite(rc);
    }
    void exec(const char* sql) const
    {
        const int rc = sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
        if (rc != SQLITE_OK)
            failSqlite(rc);
    }

    std::string path; ///< as the caller named it: error messages use it
    sqlite3* db = nullptr;
    std::string op; ///< "cannot apply edit", ...: the start of error messages
    std::mutex mutex;
};

/// Locks the connection for one public call and names the call in error messages.
class Operation {
public:
    Operation(Connection& c, std::string what)
        : m_lock(c.mutex)
        , m_c(c)
    {
        c.op = std::move(what);
    }
    ~Operation() { m_c.op.clear(); }
    Operation(const Operation&) = delete;
    Operation& operator=(const Operation&) = delete;

private:
    std::lock_guard<std::mutex> m_lock;
    Connection& m_c;
};

class Statement {
public:
    Statement(const Connection& c, const char* sql)
        : m_c(c)
    {
        m_c.check(sqlite3_prepare_v2(c.db, sql, -1, &m_stmt, nullptr));
    }
    ~Statement() { sqlite3_finalize(m_stmt); }
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    Statement& bindInt(int i, std::int64_t v)
    {
        m_c.check(sqlite3_bind_int64(m_stmt, i, v));
        return *this;
    }
    Statement& bindText(int i, const std::string& v)
    {
        if (v.size() > static_cast<std::size_t>(INT_MAX))
            m_c.fail("text too long");
        m_c.check(sqlite3_bind_text(m_stmt, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
        return *this;
    }
    /// SQLite would store NaN as NULL anyway; do it explicitly so that reading maps it back.
    Statement& bindReal(int i, double v)
    {
        m_c.check(std::isnan(v) ? sqlite3_bind_null(m_stmt, i) : sqlite3_bind_double(m_stmt, i, v));
        return *this;
    }
    Statement& bindBlob(int i, const std::string& bytes)
    {
        if (bytes.size() > static_cast<std::size_t>(INT_MAX))
            m_c.fail("label vector too large");
        // data() is never null, so an empty vector is stored as an empty BLOB, not as NULL.
        m_c.check(sqlite3_bind_blob(m_stmt, i, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT));
        return *this;
    }

    /// True when a row is available, false when done; throws on error.
    bool step()
    {
        const int rc = sqlite3_step(m_stmt);
        if (rc == SQLITE_ROW)
            return true;
        if (rc == SQLITE_DONE)
            return false;
        m_c.failSqlite(rc);
    }
    /// Runs a statement that returns no rows.
    void run()
    {
        while (step()) {
        }
    }
    /// Makes the statement ready to run again with new bindings.
    void reset()
    {
        sqlite3_reset(m_stmt); // returns the last step's error, already reported by step()
        sqlite3_clear_bindings(m_stmt);
    }

    std::int64_t integer(int col) const { return sqlite3_column_int64(m_stmt, col); }
    bool isNull(int col) const { return sqlite3_column_type(m_stmt, col) == SQLITE_NULL; }
    double real(int col) const
    {
        return isNull(col) ? std::numeric_limits<double>::quiet_NaN() : sqlite3_column_double(m_stmt, col);
    }
    std::string text(int col) const
    {
        const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt, col));
        const int n = sqlite3_column_bytes(m_stmt, col);
        return p ? std::string(p, static_cast<std::size_t>(n)) : std::string();
    }
    std::string blob(int col) const
    {
        const auto* p = static_cast<const char*>(sqlite3_column_blob(m_stmt, col));
        const int n = sqlite3_column_bytes(m_stmt, col);
        return p ? std::string(p, static_cast<std::size_t>(n)) : std::string();
    }

private:
    const Connection& m_c;
    sqlite3_stmt* m_stmt = nullptr;
};

/// RAII transaction: BEGIN IMMEDIATE (writes: takes the write lock up front, so a write never
/// fails half-way for want of the lock) or BEGIN DEFERRED (consistent multi-statement reads).
/// Rolls back unless commit() succeeded.
class Transaction {
public:
    enum class Mode { Read, Write };

    Transaction(const Connection& c, Mode mode)
        : m_c(c)
    {
        m_c.exec(mode == Mode::Write ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED");
        m_open = true;
    }
    ~Transaction()
    {
        // A destructor cannot report a failed ROLLBACK; the connection would then still be in
        // the transaction, and the next BEGIN reports that as a ProjectError.
        if (m_open && !sqlite3_get_autocommit(m_c.db))
            sqlite3_exec(m_c.db, "ROLLBACK", nullptr, nullptr, nullptr);
    }
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;

    void commit()
    {
        m_c.exec("COMMIT");
        m_open = false;
    }

private:
    const Connection& m_c;
    bool m_open = false;
};

std::string encodeLabels(const std::vector<std::int32_t>& labels)
{
    std::string out(labels.size() * 4, '\0');
    for (std::size_t i = 0; i < labels.size(); ++i) {
        const auto u = static_cast<std::uint32_t>(labels[i]);
        for (int b = 0; b < 4; ++b)
            out[i * 4 + b] = static_cast<char>((u >> (8 * b)) & 0xffu);
    }
    return out;
}

std::int32_t decodeLabel(const unsigned char* p)
{
    const std::uint32_t u = std::uint32_t(p[0]) | (std::uint32_t(p[1]) << 8) | (std::uint32_t(p[2]) << 16) |
                            (std::uint32_t(p[3]) << 24);
    return static_cast<std::int32_t>(u);
}

/// The stored label vector of one label set, opened for incremental reads and writes inside
/// the caller's transaction (only the pages of touched items are rewritten).
class LabelBlob {
public:
    LabelBlob(const Connection& c, std::int64_t labelSetId, std::int64_t items)
        : m_c(c)
    {
        m_c.check(sqlite3_blob_open(c.db, "main", "label_sets", "labels", labelSetId, 1, &m_blob));
        if (const int bytes = sqlite3_blob_bytes(m_blob); bytes != items * 4) {
            sqlite3_blob_close(m_blob); // the destructor does not run when the constructor throws
            m_c.fail("the project file is damaged: label set " + std::to_string(labelSetId) + " stores " +
                     std::to_string(bytes / 4) + " labels for " + std::to_string(items) + " items");
        }
    }
    // Always closed inside an explicit transaction, where closing commits nothing and cannot fail.
    ~LabelBlob() { sqlite3_blob_close(m_blob); }
    LabelBlob(const LabelBlob&) = delete;
    LabelBlob& operator=(const LabelBlob&) = delete;

    std::int32_t get(std::int64_t item) const
    {
        unsigned char b[4];
        m_c.check(sqlite3_blob_read(m_blob, b, 4, static_cast<int>(item * 4)));
        return decodeLabel(b);
    }
    void set(std::int64_t item, std::int32_t label)
    {
        const auto u = static_cast<std::uint32_t>(label);
        const unsigned char b[4] = {static_cast<unsigned char>(u & 0xffu), static_cast<unsigned char>((u >> 8) & 0xffu),
                                    static_cast<unsigned char>((u >> 16) & 0xffu),
                                    static_cast<unsigned char>((u >> 24) & 0xffu)};
        m_c.check(sqlite3_blob_write(m_blob, b, 4, static_cast<int>(item * 4)));
    }

private:
    const Connection& m_c;
    sqlite3_blob* m_blob = nullptr;
};

struct LabelSetInfo {
    std::int64_t id = 0;
    std::int64_t datasetId = 0;
    std::int64_t items = 0;
    std::int64_t classes = 0;
};

std::optional<LabelSetInfo> labelSetInfo(const Connection& c, std::int64_t labelSetId)
{
    Statement s(c, "SELECT ls.dataset_id, d.items, "
                   "(SELECT count(*) FROM label_classes WHERE label_set_id = ls.id) "
                   "FROM label_sets ls JOIN datasets d ON d.id = ls.dataset_id WHERE ls.id = ?1");
    s.bindInt(1, labelSetId);
    if (!s.step())
        return std::nullopt;
    return LabelSetInfo{labelSetId, s.integer(0), s.integer(1), s.integer(2)};
}

LabelSetInfo requireLabelSet(const Connection& c, std::int64_t labelSetId)
{
    auto info = labelSetInfo(c, labelSetId);
    if (!info)
        c.fail("no label set with id " + std::to_string(labelSetId));
    return *info;
}

/// The label set's name, for messages ("" when it has none).
std::string labelSetName(const Connection& c, std::int64_t labelSetId)
{
    Statement s(c, "SELECT name FROM label_sets WHERE id = ?1");
    s.bindInt(1, labelSetId);
    return s.step() ? s.text(0) : std::string();
}

/// "label set 'fine' (id 3)", what a message calls a label set.
std::string describeLabelSet(const Connection& c, std::int64_t labelSetId)
{
    return "label set '" + labelSetName(c, labelSetId) + "' (id " + std::to_string(labelSetId) + ")";
}

/// Why the class ids of a label set are not 0 .. count - 1 (what every reader of the class
/// names assumes: the name of class k is the k-th), or "" when they are.
std::string classIdProblem(const Connection& c, std::int64_t labelSetId)
{
    Statement s(c, "SELECT count(*), min(class_id), max(class_id) FROM label_classes WHERE label_set_id = ?1");
    s.bindInt(1, labelSetId);
    if (!s.step() || s.integer(0) == 0)
        return {};
    const std::int64_t n = s.integer(0), lo = s.integer(1), hi = s.integer(2);
    if (lo == 0 && hi == n - 1)
        return {};
    return "its " + std::to_string(n) + " classes have ids " + std::to_string(lo) + " .. " + std::to_string(hi) +
           ", not 0 .. " + std::to_string(n - 1);
}

/// A label is -1 (unlabelled) or a class id of a set of `classes` classes.
bool labelInRange(std::int64_t label, std::int64_t classes) { return label >= -1 && label < classes; }

std::string labelRangeProblem(std::int64_t item, std::int64_t label, std::int64_t classes)
{
    return "item " + std::to_string(item) + " has the label " + std::to_string(label) +
           ", which is neither -1 nor a class id in [0, " + std::to_string(classes) + ")";
}

bool datasetExists(const Connection& c, std::int64_t id)
{
    Statement s(c, "SELECT 1 FROM datasets WHERE id = ?1");
    s.bindInt(1, id);
    return s.step();
}

std::vector<std::string> classNamesOf(const Connection& c, std::int64_t labelSetId)
{
    Statement s(c, "SELECT name FROM label_classes WHERE label_set_id = ?1 ORDER BY class_id");
    s.bindInt(1, labelSetId);
    std::vector<std::string> out;
    while (s.step())
        out.push_back(s.text(0));
    return out;
}

std::vector<LabelSetRecord> queryLabelSets(const Connection& c, const char* sql, std::int64_t a,
                                           const std::string* name)
{
    std::vector<LabelSetRecord> out;
    {
        Statement s(c, sql);
        s.bindInt(1, a);
        if (name)
            s.bindText(2, *name);
        while (s.step())
            out.push_back({s.integer(0), s.integer(1), s.text(2), {}});
    }
    for (auto& r : out)
        r.classNames = classNamesOf(c, r.id);
    return out;
}

DatasetRecord datasetFrom(const Statement& s)
{
    return {s.integer(0), s.text(1), s.text(2), s.text(3), s.integer(4), s.text(5)};
}
constexpr const char* kDatasetColumns = "SELECT id, name, path, content_hash, items, added_at FROM datasets ";

RunRecord runFrom(const Statement& s)
{
    return {s.integer(0), s.integer(1), s.text(2), s.text(3), s.text(4), s.text(5), s.text(6)};
}
constexpr const char* kRunColumns =
    "SELECT id, dataset_id, config_json, status, note, started_at, finished_at FROM runs ";

void checkClassName(const Connection& c, const std::string& name)
{
    if (name.empty())
        c.fail("a class name must not be empty");
}

std::string randomSuffix()
{
    std::random_device rd;
    std::mt19937_64 gen((std::uint64_t(rd()) << 32) ^ rd());
    static const char kHex[] = "0123456789abcdef";
    std::string s;
    for (int i = 0; i < 12; ++i)
        s += kHex[gen() % 16];
    return s;
}

void removeSqliteFiles(const std::string& file)
{
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
        fs::remove(file + suffix, ec);
}

/// Makes a new directory entry durable (the file's own data is synced by SQLite).
void syncParentDirectory(const std::string& file)
{
#if defined(__unix__) || defined(__APPLE__)
    fs::path dir = fs::path(file).parent_path();
    if (dir.empty())
        dir = ".";
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
#else
    (void)file;
#endif
}

/// A project file may come from someone else (a colleague's project, a download), so every
/// connection is opened as for untrusted input (https://www.sqlite.org/security.html):
/// defensive mode (no writable_schema, no direct edits of the schema or of shadow tables),
/// no extension loading, the schema's functions and virtual tables untrusted
/// (trusted_schema = OFF), and neither triggers nor views run: setscope's schema has none,
/// and openProject() refuses a file that has any.
void configureUntrusted(Connection& c)
{
    const auto set = [&](int option, int value) {
        int now = -1;
        c.check(sqlite3_db_config(c.db, option, value, &now));
        if (now != value)
            c.fail("this SQLite library ignores a safety option (" + std::to_string(option) + ")");
    };
    set(SQLITE_DBCONFIG_DEFENSIVE, 1);
    set(SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0);
    set(SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0);
    set(SQLITE_DBCONFIG_ENABLE_TRIGGER, 0);
    set(SQLITE_DBCONFIG_ENABLE_VIEW, 0);
}

/// Builds a complete empty project at a temporary name beside `c.path`, then links it into
/// place, so that `c.path` never names a half-made project (a crash during creation leaves at
/// most a stray "<path>.creating-*" file). When another process created `c.path` meanwhile,
/// its project wins and ours is discarded.
void createProject(Connection& c)
{
    const std::string tmp = c.path + ".creating-" + randomSuffix();
    {
        Connection t;
        t.path = c.path;
        t.op = c.op;
        const int rc = sqlite3_open_v2(tmp.c_str(), &t.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
        try {
            if (rc != SQLITE_OK)
                t.fail(std::string("cannot create the file: ") + (t.db ? sqlite3_errmsg(t.db) : sqlite3_errstr(rc)) +
                       hint(rc));
            configureUntrusted(t);
            t.exec("PRAGMA journal_mode = WAL");
            t.exec("PRAGMA synchronous = FULL");
            Transaction tx(t, Transaction::Mode::Write);
            t.exec(kSchemaV1);
            t.exec(kSchemaV2);
            Statement(t, "INSERT INTO schema_version (version, written_by) VALUES (?1, ?2)")
                .bindInt(1, ProjectStore::kSchemaVersion)
                .bindText(2, std::string("setscope ") + SETSCOPE_VERSION)
                .run();
            // A pragma takes no bound parameters; the value is our compile-time constant.
            t.exec(("PRAGMA application_id = " + std::to_string(kApplicationId)).c_str());
            tx.commit();
        } catch (...) {
            sqlite3_close_v2(t.db);
            t.db = nullptr;
            removeSqliteFiles(tmp);
            throw;
        }
        // Closing the last connection checkpoints the WAL into the file and deletes it.
        const int crc = sqlite3_close(t.db);
        t.db = nullptr;
        if (crc != SQLITE_OK) {
            removeSqliteFiles(tmp);
            c.fail(std::string("cannot finish the new file: ") + sqlite3_errstr(crc));
        }
    }

    std::error_code ec;
    fs::create_hard_link(tmp, c.path, ec);
    if (ec && ec != std::errc::file_exists) {
        // File systems without hard links: rename, unless someone created the project meanwhile.
        std::error_code ec2;
        if (!fs::exists(c.path, ec2))
            fs::rename(tmp, c.path, ec);
    }
    removeSqliteFiles(tmp);
    if (ec && ec != std::errc::file_exists)
        c.fail("cannot create the file: " + ec.message());
    syncParentDirectory(c.path);
}

/// Checks the first bytes of an existing file without SQLite, so that a file which is not a
/// setscope project is refused before SQLite could write anything to it (a hot journal
/// rollback, a WAL header, a journal mode change).
void checkHeader(const Connection& c)
{
    std::error_code ec;
    if (fs::is_directory(c.path, ec))
        c.fail("this is a folder, not a setscope project");
    const auto size = fs::file_size(c.path, ec);
    if (ec)
        c.fail("cannot read the file: " + ec.message());
    if (size == 0)
        c.fail("not a setscope project (the file is empty)");
    std::ifstream in(c.path, std::ios::binary);
    unsigned char header[100] = {};
    if (!in)
        c.fail("cannot read the file");
    in.read(reinterpret_cast<char*>(header), sizeof header);
    const auto got = static_cast<std::size_t>(in.gcount());
    if (std::memcmp(header, kSqliteMagic, std::min(got, sizeof kSqliteMagic)) != 0)
        c.fail("not a setscope project (not an SQLite database)");
    if (got < sizeof header)
        c.fail("the project file is damaged (truncated to " + std::to_string(got) + " bytes)");
    const std::uint32_t appId = (std::uint32_t(header[68]) << 24) | (std::uint32_t(header[69]) << 16) |
                                (std::uint32_t(header[70]) << 8) | std::uint32_t(header[71]);
    if (appId != static_cast<std::uint32_t>(kApplicationId)) {
        if (appId == 0)
            c.fail("not a setscope project (an SQLite database without the setscope schema)");
        char hex[16];
        std::snprintf(hex, sizeof hex, "0x%08x", appId);
        c.fail(std::string("not a setscope project (an SQLite database of another application, application_id ") +
               hex + ")");
    }
}

void openProject(Connection& c)
{
    checkHeader(c);
    // No SQLITE_OPEN_CREATE: if the file vanished since the check, fail instead of making an
    // empty database that is not a project.
    const int rc = sqlite3_open_v2(c.path.c_str(), &c.db, SQLITE_OPEN_READWRITE, nullptr);
    if (rc != SQLITE_OK)
        c.fail(std::string("cannot open the file: ") + (c.db ? sqlite3_errmsg(c.db) : sqlite3_errstr(rc)) + hint(rc));
    c.check(sqlite3_busy_timeout(c.db, ProjectStore::kBusyTimeoutMs));
    sqlite3_extended_result_codes(c.db, 1);
    configureUntrusted(c);

    // Validate with reads only; SQLite reports a truncated file (fewer pages than the header
    // declares) as SQLITE_CORRUPT here.
    {
        Transaction tx(c, Transaction::Mode::Read);
        std::vector<std::string> tables;
        {
            Statement s(c, "SELECT name FROM sqlite_schema WHERE type = 'table'");
            while (s.step())
                tables.push_back(s.text(0));
        }
        const auto has = [&](const char* t) { return std::find(tables.begin(), tables.end(), t) != tables.end(); };
        if (!has("schema_version"))
            c.fail("not a setscope project (no schema_version table)");
        std::int64_t version = 0;
        {
            Statement s(c, "SELECT max(version) FROM schema_version");
            if (!s.step() || s.isNull(0))
                c.fail("the project file is damaged (no schema version recorded)");
            version = s.integer(0);
        }
        if (version > ProjectStore::kSchemaVersion)
            c.fail("this project was written by a newer setscope (schema version " + std::to_string(version) +
                   "; this build reads versions up to " + std::to_string(ProjectStore::kSchemaVersion) +
                   "): update setscope to open it");
        if (version < 1)
            c.fail("the project file is damaged (schema version " + std::to_string(version) + ")");
        for (const char* t : kTables)
            if (!has(t))
                c.fail(std::string("the project file is damaged (table ") + t + " is missing)");
        if (version >= 2)
            for (const char* t : kTablesV2)
                if (!has(t))
                    c.fail(std::string("the project file is damaged (table ") + t + " is missing)");
        {
            // setscope creates no triggers and no views: one in the file was put there by
            // something else, and could run SQL when setscope writes (configureUntrusted()
            // keeps them from running; the file is refused all the same, unchanged).
            Statement s(c, "SELECT type, name FROM sqlite_schema WHERE type IN ('trigger', 'view') ORDER BY name");
            std::string found;
            while (s.step())
                found += (found.empty() ? "" : ", ") + s.text(0) + " '" + s.text(1) + "'";
            if (!found.empty())
                c.fail("refused: the file contains SQL that setscope did not put there (" + found +
                       "); open it only if you trust where it came from, after removing that with the sqlite3 tool");
        }
        {
            // The whole file, before anything is read from it or written to it: a damaged
            // page found later would fail a save halfway through the user's work.
            Statement s(c, "PRAGMA integrity_check(5)");
            std::string problems;
            while (s.step())
                if (const std::string line = s.text(0); line != "ok")
                    problems += (problems.empty() ? "" : "; ") + line;
            if (!problems.empty())
                c.fail("the project file is damaged (" + problems + ")");
        }
        tx.commit();
        if (version < 2) {
            // Upgrade in one transaction: a failure leaves a version-1 project as it was.
            Transaction up(c, Transaction::Mode::Write);
            c.exec(kSchemaV2);
            Statement(c, "INSERT INTO schema_version (version, written_by) VALUES (2, ?1)")
                .bindText(1, std::string("setscope ") + SETSCOPE_VERSION + " (upgrade from version 1)")
                .run();
            up.commit();
        }
    }

    {
        Statement s(c, "PRAGMA journal_mode = WAL");
        const std::string mode = s.step() ? s.text(0) : std::string();
        if (mode != "wal")
            c.fail("cannot use the WAL journal (journal mode is '" + mode +
                   "'; is the project on a network file system?)");
    }
    c.exec("PRAGMA synchronous = FULL");
    c.exec("PRAGMA foreign_keys = ON");
}

} // namespace

struct ProjectStore::Impl : Connection {
};

ProjectStore::ProjectStore(std::unique_ptr<Impl> impl)
    : m_impl(std::move(impl))
{
}

ProjectStore::~ProjectStore() = default;

std::unique_ptr<ProjectStore> ProjectStore::open(const std::string& path)
{
    auto impl = std::make_unique<Impl>();
    impl->path = path;
    impl->op = "cannot open project";
    if (path.empty())
        impl->fail("no file name given");
    std::error_code ec;
    const auto st = fs::status(path, ec);
    if (ec && ec != std::errc::no_such_file_or_directory)
        impl->fail("cannot access the file: " + ec.message());
    if (!fs::exists(st))
        createProject(*impl);
    openProject(*impl);
    impl->op.clear();
    return std::unique_ptr<ProjectStore>(new ProjectStore(std::move(impl)));
}

const std::string& ProjectStore::path() const { return m_impl->path; }

std::string ProjectStore::checkpointDir() const
{
    return fs::path(m_impl->path).replace_extension(".checkpoints").string();
}

std::vector<std::string> ProjectStore::integrityProblems() const
{
    Connection& c = *m_impl;
    Operation op(c, "cannot check integrity");
    std::vector<std::string> problems;
    Transaction tx(c, Transaction::Mode::Read);
    {
        Statement s(c, "PRAGMA integrity_check");
        while (s.step())
            if (const std::string line = s.text(0); line != "ok")
                problems.push_back(line);
    }
    {
        Statement s(c, "PRAGMA foreign_key_check");
        while (s.step())
            problems.push_back("table " + s.text(0) + " row " + std::to_string(s.integer(1)) +
                               " refers to a missing row of " + s.text(2));
    }
    {
        Statement s(c, "SELECT ls.id, length(ls.labels), d.items FROM label_sets ls "
                       "JOIN datasets d ON d.id = ls.dataset_id WHERE length(ls.labels) <> 4 * d.items");
        while (s.step())
            problems.push_back("label set " + std::to_string(s.integer(0)) + " stores " +
                               std::to_string(s.integer(1) / 4) + " labels for " + std::to_string(s.integer(2)) +
                               " items");
    }
    {
        // Undone edits must be the tail of each history: no live edit after an undone one.
        Statement s(c, "SELECT a.label_set_id, a.id FROM edits a WHERE a.undone = 1 AND EXISTS "
                       "(SELECT 1 FROM edits b WHERE b.label_set_id = a.label_set_id AND b.id > a.id "
                       "AND b.undone = 0)");
        while (s.step())
            problems.push_back("label set " + std::to_string(s.integer(0)) + ": undone edit " +
                               std::to_string(s.integer(1)) + " is followed by a live edit");
    }
    {
        Statement s(c, "SELECT e.id, e.changes, (SELECT count(*) FROM edit_changes WHERE edit_id = e.id) AS n "
                       "FROM edits e WHERE n <> e.changes");
        while (s.step())
            problems.push_back("edit " + std::to_string(s.integer(0)) + " records " + std::to_string(s.integer(1)) +
                               " changes but stores " + std::to_string(s.integer(2)));
    }
    {
        // Every label set's class ids and labels (what labels() refuses), and every edit's items
        // and labels (what undo and redo would write).
        std::vector<std::int64_t> ids;
        {
            Statement s(c, "SELECT id FROM label_sets ORDER BY id");
            while (s.step())
                ids.push_back(s.integer(0));
        }
        for (const std::int64_t id : ids) {
            const std::optional<LabelSetInfo> info = labelSetInfo(c, id);
            if (!info)
                continue; // a missing dataset: foreign_key_check reports it
            if (const std::string why = classIdProblem(c, id); !why.empty())
                problems.push_back(describeLabelSet(c, id) + ": " + why);
            Statement s(c, "SELECT labels FROM label_sets WHERE id = ?1");
            s.bindInt(1, id);
            if (!s.step())
                continue;
            const std::string bytes = s.blob(0);
            std::int64_t bad = 0;
            for (std::size_t i = 0; i + 4 <= bytes.size(); i += 4) {
                const std::int32_t label = decodeLabel(reinterpret_cast<const unsigned char*>(bytes.data()) + i);
                if (!labelInRange(label, info->classes) && bad++ == 0)
                    problems.push_back(describeLabelSet(c, id) + ": " +
                                       labelRangeProblem(static_cast<std::int64_t>(i / 4), label, info->classes));
            }
            if (bad > 1)
                problems.push_back(describeLabelSet(c, id) + ": " + std::to_string(bad) +
                                   " items in all have labels outside its classes");
            Statement e(c, "SELECT ec.edit_id, ec.item, ec.old_label, ec.new_label FROM edit_changes ec "
                           "JOIN edits e ON e.id = ec.edit_id WHERE e.label_set_id = ?1 AND "
                           "(ec.item >= ?2 OR ec.old_label >= ?3 OR ec.new_label >= ?3 OR ec.old_label < -1 OR "
                           "ec.new_label < -1) ORDER BY ec.edit_id, ec.item LIMIT 10");
            e.bindInt(1, id).bindInt(2, info->items).bindInt(3, info->classes);
            while (e.step())
                problems.push_back("edit " + std::to_string(e.integer(0)) + " of " + describeLabelSet(c, id) +
                                   " changes item " + std::to_string(e.integer(1)) + " from " +
                                   std::to_string(e.integer(2)) + " to " + std::to_string(e.integer(3)) + ", outside its " +
                                   std::to_string(info->items) + " items or " + std::to_string(info->classes) +
                                   " classes");
        }
    }
    tx.commit();
    return problems;
}

// --- datasets ------------------------------------------------------------------------------

std::int64_t ProjectStore::addDataset(const std::string& name, const std::string& path,
                                      const std::string& contentHash, std::int64_t items)
{
    Connection& c = *m_impl;
    Operation op(c, "cannot add dataset '" + name + "'");
    if (items < 0)
        c.fail("negative item count " + std::to_string(items));
    Transaction tx(c, Transaction::Mode::Write);
    {
        Statement s(c, "SELECT id FROM datasets WHERE path = ?1 AND content_hash = ?2");
        s.bindText(1, path).bindText(2, contentHash);
        if (s.step())
            return s.integer(0); // nothing written: the guard's rollback only ends the transaction
    }
    Statement(c, "INSERT INTO datasets (name, path, content_hash, items) VALUES (?1, ?2, ?3, ?4)")
        .bindText(1, name)
        .bindText(2, path)
        .bindText(3, contentHash)
        .bindInt(4, items)
        .run();
    const std::int64_t id = sqlite3_last_insert_rowid(c.db);
    tx.commit();
    return id;
}

std::vector<DatasetRecord> ProjectStore::datasets() const
{
    Connection& c = *m_impl;
    Operation op(c, "cannot list datasets");
    Statement s(c, (std::string(kDatasetColumns) + "ORDER BY id").c_str());
    std::vector<DatasetRecord> out;
    while (s.step())
        out.push_back(datasetFrom(s));
    return out;
}

std::optional<DatasetRecord> ProjectStore::dataset(std::int64_t id) const
{
    Connection& c = *m_impl;
    Operation op(c, "cannot read dataset " + std::to_string(id));
    Statement s(c, (std::string(kDatasetColumns) + "WHERE id = ?1").c_str());
    s.bindInt(1, id);
    if (!s.step())
        return std::nullopt;
    return datasetFrom(s);
}

std::optional<DatasetRecord> ProjectStore::findDataset(const std::string& path, const std::string& contentHash) const
{
    Connection& c = *m_impl;
    Operation op(c, "cannot look up dataset " + path);
    Statement s(c, (std::string(kDatasetColumns) + "WHERE path = ?1 AND content_hash = ?2").c_str());
    s.bindText(1, path).bindText(2, contentHash);
    if (!s.step())
        return std::nullopt;
    return datasetFrom(s);
}

// --- label sets --------------------------------------------------------------------------

std::int64_t ProjectStore::createLabelSet(std::int64_t datasetId, const std::string& name,
                                          const std::vector<std::string>& classNames,
                                          const std::vector<std::int32_t>& initialLabels)
{
    Connection& c = *m_impl;
    Operation op(c, "cannot create label set '" + name + "'");
    if (name.empty())
        c.fail("a label set needs a name");
    for (std::size_t i = 0; i < classNames.size(); ++i) {
        checkClassName(c, classNames[i]);
        for (std::size_t j = 0; j < i; ++j)
            if (classNames[j] == classNames[i])
                c.fail("class name '" + classNames[i] + "' appears twice (classes " + std::to_string(j) + " and " +
                       std::to_string(i) + ")");
    }
    const auto numClasses = static_cast<std::int64_t>(classNames.size());
    for (std::size_t i = 0; i < initialLabels.size(); ++i)
        if (initialLabels[i] < -1 || initialLabels[i] >= numClasses)
            c.fail("item " + std::to_string(i) + " has label " + std::to_string(initialLabels[i]) +
                   ", expected -1 or a class id in [0, " + std::to_string(numClasses) + ")");
    if (initialLabels.size() > static_cast<std::size_t>(INT_MAX / 4))
        c.fail("too many items for one label set (" + std::to_string(initialLabels.size()) + ")");

    Transaction tx(c, Transaction::Mode::Write);
    std::int64_t items = 0;
    {
        Statement s(c, "SELECT items FROM datasets WHERE id = ?1");
        s.bindInt(1, datasetId);
        if (!s.step())
            c.fail("no dataset with id " + std::to_string(datasetId));
        items = s.integer(0);
    }
    if (static_cast<std::int64_t>(initialLabels.size()) != items)
        c.fail(std::to_string(initialLabels.size()) + " initial labels for a dataset of " + std::to_string(items) +
               " items");
    {
        Statement s(c, "SELECT 1 FROM label_sets WHERE dataset_id = ?1 AND name = ?2");
        s.bindInt(1, datasetId).bindText(2, name);
        if (s.step())
            c.fail("the dataset already has a label set of that name");
    }
    Statement(c, "INSERT INTO label_sets (dataset_id, name, labels) VALUES (?1, ?2, ?3)")
        .bindInt(1, datasetId)
        .bindText(2, name)
        .bindBlob(3, encodeLabels(initialLabels))
        .run();
    const std::int64_t id = sqlite3_last_insert_rowid(c.db);
    Statement ins(c, "INSERT INTO label_classes (label_set_id, class_id, name) VALUES (?1, ?2, ?3)");
    for (std::size_t k = 0; k < classNames.size(); ++k) {
        ins.bindInt(1, id).bindInt(2, static_cast<std::int64_t>(k)).bindText(3, classNames[k]);
        ins.run();
        ins.reset();
    }
    tx.commit();
    return id;
}

std::vector<LabelSetRecord> ProjectStore::labelSets(std::int64_t datasetId) const
{
    Connection& c = *m_impl;
    Operation op(c, "cannot list label sets");
    Transaction tx(c, Transaction::Mode::Read);
    auto out = queryLabelSets(c, "SELECT id, dataset_id, name FROM label_sets WHERE dataset_id = ?1 ORDER BY id",
                              datasetId, nullptr);
    tx.commit();
    return out;
}

std::optional<LabelSetRecord> ProjectStore::labelSet(std::int64_t labelSetId) const
{
    Connection& c = *m_impl;
    Operation op(c, "cannot read label set " + std::to_string(labelSetId));
    Transaction tx(c, Transaction::Mode::Read);
    auto out = queryLabelSets(c, "SELECT id, dataset_id, name FROM label_sets WHERE id = ?1", labelSetId, nullptr);
    tx.commit();
    if (out.empty())
        return std::nullopt;
    return out.front();
}

std::optional<LabelSetRecord> ProjectStore::findLabelSet(std::int64_t datasetId, const std::string& name) const
{
    Connection& c = *m_impl;
    Operation op(c, "cannot look up label set '" + name + "'");
    Transaction tx(c, Transaction::Mode::Read);
    auto out = queryLabelSets(c, "SELECT id, dataset_id, name FROM label_sets WHERE dataset_id = ?1 AND name = ?2",
                              datasetId, &name);
    tx.commit();
    if (out.empty())
        return std::nullopt;
    return out.front();
}

std::vector<std::int32_t> ProjectStore::labels(std::int64_t labelSetId) const
{
    Connection& c = *m_impl;
    Operation op(c, "cannot read the labels of label set " + std::to_string(labelSetId));
    Transaction tx(c, Transaction::Mode::Read);
    const LabelSetInfo info = requireLabelSet(c, labelSetId);
    Statement s(c, "SELECT labels FROM label_sets WHERE id = ?1");
    s.bindInt(1, labelSetId);
    if (!s.step())
        c.fail("no label set with id " + std::to_string(labelSetId));
    const std::string bytes = s.blob(0);
    if (static_cast<std::int64_t>(bytes.size()) != info.items * 4)
        c.fail("the project file is damaged: " + std::to_string(bytes.size() / 4) + " labels stored for " +
               std::to_string(info.items) + " items");
    // A file from elsewhere may hold any integer here, and every reader indexes the class names
    // with it (the map's hover card and search, the substructure report): refused as a whole,
    // the first bad item named, before anyone uses it.
    if (const std::string why = classIdProblem(c, labelSetId); !why.empty())
        c.fail("the project file is damaged: " + describeLabelSet(c, labelSetId) + ": " + why);
    std::vector<std::int32_t> out(static_cast<std::size_t>(info.items));
    for (std::size_t i = 0; i < out.size(); ++i) {
        out[i] = decodeLabel(reinterpret_cast<const unsigned char*>(bytes.data()) + 4 * i);
        if (!labelInRange(out[i], info.classes))
            c.fail("the project file is damaged: " + describeLabelSet(c, labelSetId) + ": " +
                   labelRangeProblem(static_cast<std::int64_t>(i), out[i], info.classes));
    }
    return out;
}

std::int32_t ProjectStore::addClass(std::int64_t labelSetId, const std::string& className)
{
    Connection& c = *m_impl;
    Operation op(c, "cannot add class '" + className + "'");
    checkClassName(c, className);
    Transaction tx(c, Transaction::Mode::Write);
    const LabelSetInfo info = requireLabelSet(c, labelSetId);
    {
        Statement s(c, "SELECT class_id FROM label_classes WHERE label_set_id = ?1 AND name = ?2");
        s.bindInt(1, labelSetId).bindText(2, className);
        if (s.step())
            c.fail("label set " + std::to_string(labelSetId) + " already has this class (id " +
                   std::to_string(s.integer(0)) + ")");
    }
    if (info.classes >= std::numeric_limits<std::int32_t>::max())
        c.fail("too many classes");
    Statement(c, "INSERT INTO label_classes (label_set_id, class_id, name) VALUES (?1, ?2, ?3)")
        .bindInt(1, labelSetId)
        .bindInt(2, info.classes)
        .bindText(3, className)
        .run();
    tx.commit();
    return static_cast<std::int32_t>(info.classes);
}

std::int64_t ProjectStore::applyEdit(std::int64_t labelSetId, const std::vector<LabelChange>& changes,
                                     const std::string& description)
{
    Connection& c = *m_impl;
    Operation op(c, "cannot apply edit '" + description + "' to label set " + std::to_string(labelSetId));
    if (changes.empty())
        c.fail("an edit needs at least one change");
    Transaction tx(c, Transaction::Mode::Write);
    const LabelSetInfo info = requireLabelSet(c, labelSetId);

    // Validate everything before the first write.
    std::vector<std::int64_t> items;
    items.reserve(changes.size());
    for (const LabelChange& ch : changes) {
        if (ch.item < 0 || ch.item >= info.items)
            c.fail("item " + std::to_string(ch.item) + " is out of range [0, " + std::to_string(info.items) + ")");
        if (ch.label < -1 || ch.label >= info.classes)
            c.fail("item " + std::to_string(ch.item) + ": label " + std::to_string(ch.label) +
                   " is neither -1 nor a class id in [0, " + std::to_string(info.classes) + ")");
        items.push_back(ch.item);
    }
    std::sort(items.begin(), items.end());
    if (auto dup = std::adjacent_find(items.begin(), items.end()); dup != items.end())
        c.fail("item " + std::to_string(*dup) + " appears more than once");

    // A new edit forgets the redo stack.
    Statement(c, "DELETE FROM edit_changes WHERE edit_id IN "
                 "(SELECT id FROM edits WHERE label_set_id = ?1 AND undone = 1)")
        .bindInt(1, labelSetId)
        .run();
    Statement(c, "DELETE FROM edits WHERE label_set_id = ?1 AND undone = 1").bindInt(1, labelSetId).run();

    Statement(c, "INSERT INTO edits (label_set_id, description, changes) VALUES (?1, ?2, ?3)")
        .bindInt(1, labelSetId)
        .bindText(2, description)
        .bindInt(3, static_cast<std::int64_t>(changes.size()))
        .run();
    const std::int64_t editId = sqlite3_last_insert_rowid(c.db);
    {
        LabelBlob blob(c, labelSetId, info.items);
        Statement ins(c, "INSERT INTO edit_changes (edit_id, item, old_label, new_label) VALUES (?1, ?2, ?3, ?4)");
        for (const LabelChange& ch : changes) {
            const std::int32_t old = blob.get(ch.item);
            blob.set(ch.item, ch.label);
            ins.bindInt(1, editId).bindInt(2, ch.item).bindInt(3, old).bindInt(4, ch.label);
            ins.run();
            ins.reset();
        }
    } // the blob handle must be closed before COMMIT
    tx.commit();
    return editId;
}

namespace {

/// Undo (forward = false: latest live edit, writes old labels) or redo (forward = true:
/// earliest undone edit, writes new labels). Checks that each item holds the label the edit
/// left (undo) or found (redo), so a history that does not match the labels is reported
/// instead of silently producing wrong labels.
bool replayEdit(Connection& c, std::int64_t labelSetId, bool forward)
{
    Transaction tx(c, Transaction::Mode::Write);
    const LabelSetInfo info = requireLabelSet(c, labelSetId);
    std::int64_t editId = 0;
    {
        Statement s(c, forward ? "SELECT min(id) FROM edits WHERE label_set_id = ?1 AND undone = 1"
                               : "SELECT max(id) FROM edits WHERE label_set_id = ?1 AND undone = 0");
        s.bindInt(1, labelSetId);
        if (!s.step() || s.isNull(0))
            return false;
        editId = s.integer(0);
    }
    {
        LabelBlob blob(c, labelSetId, info.items);
        Statement s(c, "SELECT item, old_label, new_label FROM edit_changes WHERE edit_id = ?1");
        s.bindInt(1, editId);
        while (s.step()) {
            const std::int64_t item = s.integer(0);
            const auto oldLabel = static_cast<std::int32_t>(s.integer(1));
            const auto newLabel = static_cast<std::int32_t>(s.integer(2));
            if (item < 0 || item >= info.items)
                c.fail("the project file is damaged: edit " + std::to_string(editId) + " names item " +
                       std::to_string(item) + " of " + std::to_string(info.items));
            // Undo writes the old labels, redo the new ones: both must be labels of this set.
            for (const std::int64_t label : {s.integer(1), s.integer(2)})
                if (!labelInRange(label, info.classes))
                    c.fail("the project file is damaged: edit " + std::to_string(editId) + " of " +
                           describeLabelSet(c, labelSetId) + ": " + labelRangeProblem(item, label, info.classes));
            const std::int32_t expected = forward ? oldLabel : newLabel;
            const std::int32_t current = blob.get(item);
            if (current != expected)
                c.fail("the project file is damaged: item " + std::to_string(item) + " has label " +
                       std::to_string(current) + " but edit " + std::to_string(editId) + " expects " +
                       std::to_string(expected));
            blob.set(item, forward ? newLabel : oldLabel);
        }
    }
    Statement(c, "UPDATE edits SET undone = ?2 WHERE id = ?1").bindInt(1, editId).bindInt(2, forward ? 0 : 1).run();
    tx.commit();
    return true;
}

bool hasEdit(const Connection& c, std::int64_t labelSetId, int undone)
{
    Statement s(c, "SELECT 1 FROM edits WHERE label_set_id = ?1 AND undone = ?2 LIMIT 1");
    s.bindInt(1, labelSetId).bindInt(2, undone);
    return s.step();
}

} // namespace

bool ProjectStore::canUndo(std::int64_t labelSetId) const
{
    Connection& c = *m_impl;
    Operation op(c, "cannot read the history of label set " + std::to_string(labelSetId));
    return hasEdit(c, labelSetId, 0);
}

bool ProjectStore::canRedo(std::int64_t labelSetId) const
{
    Connection& c = *m_impl;
    Operation op(c, "cannot read the history of label set " + std::to_string(labelSetId));
    return hasEdit(c, labelSetId, 1);
}

bool ProjectStore::undo(std::int64_t labelSetId)
{
    Connection& c = *m_impl;
    Operation op(c, "cannot undo in label set " + std::to_string(labelSetId));
    return replayEdit(c, labelSetId, false);
}

bool ProjectStore::redo(std::int64_t labelSetId)
{
    Connection& c = *m_impl;
    Operation op(c, "cannot redo in label set " + std::to_string(labelSetId));
    return replayEdit(c, labelSetId, true);
}

void ProjectStore::setLabelMapping(std::int64_t labelSetId, const std::string& source, const std::string& mappingJson)
{
    Connection& c = *m_impl;
    Operation op(c, "cannot record the mapping of label set " + std::to_string(labelSetId));
    if (source.empty() || mappingJson.empty())
        c.fail("a mapping needs its source label set and its text");
    Transaction tx(c, Transaction::Mode::Write);
    requireLabelSet(c, labelSetId);
    Statement(c, "INSERT INTO label_mappings (label_set_id, source, mapping_json) VALUES (?1, ?2, ?3) "
                 "ON CONFLICT (label_set_id) DO UPDATE SET source = excluded.source, "
                 "mapping_json = excluded.mapping_json, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')")
        .bindInt(1, labelSetId)
        .bindText(2, source)
        .bindText(3, mappingJson)
        .run();
    tx.commit();
}

std::optional<LabelMappingRecord> ProjectStore::labelMapping(std::int64_t labelSetId) const
{
    Connection& c = *m_impl;
    Operation op(c, "cannot read the mapping of label set " + std::to_string(labelSetId));
    Statement s(c, "SELECT label_set_id, source, mapping_json, updated_at FROM label_mappings WHERE label_set_id = ?1");
    s.bindInt(1, labelSetId);
    if (!s.step())
        return std::nullopt;
    return LabelMappingRecord{s.integer(0), s.text(1), s.text(2), s.text(3)};
}

std::vector<EditRecord> ProjectStore::history(std::int64_t labelSetId) const
{
    Connection& c = *m_impl;
    Operation op(c, "cannot read the history of label set " + std::to_string(labelSetId));
    Statement s(c, "SELECT id, label_set_id, description, changes, undone, created_at FROM edits "
                   "WHERE label_set_id = ?1 ORDER BY id");
    s.bindInt(1, labelSetId);
    std::vector<EditRecord> out;
    while (s.step())
        out.push_back({s.integer(0), s.integer(1), s.text(2), s.integer(3), s.integer(4) != 0, s.text(5)});
    return out;
}

std::vector<EditChangeRecord> ProjectStore::editChanges(std::int64_t editId) const
{
    Connection& c = *m_impl;
    Operation op(c, "cannot read edit " + std::to_string(editId));
    Statement s(c, "SELECT item, old_label, new_label FROM edit_changes WHERE edit_id = ?1 ORDER BY item");
    s.bindInt(1, editId);
    std::vector<EditChangeRecord> out;
    while (s.step())
        out.push_back({s.integer(0), static_cast<std::int32_t>(s.integer(1)), static_cast<std::int32_t>(s.integer(2))});
    return out;
}

// --- runs ----------------------------------------------------------------------------------

std::int64_t ProjectStore::createRun(std::int64_t datasetId, const std::string& configJson)
{
    Connection& c = *m_impl;
    Operation op(c, "cannot record a new run");
    if (!nlohmann::json::accept(configJson))
        c.fail("the run configuration is not valid JSON");
    Transaction tx(c, Transaction::Mode::Write);
    if (!datasetExists(c, datasetId))
        c.fail("no dataset with id " + std::to_string(datasetId));
    Statement(c, "INSERT INTO runs (dataset_id, config_json, status) VALUES (?1, ?2, 'running')")
        .bindInt(1, datasetId)
        .bindText(2, configJson)
        .run();
    const std::int64_t id = sqlite3_last_insert_rowid(c.db);
    tx.commit();
    return id;
}

void ProjectStore::finishRun(std::int64_t runId, const std::string& status, const std::string& note)
{
    Connection& c = *m_impl;
    Operation op(c, "cannot finish run " + std::to_string(runId));
    if (status != "finished" && status != "cancelled" && status != "failed")
        c.fail("status '" + status + "' is not one of finished, cancelled, failed");
    Transaction tx(c, Transaction::Mode::Write);
    {
        Statement s(c, "SELECT status FROM runs WHERE id = ?1");
        s.bindInt(1, runId);
        if (!s.step())
            c.fail("no run with id " + std::to_string(runId));
        if (const std::string current = s.text(0); current != "running")
            c.fail("the run is already " + current);
    }
    Statement(c, "UPDATE runs SET status = ?2, note = ?3, "
                 "finished_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE id = ?1")
        .bindInt(1, runId)
        .bindText(2, status)
        .bindText(3, note)
        .run();
    tx.commit();
}

std::vector<RunRecord> ProjectStore::runs() const
{
    Connection& c = *m_impl;
    Operation op(c, "cannot list runs");
    Statement s(c, (std::string(kRunColumns) + "ORDER BY id").c_str());
    std::vector<RunRecord> out;
    while (s.step())
        out.push_back(runFrom(s));
    return out;
}

std::optional<RunRecord> ProjectStore::run(std::int64_t id) const
{
    Connection& c = *m_impl;
    Operation op(c, "cannot read run " + std::to_string(id));
    Statement s(c, (std::string(kRunColumns) + "WHERE id = ?1").c_str());
    s.bindInt(1, id);
    if (!s.step())
        return std::nullopt;
    return runFrom(s);
}

void ProjectStore::addMetrics(std::int64_t runId, int epoch, std::int64_t step,
                              const std::vector<std::pair<std::string, double>>& values)
{
    Connection& c = *m_impl;
    Operation op(c, "cannot record metrics of run " + std::to_string(runId));
    if (values.empty())
        return;
    Transaction tx(c, Transaction::Mode::Write);
    {
        Statement s(c, "SELECT 1 FROM runs WHERE id = ?1");
        s.bindInt(1, runId);
        if (!s.step())
            c.fail("no run with id " + std::to_string(runId));
    }
    Statement ins(c, "INSERT INTO metrics (run_id, epoch, step, name, value) VALUES (?1, ?2, ?3, ?4, ?5)");
    for (const auto& [name, value] : values) {
        ins.bindInt(1, runId).bindInt(2, epoch).bindInt(3, step).bindText(4, name).bindReal(5, value);
        ins.run();
        ins.reset();
    }
    tx.commit();
}

std::vector<MetricRecord> ProjectStore::metrics(std::int64_t runId) const
{
    Connection& c = *m_impl;
    Operation op(c, "cannot read metrics of run " + std::to_string(runId));
    Statement s(c, "SELECT run_id, epoch, step, name, value FROM metrics WHERE run_id = ?1 ORDER BY id");
    s.bindInt(1, runId);
    std::vector<MetricRecord> out;
    while (s.step())
        out.push_back({s.integer(0), static_cast<int>(s.integer(1)), s.integer(2), s.text(3), s.real(4)});
    return out;
}

std::int64_t ProjectStore::addCheckpoint(std::int64_t runId, std::int64_t step, const std::string& path)
{
    Connection& c = *m_impl;
    Operation op(c, "cannot record checkpoint " + path);
    Transaction tx(c, Transaction::Mode::Write);
    {
        Statement s(c, "SELECT 1 FROM runs WHERE id = ?1");
        s.bindInt(1, runId);
        if (!s.step())
            c.fail("no run with id " + std::to_string(runId));
    }
    Statement(c, "INSERT INTO checkpoints (run_id, step, path) VALUES (?1, ?2, ?3)")
        .bindInt(1, runId)
        .bindInt(2, step)
        .bindText(3, path)
        .run();
    const std::int64_t id = sqlite3_last_insert_rowid(c.db);
    tx.commit();
    return id;
}

std::vector<CheckpointRecord> ProjectStore::checkpoints(std::int64_t runId) const
{
    Connection& c = *m_impl;
    Operation op(c, "cannot read checkpoints of run " + std::to_string(runId));
    Statement s(c, "SELECT id, run_id, step, path, created_at FROM checkpoints WHERE run_id = ?1 ORDER BY id");
    s.bindInt(1, runId);
    std::vector<CheckpointRecord> out;
    while (s.step())
        out.push_back({s.integer(0), s.integer(1), s.integer(2), s.text(3), s.text(4)});
    return out;
}

} // namespace setscope::project
