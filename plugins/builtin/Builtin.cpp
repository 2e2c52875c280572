// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "Builtin.h"

#include "core/catalog/DatasetCatalog.h"
#include "core/data/DatasetPack.h"
#include "core/data/IdxLoader.h"
#include "core/data/KusnerMat.h"
#include "core/data/VectorLoaders.h"
#include "core/data/mesh/PointCloudLoader.h"
#include "core/data/graph/Sdf.h"
#include "core/data/graph/TuDataset.h"
#include "core/data/text/Documents.h"
#include "core/losses/ApproxEmdLoss.h"
#include "core/losses/ContrastiveLoss.h"
#include "core/losses/CosineTripletLoss.h"
#include "core/losses/CrossEntropyLoss.h"
#include "core/losses/ExemplarLoss.h"
#include "core/losses/LocalityContrastiveLoss.h"
#include "core/losses/MocoLoss.h"
#include "core/losses/NPairLoss.h"
#include "core/losses/NtXentLoss.h"
#include "core/losses/SelfSupervisedTripletLoss.h"
#include "core/losses/TripletLoss.h"
#include "core/losses/UniformityLoss.h"
#include "core/nn/CnnMnistEncoder.h"
#include "core/nn/CnnWeakEncoder.h"
#include "core/nn/DeepSetsEncoder.h"
#include "core/nn/MlpEncoder.h"
#include "core/nn/SelfAttentionEncoder.h"
#include "core/augment/Registered.h"
#include "core/semi/AngularLoss.h"
#include "core/semi/Baselines.h"
#include "core/train/Optimizers.h"
#include "core/train/Recipes.h"
#include "core/train/Samplers.h"
#include "core/train/PartitionSampler.h"
#include "core/train/SsdmlSampler.h"
#include "core/util/Text.h"

#include <setscope/sdk/Model.h>

#include <filesystem>


