// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/Model.h>

namespace setscope::losses {

/// The self-supervised EMD triplet losses of seed 000 §IV / seed 001 §4.1-4.2:
///   SSET  (seed 000 Eq. 1):      L = 1/n̂ Σ [ d(a,p) - d(a,n) + α ]_+
///   WSSET (seed 000 Eq. 2-3 = seed 001 Eq. 4-5): the negative term weighted by
///         w = exp(-EMD(a,n) / (2 (cσ)²))
///   with the augmented view (seed 001 Eq. 7, option augmented-term):
///         L = 1/(2n̂) Σ ( [d(a,p) - w d(a,n) + α]_+ + [d(a,a') - w' d(a,n') + α]_+ )
/// d is the squared Euclidean distance between embeddings. Every set of the batch is an
/// anchor a; its positive p is the other set with the smallest EMD (ties: lowest index); its
/// negative n is the semi-hard one in the embedding (semiHardNegatives(d, d(a,p), ...)) among
/// the sets other than a and p. n̂ counts the anchors that kept their positive (see
/// positive-percentile).
///
/// σ is the population standard deviation (divide by the count) of the batch's EMDs over
/// the pairs i < j. When σ is 0 or not finite (every pair at the same EMD, or B < 2) the
/// weights are 1: the loss falls back to SSET for that batch instead of dividing by zero.
///
/// positive-percentile q (the public WSSET code's filter): an anchor keeps its positive only
/// when EMD(a,p) < P_q, strictly below the q-th percentile of the batch's EMDs over the pairs
/// i < j (linear interpolation between order statistics, NumPy's default). q = 100 keeps
/// every positive (no filter); q = 0 keeps none.
///
/// Augmented term (seed 001 Eq. 7): the positive is the anchor's own augmented view a'
/// (LossContext::augmented); its negative n' is semi-hard relative to d(a,a') among the batch
/// originals other than a and p(a), the same candidates as the first term (augmented views
/// are never negatives), and w' = exp(-EMD(a,n') / (2 (cσ)²)).
///
/// Batches with B < 3 (no set left for a negative) or with no anchor that kept its positive
/// give a zero loss that keeps the graph, terms = 0.
class SelfSupervisedTripletLoss final : public sdk::MetricLoss {
public:
    static constexpr double kDefaultMargin = 0.1; ///< α, seed 000 §VI-A
    static constexpr double kDefaultC = 7.0;      ///< c, seed 000 §VI-A

    /// weighted, margin, c, positive-percentile, augmented-term.
    static sdk::OptionSchema schema();

    /// `spec.options` resolved against schema(). Throws std::invalid_argument for a value out
    /// of range (also when the options were not resolved by the host).
    explicit SelfSupervisedTripletLoss(const sdk::LossSpec& spec);

    sdk::LossNeeds needs() const override { return {.transport = true, .augmentedView = m_augmentedTerm}; }

    /// Reads embeddings (B x E), emd (B x B) and, with augmented-term, augmented (B x E).
    /// Throws std::invalid_argument when emd or augmented is missing or of the wrong shape.
    sdk::LossOutput forward(const sdk::LossContext& context) override;

    /// The triplets forward() uses, for inspection (which pairs the EMD pseudo-labels make).
    /// All B-long, on the embeddings' device; rows of anchors without a valid positive hold -1
    /// (indices) and 0 (weights). The augmented fields are undefined without augmented-term.
    struct Triplets {
        torch::Tensor anchor;          ///< B bool: the anchor kept its positive and counts in n̂
        torch::Tensor positive;        ///< int64 p(a)
        torch::Tensor negative;        ///< int64 n(a)
        torch::Tensor weight;          ///< float32 w(a) (1 when not weighted)
        torch::Tensor augmentedNegative; ///< int64 n'(a)
        torch::Tensor augmentedWeight;   ///< float32 w'(a)
        double sigma = 0;              ///< σ of the batch's EMDs (population, pairs i < j)
    };
    /// Throws like forward().
    Triplets mine(const sdk::LossContext& context) const;

    bool weighted() const { return m_weighted; }
    double margin() const { return m_margin; }
    double c() const { return m_c; }
    double positivePercentile() const { return m_positivePercentile; }
    bool augmentedTerm() const { return m_augmentedTerm; }

private:
    /// mine() on squared embedding distances d2 (B x B) already computed by the caller.
    Triplets mineOn(const torch::Tensor& d2, const sdk::LossContext& context) const;

    bool m_weighted;
    double m_margin;
    double m_c;
    double m_positivePercentile;
    bool m_augmentedTerm;
};

} // namespace setscope::losses
