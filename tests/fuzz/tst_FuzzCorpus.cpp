// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
//
// Replays every fuzz target over its seed corpus (tests/fuzz/corpus/TARGET) and the inputs
// that once crashed it (tests/fuzz/regressions/TARGET): each input must be accepted or
// refused with sdk::InputError, never anything else, in every normal build.
#include "tests/fuzz/targets/FuzzTargets.h"

#include <QtTest>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Target {
    const char* name;
    std::function<void(const std::uint8_t*, std::size_t)> run;
};

const std::vector<Target>& targets()
{
    namespace f = setscope::fuzz;
    // The same names as tests/fuzz/run.sh's targets (their seed and regression folders).
    static const std::vector<Target> t{
        {"mat_claims", f::matClaims},         {"idx", f::idx},
        {"npy", f::npy},                      {"csv", f::csv},
        {"corpus_tsv", f::corpusTsv},         {"word_vectors", f::wordVectors},
        {"tudataset", f::tuDataset},          {"sdf", f::sdf},
        {"mesh_off", f::meshOff},             {"mesh_ply", f::meshPly},
        {"mesh_obj", f::meshObj},             {"mesh_stl", f::meshStl},
        {"mesh_xyz", f::meshXyz},             {"pairwise_cache", f::pairwiseCache},
        {"plugin_info", f::pluginInfo},       {"fetch_lists", f::fetchLists},
        {"fetch_archives", f::fetchArchives}, {"project_file", f::projectFile},
        {"checkpoint", f::checkpoint},        {"torch_archive", f::torchArchive},
        {"pack", f::pack}};
    return t;
}

} // namespace

class TestFuzzCorpus : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyFuzzerIsReplayed();
    void replay_data();
    void replay();
};

// run.sh's default list (`all="..."`) and targets() name the same targets: a fuzzer whose
// corpus nobody replays, or a replayed corpus no fuzzer grows, is a mistake.
void TestFuzzCorpus::everyFuzzerIsReplayed()
{
    std::ifstream in(std::string(SETSCOPE_FUZZ_DIR) + "/run.sh");
    QVERIFY(in);
    const std::string script{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    const auto begin = script.find("\nall=\"");
    QVERIFY(begin != std::string::npos);
    const auto end = script.find('"', begin + 6);
    QVERIFY(end != std::string::npos);
    std::istringstream words(script.substr(begin + 6, end - begin - 6));
    std::set<std::string> fuzzed{std::istream_iterator<std::string>(words), std::istream_iterator<std::string>()};
    std::set<std::string> replayed;
    for (const Target& t : targets())
        replayed.insert(t.name);
    QCOMPARE(fuzzed.size(), std::size_t(21));
    QVERIFY(fuzzed == replayed);
}

void TestFuzzCorpus::replay_data()
{
    namespace fs = std::filesystem;
    QTest::addColumn<int>("target");
    QTest::addColumn<QString>("file");
    for (std::size_t t = 0; t < targets().size(); ++t) {
        int seeds = 0;
        for (const char* kind : {"corpus", "regressions"}) {
            const fs::path dir = fs::path(SETSCOPE_FUZZ_DIR) / kind / targets()[t].name;
            if (!fs::is_directory(dir))
                continue;
            std::vector<fs::path> files;
            for (const auto& e : fs::directory_iterator(dir))
                if (e.is_regular_file() && e.path().filename() != ".gitkeep")
                    files.push_back(e.path());
            std::sort(files.begin(), files.end());
            for (const fs::path& f : files) {
                QTest::newRow(qPrintable(QString("%1/%2/%3").arg(targets()[t].name, kind,
                                                                  QString::fromStdString(f.filename().string()))))
                    << static_cast<int>(t) << QString::fromStdString(f.string());
                seeds += std::string(kind) == "corpus";
            }
        }
        // A target without seeds would replay nothing and pass: that is a mistake.
        QVERIFY2(seeds > 0, targets()[t].name);
    }
}

void TestFuzzCorpus::replay()
{
    QFETCH(int, target);
    QFETCH(QString, file);
    std::ifstream in(file.toStdString(), std::ios::binary);
    QVERIFY(in);
    const std::vector<char> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    try {
        targets()[static_cast<std::size_t>(target)].run(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                                                        bytes.size());
    } catch (const std::exception& e) {
        QFAIL(qPrintable(QString("%1 threw %2").arg(file, e.what())));
    }
}

QTEST_GUILESS_MAIN(TestFuzzCorpus)
#include "tst_FuzzCorpus.moc"