namespace setscope::builtin {

void registerBuiltins(sdk::Registrar& r)
{
    using sdk::DatasetSink;
    using sdk::LoadContext;
    using sdk::OptionValues;
    // First: a pack is recognised by its magic bytes, whatever its name.
    r.addLoader({"pack", "setscope dataset pack (setscope-cli export --format pack): sets, labels, splits, text, images, edges",
                 {data::kPackExtension},
                 {},
                 [](const std::string& p) { return data::looksLikeDatasetPack(p); },
                 [](const std::string& p, const OptionValues&, DatasetSink& s, LoadContext&) { data::loadDatasetPack(p, s); }});
    r.addLoader({"idx", "IDX images and labels (MNIST / Fashion-MNIST layout, .gz or raw, or their folder)",
                 {".gz", ".idx3-ubyte", ""},
                 {},
                 [](const std::string& p) { return data::looksLikeIdx(p); },
                 [](const std::string& p, const OptionValues&, DatasetSink& s, LoadContext&) { data::loadIdx(p, s); }});
    r.addLoader({"npy", "NumPy .npy vectors (N x D) or sets (N x S x D), labels from a .csv beside it",
                 {".npy"},
                 {},
                 [](const std::string& p) { return util::lowerExtension(p) == ".npy"; },
                 [](const std::string& p, const OptionValues&, DatasetSink& s, LoadContext&) { data::loadNpy(p, s); }});
    r.addLoader({"csv", "CSV table of vectors with label / coarse / split columns",
                 {".csv"},
                 {},
                 [](const std::string& p) { return util::lowerExtension(p) == ".csv"; },
                 [](const std::string& p, const OptionValues&, DatasetSink& s, LoadContext&) {
                     data::loadCsvVectors(p, s);
                 }});
    r.addLoader({"mesh", "one mesh or point file (OFF, PLY, OBJ, STL, XYZ) as a point cloud of 1024 points in the unit sphere",
                 data::mesh::meshExtensions(),
                 data::mesh::PointCloudOptions::fileSchema(),
                 [](const std::string& p) {
                     std::error_code ec;
                     return data::mesh::isMeshFile(p) && std::filesystem::is_regular_file(p, ec);
                 },
                 [](const std::string& p, const OptionValues& o, DatasetSink& s, LoadContext&) {
                     data::mesh::loadMeshFile(p, s, data::mesh::PointCloudOptions::fromValues(o));
                 }});
    r.addLoader({"pointcloud-folder",
                 "folder per category of meshes (ModelNet40 layout root/<category>/[train|test]/*.off) as point clouds",
                 {""},
                 data::mesh::PointCloudOptions::folderSchema(),
                 [](const std::string& p) { return data::mesh::looksLikePointCloudFolder(p); },
                 [](const std::string& p, const OptionValues& o, DatasetSink& s, LoadContext& c) {
                     data::mesh::loadPointCloudFolder(p, s, data::mesh::PointCloudOptions::fromValues(o), &c);
                 }});

    r.addLoader({"tudataset",
                 "TUDataset graphs (folder or DS_A.txt): sets of node vectors (label one-hot, attributes, degree, "
                 "random-walk return probabilities), 10 stratified CV folds, fold 0 as test",
                 {".txt", ""},
                 data::GraphOptions::schema(),
                 [](const std::string& p) { return data::looksLikeTuDataset(p); },
                 [](const std::string& p, const OptionValues& o, DatasetSink& s, LoadContext&) {
                     data::loadTuDataset(p, s, data::GraphOptions::fromValues(o));
                 }});
    r.addLoader({"sdf", "MDL SD / V2000 molfile molecules: atoms as node vectors, bonds as edges (unlabelled by default)",
                 {".sdf", ".sd", ".mol"},
                 data::GraphOptions::sdfSchema(),
                 [](const std::string& p) { return data::looksLikeSdf(p); },
                 [](const std::string& p, const OptionValues& o, DatasetSink& s, LoadContext&) {
                     data::loadSdf(p, s, data::GraphOptions::fromValues(o));
                 }});

    // Documents: word vectors from the option vectors= (glove-100d, train, a file), else
    // $SETSCOPE_WORD_VECTORS ("file PATH", a path, or "train fasttext"), else fastText
    // skip-gram trained on the corpus itself (cached).
    auto loadCorpus = [](const std::string& p, const OptionValues& o, DatasetSink& s, LoadContext& c) {
        const data::CorpusLoaderOptions co = data::CorpusLoaderOptions::fromValues(o);
        data::DocumentSource vectors = catalog::wordVectorSource(co.vectors);
        vectors.fastText = co.fastText;
        data::loadDocuments(p, vectors, co.documents, s, &c);
    };
    r.addLoader({"corpus-tsv", "documents as sets of word vectors: corpus.tsv lines 'label<TAB>text[<TAB>split]'",
                 {".tsv"},
                 data::CorpusLoaderOptions::schema(),
                 [](const std::string& p) { return util::lowerExtension(p) == ".tsv"; },
                 loadCorpus});
    r.addLoader({"corpus-folder", "documents as sets of word vectors: a folder root/<class>/[train|test/]*.txt",
                 {""},
                 data::CorpusLoaderOptions::schema(),
                 [](const std::string& p) { return data::looksLikeCorpusFolder(p); },
                 loadCorpus});
    r.addLoader({"wmd-mat", "Kusner's WMD documents (.mat: X, BOW_X, Y, TR, TE, words; split 1), MATLAB v5/v7/v7.3",
                 {".mat"},
                 data::KusnerMatOptions::schema(),
                 [](const std::string& p) { return data::looksLikeKusnerMat(p); },
                 [](const std::string& p, const OptionValues& o, DatasetSink& s, LoadContext&) {
                     data::loadKusnerMat(p, s, data::KusnerMatOptions::fromValues(o));
                 }});

    r.addEncoder({"mlp", "fully connected d-128-128-64-64-out on the weighted mean of each set (seed 003 §4.3)",
                  nn::MlpEncoderImpl::schema(),
                  [](const sdk::EncoderSpec& spec) -> std::shared_ptr<sdk::SetEncoder> {
                      return nn::MlpEncoder(spec).ptr();
                  }});
    r.addEncoder({"selfattn",
                  "self-attention set encoder: Transformer layers (no positional encoding, padding masked), sum over "
                  "the set, FC 512-256-out, L2-normalised (seed 001 §4.3)",
                  nn::SelfAttentionEncoderImpl::schema(),
                  [](const sdk::EncoderSpec& spec) -> std::shared_ptr<sdk::SetEncoder> {
                      return nn::SelfAttentionEncoder(spec).ptr();
                  }});
    r.addEncoder({"deepsets",
                  "DeepSets: per-element MLP phi, sum over the set, MLP rho, L2-normalised (Zaheer et al.)",
                  nn::DeepSetsEncoderImpl::schema(),
                  [](const sdk::EncoderSpec& spec) -> std::shared_ptr<sdk::SetEncoder> {
                      return nn::DeepSetsEncoder(spec).ptr();
                  }});
    r.addEncoder({"cnn-mnist",
                  "seed 004's MNIST network for 28 x 28 images: Conv(5x5, 20) - pool - Conv(5x5, 50) - pool - "
                  "Conv(4x4, 500) - ReLU - FC(500 -> out) - l2",
                  nn::CnnMnistEncoderImpl::schema(),
                  [](const sdk::EncoderSpec& spec) -> std::shared_ptr<sdk::SetEncoder> {
                      return nn::CnnMnistEncoder(spec).ptr();
                  }});
    r.addEncoder({"cnn-weak",
                  "seed 003's 6-layer CNN for images: 3 x [Conv(3x3, 16/32/64, padding 1) - BatchNorm - ReLU - pool 2] - "
                  "FC 576-128-64-out with ReLU between (28 x 28 -> 14 -> 7 -> 3)",
                  nn::CnnWeakEncoderImpl::schema(),
                  [](const sdk::EncoderSpec& spec) -> std::shared_ptr<sdk::SetEncoder> {
                      return nn::CnnWeakEncoder(spec).ptr();
                  }});

    r.addLoss({"triplet", "triplet loss with semi-hard negative mining (FaceNet; seed 000 Eq. 1)",
               {sdk::OptionSpec::real("margin", losses::TripletLoss::kDefaultMargin, 0, 1e6, "the margin α")},
               [](const sdk::LossSpec& s) -> std::shared_ptr<sdk::MetricLoss> {
                   return std::make_shared<losses::TripletLoss>(s.options.real("margin"));
               }});
    r.addLoss({"contrastive", "pairwise contrastive loss y d + (1-y) max(0, m - d) (seed 002)",
               {sdk::OptionSpec::real("margin", losses::ContrastiveLoss::kDefaultMargin, 1e-9, 1e6,
                                      "the margin m: dissimilar pairs closer than m are pushed apart")},
               [](const sdk::LossSpec& s) -> std::shared_ptr<sdk::MetricLoss> {
                   return std::make_shared<losses::ContrastiveLoss>(s.options.real("margin"));
               }});

    // The losses of the papers (seed 000, seed 001 §4 and §7.1).
    auto lossInfo = [](std::string name, std::string description, sdk::OptionSchema schema, auto make) {
        return sdk::LossInfo{std::move(name), std::move(description), std::move(schema),
                             [make](const sdk::LossSpec& s) -> std::shared_ptr<sdk::MetricLoss> { return make(s); }};
    };
    r.addLoss(lossInfo("wsset",
                       "WSSET: EMD-nearest positive, semi-hard negative weighted by w(a,n) (seed 000 Eq. 2-3, seed 001 "
                       "Eq. 4-5), as printed (form paper) or as the authors' code runs it (form authors); "
                       "augmented-term adds the PointSwap term of Eq. 7",
                       losses::SelfSupervisedTripletLoss::schema(),
                       [](const sdk::LossSpec& s) { return std::make_shared<losses::SelfSupervisedTripletLoss>(s); }));
    {
        // SSET is WSSET without the weights (seed 000 Eq. 1): the same loss, weighted=false by default.
        sdk::OptionSchema sset = losses::SelfSupervisedTripletLoss::schema();
        for (sdk::OptionSpec& o : sset)
            if (o.name == "weighted")
                o.defaultValue = "false";
        r.addLoss(lossInfo("sset", "SSET: the self-supervised EMD triplet loss without weights (seed 000 Eq. 1)", sset,
                           [](const sdk::LossSpec& s) { return std::make_shared<losses::SelfSupervisedTripletLoss>(s); }));
    }
    r.addLoss(lossInfo("approx-emd", "Approx.EMD: squared embedding distances regressed on the batch's EMDs (seed 001 §7.1)",
                       losses::ApproxEmdLoss::schema(),
                       [](const sdk::LossSpec& s) { return std::make_shared<losses::ApproxEmdLoss>(s); }));
    r.addLoss(lossInfo("nt-xent", "NT-Xent (SimCLR) between each set and its augmented view: Cont. of seed 001 §7.1",
                       losses::NtXentLoss::schema(),
                       [](const sdk::LossSpec& s) { return std::make_shared<losses::NtXentLoss>(s); }));
    r.addLoss(lossInfo("exemplar", "Exemplar: a classifier with one class per set, on the set and its augmented view",
                       losses::ExemplarLoss::schema(),
                       [](const sdk::LossSpec& s) { return std::make_shared<losses::ExemplarLoss>(s); }));
    r.addLoss(lossInfo("cross-entropy", "cross-entropy through a linear classifier on the embedding (the +CE rows)",
                       losses::CrossEntropyLoss::schema(),
                       [](const sdk::LossSpec& s) { return std::make_shared<losses::CrossEntropyLoss>(s); }));
    // Weak metric learning (seed 003 §3-4) and the background losses of seed 002.
    r.addLoss(lossInfo("uniformity",
                       "coarse-label cross-entropy over groups of C outputs + λ KL(batch-mean softmax ‖ uniform C) "
                       "(seed 003 §3.1; threshold / L2 penalties of §3.5)",
                       losses::UniformityLoss::schema(),
                       [](const sdk::LossSpec& s) { return std::make_shared<losses::UniformityLoss>(s); }));
    r.addLoss(lossInfo("locality-contrastive",
                       "contrastive on squared distances + α KL(P ‖ Q) of t-SNE-like input / embedding affinities "
                       "(seed 003 §4.2-4.3, Algorithm 2)",
                       losses::LocalityContrastiveLoss::schema(),
                       [](const sdk::LossSpec& s) { return std::make_shared<losses::LocalityContrastiveLoss>(s); }));
    r.addLoss(lossInfo("npair", "multi-class N-pair loss: other pairs' positives as negatives (seed 002, N Pair Loss)",
                       losses::NPairLoss::schema(),
                       [](const sdk::LossSpec& s) { return std::make_shared<losses::NPairLoss>(s); }));
    r.addLoss(lossInfo("cosine-triplet", "triplet loss on the cosine distance, margin M = 0.5 (seed 002, Video Processing)",
                       losses::CosineTripletLoss::schema(),
                       [](const sdk::LossSpec& s) { return std::make_shared<losses::CosineTripletLoss>(s); }));
    r.addLoss(lossInfo("moco",
                       "InfoNCE against a FIFO queue of K keys from a momentum key encoder (seed 002, MoCo; m = 0.999, "
                       "τ = 0.07)",
                       losses::MocoLoss::schema(),
                       [](const sdk::LossSpec& s) { return std::make_shared<losses::MocoLoss>(s); }));

    r.addLoss(lossInfo("ssdml-angular",
                       "SSDML: the angular loss of seed 004 Eq. 3 under the orthogonal metric L it owns, on mined triplets "
                       "(sampler ssdml-triplets; recipe ssdml)",
                       semi::AngularLoss::schema(),
                       [](const sdk::LossSpec& s) { return std::make_shared<semi::AngularLoss>(s); }));
    r.addLoss(lossInfo("seraph",
                       "Deep-SERAPH (seed 004 Eq. 1): entropy regularisation over labelled and unlabelled pairs under "
                       "the metric M ⪰ 0 it owns (sampler ssdml-partition; recipe seraph)",
                       semi::SeraphLoss::schema(),
                       [](const sdk::LossSpec& s) { return std::make_shared<semi::SeraphLoss>(s); }));
    r.addLoss(lossInfo("lrml",
                       "Deep-LRML (seed 004 Eq. 2): labelled pair distances + the Laplacian term of the batch's kNN "
                       "affinities, metric M ⪰ 0, log|M| ≥ 0 (sampler ssdml-partition; recipes lrml, isdml)",
                       semi::LrmlLoss::schema(),
                       [](const sdk::LossSpec& s) { return std::make_shared<semi::LrmlLoss>(s); }));
    r.addLoss(lossInfo("ap-prior",
                       "Deep-APLLR / Deep-APIT (seed 004; Dutta and Sekhar 2018): LogDet divergence to a prior metric "
                       "from the labelled rows + the Laplacian term of propagated affinities (recipes apllr, apit)",
                       semi::ApPriorLoss::schema(),
                       [](const sdk::LossSpec& s) { return std::make_shared<semi::ApPriorLoss>(s); }));

    r.addAugmentation({"pointswap", "PointSwap: elements swapped along the optimal flow to the EMD-nearest set of the batch (seed 001 Eq. 6; variants 1-3 of Table 11)",
                       augment::PointSwapAugmentation::schema(),
                       [](const sdk::AugmentationSpec& s) -> std::unique_ptr<sdk::SetAugmentation> {
                           return std::make_unique<augment::PointSwapAugmentation>(s.options);
                       }});
    r.addAugmentation({"pointdrop", "PointDrop: each element dropped with probability p (seed 001 §4.2)",
                       augment::PointDropAugmentation::schema(),
                       [](const sdk::AugmentationSpec& s) -> std::unique_ptr<sdk::SetAugmentation> {
                           return std::make_unique<augment::PointDropAugmentation>(s.options);
                       }});
    r.addAugmentation({"pointmixup", "PointMixup: interpolation along the optimal assignment to the EMD-nearest set, λ (seed 001 §7)",
                       augment::PointMixupAugmentation::schema(),
                       [](const sdk::AugmentationSpec& s) -> std::unique_ptr<sdk::SetAugmentation> {
                           return std::make_unique<augment::PointMixupAugmentation>(s.options);
                       }});
    r.addSampler(train::classBalancedSamplerInfo());
    r.addSampler(train::randomSamplerInfo());
    r.addSampler(train::sizeBucketedSamplerInfo());
    r.addSampler(train::ssdmlTripletSamplerInfo());
    r.addSampler(train::ssdmlPartitionSamplerInfo());
    for (sdk::OptimizerInfo& o : train::builtinOptimizers())
        r.addOptimizer(std::move(o));
    for (sdk::RecipeInfo& recipe : train::builtinRecipes())
        r.addRecipe(std::move(recipe));
}

} // namespace setscope::builtin
