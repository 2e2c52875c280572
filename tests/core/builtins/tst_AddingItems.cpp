// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// docs/ARCHITECTURE.md, "Adding a loss / a view / a loader / a CLI command": an item of every
// registry kind -- a loader, an encoder, a loss, an augmentation, a sampler, an optimizer and a
// recipe -- written in this one file, each described by its entry (name, one line of doc,
// schema, factory) and registered with one line, the way core/builtins/ registers the
// built-ins. Then the catalogue opens a file through the toy loader and a training run uses
// every other toy item, with nothing else told about them: the counts below are what the
// pipeline called, and the run's kNN accuracy is checked against chance on separable data.
#include "core/builtins/Builtins.h"
#include "core/catalog/DatasetCatalog.h"
#include "core/plugin/Registry.h"
#include "core/train/TrainingJob.h"

#include <QtTest>

#include <setscope/sdk/Errors.h>
#include <setscope/sdk/Model.h>

#include <torch/torch.h>

#include <atomic>
#include <fstream>
#include <sstream>

using namespace setscope;

namespace {

struct Calls {
    std::atomic<int> loads{0}, encoders{0}, losses{0}, lossForwards{0}, augmentations{0}, augmented{0}, samplers{0},
        optimizers{0}, recipeStages{0};
};
Calls g_calls;

// A loader: "toy" files, one set per line: "LABEL SPLIT x1 y1 x2 y2 ..." (SPLIT train|test).
sdk::LoaderInfo toyLoader()
{
    return {"toy-sets", "one 2-d point set per line: label, split, then x y pairs (test item)", {".toysets"}, {},
            [](const std::string& p) { return p.ends_with(".toysets"); },
            [](const std::string& path, const sdk::OptionValues&, sdk::DatasetSink& sink, sdk::LoadContext&) {
                ++g_calls.loads;
                std::ifstream in(path);
                if (!in)
                    throw sdk::InputError(path, "", "cannot open");
                sink.setName("toy");
                sink.setDimension(2);
                sink.defineLabelSet("fine", {"a", "b", "c"});
                std::string line;
                while (std::getline(in, line)) {
                    std::istringstream f(line);
                    int label = 0;
                    std::string split;
                    f >> label >> split;
                    std::vector<float> xy;
                    for (float v = 0; f >> v;)
                        xy.push_back(v);
                    const std::vector<float> w(xy.size() / 2, 1.0f);
                    const std::size_t item = sink.addItem(xy.data(), w.data(), w.size(),
                                                          split == "test" ? sdk::Split::Test : sdk::Split::Train);
                    sink.setLabel("fine", item, label);
                }
            }};
}

// An encoder: a linear map of each set's weighted mean.
class ToyEncoder final : public sdk::SetEncoder {
public:
    explicit ToyEncoder(const sdk::EncoderSpec& s)
        : m_out(s.outputDim)
        , m_linear(register_module("linear", torch::nn::Linear(s.inputDim, s.outputDim)))
    {
    }
    torch::Tensor forward(const sdk::SetBatch& b) override
    {
        const torch::Tensor w = b.weights.unsqueeze(-1);
        return m_linear((b.values * w).sum(1) / w.sum(1).clamp_min(1e-12));
    }
    std::int64_t outputDim() const override { return m_out; }

private:
    std::int64_t m_out;
    torch::nn::Linear m_linear;
};
sdk::EncoderInfo toyEncoder()
{
    return {"toy-mean", "a linear map of the weighted mean (test item)", {},
            [](const sdk::EncoderSpec& s) -> std::shared_ptr<sdk::SetEncoder> {
                ++g_calls.encoders;
                return std::make_shared<ToyEncoder>(s);
            }};
}

// A loss: contrastive on labels (pull same-class pairs, push others beyond `margin`), plus the
// distance of each set to its augmented view.
class ToyLoss final : public sdk::MetricLoss {
public:
    explicit ToyLoss(double margin) : m_margin(margin) {}
    sdk::LossNeeds needs() const override { return {.labels = true, .augmentedView = true}; }
    sdk::LossOutput forward(const sdk::LossContext& c) override
    {
        ++g_calls.lossForwards;
        const torch::Tensor d = torch::cdist(c.embeddings, c.embeddings);
        const torch::Tensor same = c.labels.unsqueeze(0) == c.labels.unsqueeze(1);
        const torch::Tensor pull = torch::where(same, d.pow(2), torch::zeros_like(d));
        const torch::Tensor push = torch::where(same, torch::zeros_like(d), (m_margin - d).clamp_min(0).pow(2));
        const torch::Tensor view = (c.embeddings - c.augmented).pow(2).sum(1).mean();
        const std::int64_t b = c.embeddings.size(0);
        return {(pull + push).sum() / double(b * b) + view, b * b, b * b};
    }

private:
    double m_margin;
};
sdk::LossInfo toyLoss()
{
    return {"toy-contrastive", "contrastive on labels plus the augmented view's distance (test item)",
            {sdk::OptionSpec::real("margin", 2.0, 0, 100, "the margin")},
            [](const sdk::LossSpec& s) -> std::shared_ptr<sdk::MetricLoss> {
                ++g_calls.losses;
                return std::make_shared<ToyLoss>(s.options.real("margin"));
            }};
}

// An augmentation: every point moved by 0.01 times a seeded draw.
class ToyJitter final : public sdk::SetAugmentation {
public:
    bool needsTransport() const override { return false; }
    sdk::AugmentedSet augment(const sdk::AugmentationBatch& batch, std::int64_t index, std::uint64_t seed) override
    {
        ++g_calls.augmented;
        const sdk::SetRef& s = batch.sets[static_cast<std::size_t>(index)];
        sdk::AugmentedSet out;
        out.set.values.assign(s.values, s.values + s.count * s.dim);
        out.set.weights.assign(s.weights, s.weights + s.count);
        out.set.count = s.count;
        out.set.dim = s.dim;
        std::mt19937_64 rng(seed);
        std::normal_distribution<float> n(0.0f, 0.01f);
        for (float& v : out.set.values)
            v += n(rng);
        return out;
    }
};
sdk::AugmentationInfo toyAugmentation()
{
    return {"toy-jitter", "each coordinate plus N(0, 0.01²) (test item)", {},
            [](const sdk::AugmentationSpec&) -> std::unique_ptr<sdk::SetAugmentation> {
                ++g_calls.augmentations;
                return std::make_unique<ToyJitter>();
            }};
}

// A sampler: the pool in order, rotated by the epoch, cut into batches of `batch-size`.
class ToySampler final : public sdk::BatchSampler {
public:
    ToySampler(std::vector<std::int64_t> items, std::int64_t batch) : m_items(std::move(items)), m_batch(batch) {}
    std::int64_t batchesPerEpoch() const override { return std::int64_t(m_items.size()) / m_batch; }
    std::vector<std::vector<std::int64_t>> epochBatches(std::int64_t epoch) const override
    {
        std::vector<std::int64_t> order = m_items;
        std::rotate(order.begin(), order.begin() + (epoch * 7) % std::int64_t(order.size()), order.end());
        std::vector<std::vector<std::int64_t>> out;
        for (std::int64_t b = 0; b < batchesPerEpoch(); ++b)
            out.emplace_back(order.begin() + b * m_batch, order.begin() + (b + 1) * m_batch);
        return out;
    }
    std::string describe() const override { return "toy batches of " + std::to_string(m_batch); }

private:
    std::vector<std::int64_t> m_items;
    std::int64_t m_batch;
};
sdk::SamplerInfo toySampler()
{
    return {"toy-rotate", "the pool in order, rotated each epoch (test item)",
            {sdk::OptionSpec::integer("batch-size", 12, 2, 1000, "sets per batch")}, false,
            [](const sdk::SamplerSpec& s) -> std::unique_ptr<sdk::BatchSampler> {
                ++g_calls.samplers;
                return std::make_unique<ToySampler>(s.items, s.options.integer("batch-size"));
            }};
}

// An optimizer: plain SGD.
sdk::OptimizerInfo toyOptimizer()
{
    return {"toy-sgd", "SGD without momentum (test item)",
            {sdk::OptionSpec::real("lr", 0.05, 1e-9, 10, "learning rate")},
            [](std::vector<torch::Tensor> params, const sdk::OptimizerSpec& s) -> std::unique_ptr<torch::optim::Optimizer> {
                ++g_calls.optimizers;
                return std::make_unique<torch::optim::SGD>(std::move(params), torch::optim::SGDOptions(s.learningRate));
            }};
}

// A recipe: one supervised stage made of the toy loss, augmentation and sampler.
sdk::RecipeInfo toyRecipe()
{
    return {"toy-recipe", "the toy items as one supervised stage (test item)", {}, [](const sdk::OptionValues&) {
                ++g_calls.recipeStages;
                sdk::RecipeStage s;
                s.name = "toy";
                s.loss = "toy-contrastive";
                s.augmentation = "toy-jitter";
                s.sampler = "toy-rotate";
                s.labels = sdk::StageLabels::Training;
                return std::vector<sdk::RecipeStage>{s};
            }};
}

// Registration: one line per item, as in core/builtins/<Kind>.cpp.
void registerToyItems(sdk::Registrar& r)
{
    r.addLoader(toyLoader());
    r.addEncoder(toyEncoder());
    r.addLoss(toyLoss());
    r.addAugmentation(toyAugmentation());
    r.addSampler(toySampler());
    r.addOptimizer(toyOptimizer());
    r.addRecipe(toyRecipe());
}

struct QuietSink : train::TrainingSink {
    std::vector<train::EpochMetrics> epochs;
    void epochMetrics(const train::EpochMetrics& m) override { epochs.push_back(m); }
};

} // namespace

