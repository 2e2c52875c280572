// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "Builtin.h"

#include "core/data/IdxLoader.h"
#include "core/data/KusnerMat.h"
#include "core/data/VectorLoaders.h"
#include "core/data/mesh/PointCloudLoader.h"
#include "core/data/graph/Sdf.h"
#include "core/data/graph/TuDataset.h"
#include "core/data/text/Documents.h"
#include "core/losses/ContrastiveLoss.h"
#include "core/losses/TripletLoss.h"
#include "core/nn/DeepSetsEncoder.h"
#include "core/nn/MlpEncoder.h"
#include "core/nn/SelfAttentionEncoder.h"
#include "core/util/Text.h"

#include <setscope/sdk/Model.h>

#include <filesystem>


namespace setscope::builtin {

void registerBuiltins(sdk::Registrar& r)
{
    r.addLoader({"idx", "IDX images and labels (MNIST / Fashion-MNIST layout, .gz or raw, or their folder)",
                 {".gz", ".idx3-ubyte", ""},
                 [](const std::string& p) { return data::looksLikeIdx(p); },
                 [](const std::string& p, sdk::DatasetSink& s) { data::loadIdx(p, s); }});
    r.addLoader({"npy", "NumPy .npy vectors (N x D) or sets (N x S x D), labels from a .csv beside it",
                 {".npy"},
                 [](const std::string& p) { return util::lowerExtension(p) == ".npy"; },
                 [](const std::string& p, sdk::DatasetSink& s) { data::loadNpy(p, s); }});
    r.addLoader({"csv", "CSV table of vectors with label / coarse / split columns",
                 {".csv"},
                 [](const std::string& p) { return util::lowerExtension(p) == ".csv"; },
                 [](const std::string& p, sdk::DatasetSink& s) { data::loadCsvVectors(p, s); }});
    r.addLoader({"mesh", "one mesh or point file (OFF, PLY, OBJ, STL, XYZ) as a point cloud of 1024 points in the unit sphere",
                 data::mesh::meshExtensions(),
                 [](const std::string& p) {
                     std::error_code ec;
                     return data::mesh::isMeshFile(p) && std::filesystem::is_regular_file(p, ec);
                 },
                 [](const std::string& p, sdk::DatasetSink& s) { data::mesh::loadMeshFile(p, s); }});
    r.addLoader({"pointcloud-folder",
                 "folder per category of meshes (ModelNet40 layout root/<category>/[train|test]/*.off) as point clouds",
                 {""},
                 [](const std::string& p) { return data::mesh::looksLikePointCloudFolder(p); },
                 [](const std::string& p, sdk::DatasetSink& s) { data::mesh::loadPointCloudFolder(p, s); }});

    r.addLoader({"tudataset",
                 "TUDataset graphs (folder or DS_A.txt): sets of node vectors (label one-hot, attributes, degree, "
                 "random-walk return probabilities), 10 stratified CV folds, fold 0 as test",
                 {".txt", ""},
                 [](const std::string& p) { return data::looksLikeTuDataset(p); },
                 [](const std::string& p, sdk::DatasetSink& s) { data::loadTuDataset(p, s); }});
    r.addLoader({"sdf", "MDL SD / V2000 molfile molecules: atoms as node vectors, bonds as edges (unlabelled by default)",
                 {".sdf", ".sd", ".mol"},
                 [](const std::string& p) { return data::looksLikeSdf(p); },
                 [](const std::string& p, sdk::DatasetSink& s) { data::loadSdf(p, s); }});

    // Documents: word vectors from $SETSCOPE_WORD_VECTORS ("file PATH", a path, or "train
    // fasttext"), else fastText skip-gram trained on the corpus itself (cached).
    r.addLoader({"corpus-tsv", "documents as sets of word vectors: corpus.tsv lines 'label<TAB>text[<TAB>split]'",
                 {".tsv"},
                 [](const std::string& p) { return util::lowerExtension(p) == ".tsv"; },
                 [](const std::string& p, sdk::DatasetSink& s) {
                     data::loadDocuments(p, data::DocumentSource::fromEnvironment(), {}, s, nullptr, nullptr);
                 }});
    r.addLoader({"corpus-folder", "documents as sets of word vectors: a folder root/<class>/[train|test/]*.txt",
                 {""},
                 [](const std::string& p) { return data::looksLikeCorpusFolder(p); },
                 [](const std::string& p, sdk::DatasetSink& s) {
                     data::loadDocuments(p, data::DocumentSource::fromEnvironment(), {}, s, nullptr, nullptr);
                 }});
    r.addLoader({"wmd-mat", "Kusner's WMD documents (.mat: X, BOW_X, Y, TR, TE, words; split 1), MATLAB v5/v7/v7.3",
                 {".mat"},
                 [](const std::string& p) { return data::looksLikeKusnerMat(p); },
                 [](const std::string& p, sdk::DatasetSink& s) { data::loadKusnerMat(p, s); }});

    r.addEncoder({"mlp", "fully connected d-128-128-64-64-out on the weighted mean of each set (seed 003 §4.3)",
                  [](const sdk::EncoderSpec& spec) -> std::shared_ptr<sdk::SetEncoder> {
                      return nn::MlpEncoder(spec).ptr();
                  }});
    r.addEncoder({"selfattn",
                  "self-attention set encoder: Transformer layers (no positional encoding, padding masked), sum over "
                  "the set, FC 512-256-out, L2-normalised (seed 001 §4.3; options layers=5 heads=7 ff=1000 "
                  "dropout=0.1 rho=512,256 group_tokens=2048)",
                  [](const sdk::EncoderSpec& spec) -> std::shared_ptr<sdk::SetEncoder> {
                      return nn::SelfAttentionEncoder(spec).ptr();
                  }});
    r.addEncoder({"deepsets",
                  "DeepSets: per-element MLP phi, sum over the set, MLP rho, L2-normalised (Zaheer et al.; options "
                  "phi=256,256 rho=256)",
                  [](const sdk::EncoderSpec& spec) -> std::shared_ptr<sdk::SetEncoder> {
                      return nn::DeepSetsEncoder(spec).ptr();
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
}

} // namespace setscope::builtin
