// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/Model.h>
#include <setscope/sdk/Registrar.h>

#include <string>

namespace setscope::losses {

/// The self-supervised EMD triplet losses of seed 000 §IV / seed 001 §4.1-4.2:
///   SSET  (seed 000 Eq. 1):      L = 1/n̂ Σ [ d(a,p) - d(a,n) + α ]_+
///   WSSET (seed 000 Eq. 2-3 = seed 001 Eq. 4-5): the negative term weighted by w(a,n)
///   with the augmented view (seed 001 Eq. 7, option augmented-term):
///         L = 1/(2n̂) Σ ( [d(a,p) - w d(a,n) + α]_+ + [d(a,a') - w' d(a,n') + α]_+ )
/// d is the squared Euclidean distance between embeddings. Every set of the batch is an
/// anchor a; its positive p is the other set with the smallest EMD (ties: lowest index); its
/// negative n is the semi-hard one among the sets other than a and p. n̂ counts the anchors
/// that kept their positive (see positive-percentile).
///
/// Two forms (option `form`; docs/LOSSES.md "WSSET: the printed form and the authors' code"):
///   paper   as printed: w = exp(-EMD(a,n) / (2 (cσ)²)), σ the population standard deviation of
///           the batch's EMDs over the pairs i < j, c = 7; the semi-hard negative is chosen on
///           the plain distances d; every positive kept.
///   authors as the public WSSET code (vistec-AI/WSSET loss.py, run.sh) runs it:
///           w = exp(-EMD(a,n)² / (2 (cσ_a)²)), σ_a the population standard deviation of the
///           anchor's own row of batch EMDs (its zero self-distance included), c = 12; the
///           semi-hard negative is chosen on the weighted distances w·d, the positive's distance
///           weighted too (w(a,p) d(a,p)); an anchor keeps its positive only when EMD(a,p) lies
///           strictly below the 20th percentile of the batch's B x B EMD matrix (diagonal
///           included, nearest-rank as tfp.stats.percentile).
/// Each part is also its own option, which overrides the form's choice for it: exponent
/// (emd | emd-squared), sigma (batch | row), c (0 = the form's), negatives (plain | weighted),
/// positive-percentile (-1 = the form's) and percentile-of (pairs | matrix). In both forms
/// the loss term is [d(a,p) - w(a,n) d(a,n) + α]_+: the weight enters the loss only on the
/// negative.
///
/// When a σ is 0 or not finite (every pair at the same EMD, or B < 2) the weights of the
/// anchors it serves are 1: the loss falls back to SSET for them instead of dividing by zero.
///
/// positive-percentile q: an anchor keeps its positive only when EMD(a,p) < P_q, strictly
/// below the q-th percentile of the batch's EMDs: over the pairs i < j with linear
/// interpolation between order statistics (NumPy's default; percentile-of = pairs), or over
/// all B² entries with the nearest rank, ties of the rank to even (percentile-of = matrix).
/// q = 100 keeps every positive (no filter); q = 0 keeps none.
///
/// Augmented term (seed 001 Eq. 7): the positive is the anchor's own augmented view a'
/// (LossContext::augmented); its negative n' is semi-hard relative to d(a,a') among the batch
/// originals other than a and p(a), the same candidates as the first term (augmented views
/// are never negatives), and w' = w(a,n'). With weighted negatives the view's own weight is 1
/// (its EMD to the anchor is not computed; a view stands for the anchor itself).
///
/// Batches with B < 3 (no set left for a negative) or with no anchor that kept its positive
/// give a zero loss that keeps the graph, terms = 0.
class SelfSupervisedTripletLoss final : public sdk::MetricLoss {
public:
    static constexpr double kDefaultMargin = 0.1; ///< α, seed 000 §VI-A
    static constexpr double kPaperC = 7.0;        ///< c, seed 000 §VI-A
    static constexpr double kAuthorsC = 12.0;     ///< c of the public WSSET code (inverse_gaussian)
    static constexpr double kAuthorsPercentile = 20.0; ///< run.sh --treshold 20

    /// weighted, form, margin, c, exponent, sigma, negatives, positive-percentile,
    /// percentile-of, augmented-term. `defaultForm` is the default of `form`.
    static sdk::OptionSchema schema(const std::string& defaultForm = "paper");

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
        /// float64 B: the σ each anchor's weights use (all `sigma` with sigma = batch, the
        /// row's with sigma = row; defined also when not weighted).
        torch::Tensor anchorSigma;
        double threshold = 0;          ///< P_q of positive-percentile (+inf when q = 100)
    };
    /// Throws like forward().
    Triplets mine(const sdk::LossContext& context) const;

    bool weighted() const { return m_weighted; }
    double margin() const { return m_margin; }
    /// The resolved parts (the form's choice unless the option says otherwise).
    double c() const { return m_c; }
    bool squaredExponent() const { return m_squaredExponent; }
    bool rowSigma() const { return m_rowSigma; }
    bool weightedNegatives() const { return m_weightedNegatives; }
    double positivePercentile() const { return m_positivePercentile; }
    bool percentileOfMatrix() const { return m_percentileOfMatrix; }
    bool augmentedTerm() const { return m_augmentedTerm; }
    const std::string& form() const { return m_form; }

private:
    /// mine() on squared embedding distances d2 (B x B) already computed by the caller.
    Triplets mineOn(const torch::Tensor& d2, const sdk::LossContext& context) const;

    bool m_weighted;
    std::string m_form;
    double m_margin;
    double m_c;
    bool m_squaredExponent;
    bool m_rowSigma;
    bool m_weightedNegatives;
    double m_positivePercentile;
    bool m_percentileOfMatrix;
    bool m_augmentedTerm;
};

/// The registry's entries "wsset" (seed 000 Eq. 2-3, the weighted loss) and "sset" (seed 000
/// Eq. 1: the same loss with weighted=false by default).
sdk::LossInfo wssetLossInfo();
sdk::LossInfo ssetLossInfo();

} // namespace setscope::losses
