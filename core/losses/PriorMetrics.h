// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <Eigen/Dense>

#include <cstdint>
#include <vector>

/// The prior metrics of the APLLR and APIT baselines of seed 004 (Dutta and Sekhar 2018,
/// "Affinity Propagation Based Closed-Form Semi-supervised Metric Learning Framework", ICANN):
/// "first computes a prior metric using the labeled data. The APLLR method computes the prior
/// metric by optimizing a log-likelihood ratio, while the APIT method computes the prior
/// metric using an information-theoretic approach". The formulas below are the classical
/// methods those names refer to (KISSME for the log-likelihood ratio, ITML for the
/// information-theoretic one); docs/SSDML.md says which parts are our reading. Torch-free.
///
/// Input for both: x, n x d (row i = the embedding of labelled item i), and labels (n values
/// ≥ 0). Pairs are the unordered pairs i < j: similar when the labels agree, dissimilar
/// otherwise.
namespace setscope::losses {

/// KISSME (Köstinger et al., CVPR 2012), the log-likelihood ratio of a pair difference
/// v = x_i - x_j under zero-mean Gaussians for similar and dissimilar pairs:
///   Σ_S = (1/|S|) Σ_{similar} v vᵀ,  Σ_D = (1/|D|) Σ_{dissimilar} v vᵀ,
///   M0 = Π(Σ_S' ⁻¹ - Σ_D' ⁻¹),  Σ' = Σ + ridge · (tr Σ / d) · I
/// with Π the spectrum clipped from below at floor · λ_max (positive definite; KISSME clips at
/// 0, the floor keeps M0 invertible for the LogDet divergence). The ridge keeps the
/// covariances invertible when there are fewer pairs than dimensions ("the prior parametric
/// matrix is often close to singular", seed 004).
struct KissmeOptions {
    double ridge = 1e-3;
    double floor = 1e-3;
};

/// Throws std::invalid_argument for mismatched sizes, a negative label, no similar or no
/// dissimilar pair, ridge < 0 or floor not in (0, 1]; std::runtime_error when Σ_S'⁻¹ - Σ_D'⁻¹
/// has no positive eigenvalue.
Eigen::MatrixXd kissmePrior(const Eigen::MatrixXd& x, const std::vector<std::int32_t>& labels,
                            const KissmeOptions& options = {});

/// ITML (Davis et al., ICML 2007, Algorithm 1): the matrix closest to A0 = I in LogDet
/// divergence with δ²_A(x_i, x_j) ≤ u for similar pairs and ≥ l for dissimilar ones, up to
/// slack γ, by cyclic Bregman projections over the pairs (i < j, row-major order), `sweeps`
/// passes. One projection of constraint c with v = x_i - x_j, p = vᵀ A v, δ = +1 (similar) or
/// -1 (dissimilar), dual λ_c (0 at start) and target ξ_c (u or l at start):
///   α = min(λ_c, δ γ/(γ+1) (1/p - 1/ξ_c)),  β = δ α / (1 - δ α p),
///   ξ_c ← 1 / (1/ξ_c + δ α / γ),  λ_c ← λ_c - α,  A ← A + β A v vᵀ A.
/// (γ = ∞: γ/(γ+1) = 1 and ξ_c stays at its bound; then one projection of a violated constraint
/// lands exactly on it, p' = ξ_c.) A pair with p = 0 is skipped. u and l: the `lowerPercentile`
/// and `upperPercentile` of the squared Euclidean distances over all pairs (nearest rank,
/// index ⌊q (n_pairs - 1)⌋ of the sorted values), ITML's defaults 5 and 95; or the given values
/// when `upper` / `lower` are > 0. The result's spectrum is clipped from below at
/// floor · λ_max as for KISSME.
struct ItmlOptions {
    double gamma = 1.0;          ///< slack γ > 0; infinity: hard constraints
    int sweeps = 3;              ///< passes over all pairs
    double lowerPercentile = 5;  ///< the similar pairs' bound u
    double upperPercentile = 95; ///< the dissimilar pairs' bound l
    double upper = 0.0;          ///< u given explicitly when > 0
    double lower = 0.0;          ///< l given explicitly when > 0
    double floor = 1e-3;
};

/// Throws std::invalid_argument for mismatched sizes, a negative label, fewer than one pair,
/// γ ≤ 0, sweeps < 0 or floor not in (0, 1].
Eigen::MatrixXd itmlPrior(const Eigen::MatrixXd& x, const std::vector<std::int32_t>& labels,
                          const ItmlOptions& options = {});

/// The spectrum of sym(M) clipped from below at floor · λ_max (λ_max the largest eigenvalue).
/// Throws std::runtime_error when λ_max ≤ 0.
Eigen::MatrixXd clipSpectrum(const Eigen::MatrixXd& m, double floor);

} // namespace setscope::losses