class TestAddingItems : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyKindFromOneFile();
};

void TestAddingItems::everyKindFromOneFile()
{
    plugin::Registry registry;
    builtins::registerBuiltins(registry);
    registerToyItems(registry);

    // Three classes of point sets around (0,0), (4,0) and (0,4); every fourth set is a test set.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath("three.toysets").toStdString();
    {
        std::ofstream out(path);
        std::mt19937_64 rng(7);
        std::normal_distribution<float> n(0.0f, 0.7f);
        const float centre[3][2] = {{0, 0}, {4, 0}, {0, 4}};
        for (int i = 0; i < 96; ++i) {
            const int label = i % 3;
            out << label << (i % 4 == 3 ? " test" : " train");
            for (int p = 0; p < 5; ++p)
                out << ' ' << centre[label][0] + n(rng) << ' ' << centre[label][1] + n(rng);
            out << '\n';
        }
    }
    auto ds = std::make_shared<const data::Dataset>(catalog::openDataset(path, registry));
    QCOMPARE(g_calls.loads.load(), 1);
    QCOMPARE(int(ds->size()), 96);

    train::TrainerConfig c;
    c.recipe = "toy-recipe";
    c.model = "toy-mean";
    c.optimizer = "toy-sgd";
    c.epochs = 6;
    c.embeddingDim = 4;
    c.snapshotEvery = 0;
    c.validationFraction = 0;
    c.device = "cpu";
    train::TrainingJob job(ds, c, registry);
    QuietSink sink;
    const job::JobStatus status = job.runHere(&sink);
    QVERIFY2(status == job::JobStatus::Finished, job.error().c_str());

    // 72 training sets in batches of 12: 6 steps per epoch, 36 in all.
    QCOMPARE(job.totalSteps(), std::int64_t(36));
    QVERIFY(g_calls.recipeStages >= 1);
    QVERIFY(g_calls.encoders >= 1);
    QVERIFY(g_calls.losses >= 1);
    QVERIFY(g_calls.samplers >= 1);
    QVERIFY(g_calls.augmentations >= 1);
    QVERIFY(g_calls.optimizers >= 1);
    QCOMPARE(g_calls.lossForwards.load(), 36);
    QCOMPARE(g_calls.augmented.load(), 36 * 12);
    // The test split's kNN accuracy: chance is 1/3, the classes are 4 standard deviations apart.
    QCOMPARE(int(sink.epochs.size()), 6);
    const double knn = sink.epochs.back().value("knn-accuracy").value_or(-1.0);
    QVERIFY2(knn > 0.9, qPrintable(QString::number(knn)));
    QVERIFY(sink.epochs.back().meanLoss < sink.epochs.front().meanLoss);
}

QTEST_GUILESS_MAIN(TestAddingItems)
#include "tst_AddingItems.moc"
