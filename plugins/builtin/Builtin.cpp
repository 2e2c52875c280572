// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "Builtin.h"

#include "core/data/IdxLoader.h"
#include "core/data/KusnerMat.h"
#include "core/data/VectorLoaders.h"
#include "core/losses/ContrastiveLoss.h"
#include "core/losses/TripletLoss.h"
#include "core/nn/MlpEncoder.h"
#include "core/util/Text.h"

#include <setscope/sdk/Model.h>


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
    r.addLoader({"wmd-mat", "Kusner's WMD documents (.mat: X, BOW_X, Y, TR, TE, words; split 1), MATLAB v5/v7/v7.3",
                 {".mat"},
                 [](const std::string& p) { return data::looksLikeKusnerMat(p); },
                 [](const std::string& p, sdk::DatasetSink& s) { data::loadKusnerMat(p, s); }});

    r.addEncoder({"mlp", "fully connected d-128-128-64-64-out on the weighted mean of each set (seed 003 §4.3)",
                  [](const sdk::EncoderSpec& spec) -> std::shared_ptr<sdk::SetEncoder> {
                      return nn::MlpEncoder(spec).ptr();
                  }});

    r.addLoss({"triplet", "triplet loss with semi-hard negative mining (FaceNet; seed 000 Eq. 1)",
               losses::TripletLoss::kDefaultMargin,
               [](const sdk::LossSpec& s) -> std::unique_ptr<sdk::MetricLoss> {
                   return std::make_unique<losses::TripletLoss>(s.margin >= 0 ? s.margin : losses::TripletLoss::kDefaultMargin);
               }});
    r.addLoss({"contrastive", "pairwise contrastive loss y d + (1-y) max(0, m - d) (seed 002)",
               losses::ContrastiveLoss::kDefaultMargin,
               [](const sdk::LossSpec& s) -> std::unique_ptr<sdk::MetricLoss> {
                   return std::make_unique<losses::ContrastiveLoss>(s.margin >= 0 ? s.margin
                                                                                  : losses::ContrastiveLoss::kDefaultMargin);
               }});
}

} // namespace setscope::builtin
