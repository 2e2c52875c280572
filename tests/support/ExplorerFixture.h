// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// What the explorer views' tests share: a session with the built-in plugins, the window's
// selection, a small word corpus read through the real loaders, and a quick training run
// whose snapshot gives the views a model.

#include "core/builtins/Builtins.h"
#include "core/data/Dataset.h"
#include "core/data/Synthetic.h"
#include "core/plugin/Registry.h"
#include "core/train/TrainingJob.h"
#include "gui/session/SelectionModel.h"
#include "gui/session/Session.h"

#include <QSignalSpy>
#include <QString>

#include <filesystem>
#include <fstream>
#include <memory>
#include <random>

namespace setscope::testutil {

/// A corpus of `perTopic` documents in each of four topics (corpus.tsv: label, words, split;
/// one in four documents is test) over a 3-d word-vector file in which each topic's eight
/// words sit around their own centre. Returns the dataset spec "corpus.tsv?vectors=vec.txt".
inline QString writeTopicCorpus(const QString& dir, int perTopic = 12, std::uint64_t seed = 3)
{
    namespace fs = std::filesystem;
    fs::create_directories(dir.toStdString());
    const char* topics[4] = {"sport", "food", "music", "travel"};
    const char* words[4][8] = {{"olympic", "olympics", "match", "goal", "coach", "league", "score", "team"},
                               {"bowl", "tea", "bread", "soup", "rice", "cheese", "salad", "spice"},
                               {"guitar", "piano", "song", "choir", "drum", "violin", "opera", "melody"},
                               {"train", "flight", "hotel", "beach", "map", "ticket", "harbour", "visa"}};
    const float centres[4][3] = {{4, 0, 0}, {0, 4, 0}, {0, 0, 4}, {3, 3, 3}};
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> jitter(0.0f, 0.6f);
    std::ofstream vec(fs::path(dir.toStdString()) / "vec.txt");
    for (int t = 0; t < 4; ++t)
        for (const char* w : words[t])
            vec << w << ' ' << centres[t][0] + jitter(rng) << ' ' << centres[t][1] + jitter(rng) << ' '
                << centres[t][2] + jitter(rng) << '\n';
    std::ofstream corpus(fs::path(dir.toStdString()) / "corpus.tsv");
    std::uniform_int_distribution<int> pick(0, 7), len(3, 6);
    for (int d = 0; d < perTopic; ++d)
        for (int t = 0; t < 4; ++t) {
            corpus << topics[t] << '\t';
            const int n = len(rng);
            for (int k = 0; k < n; ++k)
                corpus << (k ? " " : "") << words[t][pick(rng)];
            corpus << '\t' << (d % 4 == 0 ? "test" : "train") << '\n';
        }
    return dir + "/corpus.tsv?vectors=" + dir + "/vec.txt";
}

struct ExplorerFixture {
    plugin::Registry registry;
    std::unique_ptr<gui::Session> session;
    std::unique_ptr<gui::SelectionModel> selection;

    ExplorerFixture()
    {
        builtins::registerBuiltins(registry);
        session = std::make_unique<gui::Session>(registry);
        layout::LayoutJob::Options pca; // a quick map: the views do not depend on t-SNE
        pca.method = layout::LayoutMethod::Pca;
        session->setLayoutOptions(pca);
        selection = std::make_unique<gui::SelectionModel>();
        QObject::connect(session.get(), &gui::Session::datasetChanged, selection.get(), [this] { selection->reset(); });
    }

    /// Opens `spec` through the session (the loaders, on a worker thread); false on failure.
    bool open(const QString& spec)
    {
        QSignalSpy changed(session.get(), &gui::Session::datasetChanged);
        session->load(spec);
        return changed.wait(60000) && session->dataset() != nullptr;
    }
    void open(std::shared_ptr<const data::Dataset> ds) { session->setDataset(std::move(ds), QStringLiteral("mem")); }

    /// A short run of `config` (a few epochs, snapshots on): true once it finished with a model.
    bool train(train::TrainerConfig config = quickConfig())
    {
        QSignalSpy finished(session.get(), &gui::Session::trainingFinished);
        if (!session->startTraining(config))
            return false;
        return finished.wait(120000) && session->currentModel() != nullptr;
    }

    static train::TrainerConfig quickConfig()
    {
        train::TrainerConfig c;
        c.device = "cpu";
        c.epochs = 2;
        c.snapshotEvery = 2;
        c.evaluateEachEpoch = false;
        c.embeddingDim = 8;
        c.threads = 1;
        c.samplerOptions = {{"classes", "4"}, {"per-class", "4"}};
        return c;
    }
};

} // namespace setscope::testutil
