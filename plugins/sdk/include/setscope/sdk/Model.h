// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

// Model, loss and optimizer interfaces. This header needs the LibTorch headers; loader-only
// plugins do not include it.

#include <setscope/sdk/Options.h>
#include <setscope/sdk/Sets.h>
#include <setscope/sdk/TorchVersion.h>

#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>
#include <torch/types.h>
#include <torch/version.h>

// A model plugin passes tensors and modules across the plugin boundary, so it must be built
// against the LibTorch setscope was built with (the host also refuses it at load time by
// the version in its info block, which comes from TorchVersion.h).
static_assert(TORCH_VERSION_MAJOR == SETSCOPE_SDK_TORCH_VERSION_MAJOR &&
                  TORCH_VERSION_MINOR == SETSCOPE_SDK_TORCH_VERSION_MINOR &&
                  TORCH_VERSION_PATCH == SETSCOPE_SDK_TORCH_VERSION_PATCH,
              "these LibTorch headers are not the version this setscope SDK was built with "
              "(SETSCOPE_SDK_TORCH_VERSION in <setscope/sdk/TorchVersion.h>)");

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace setscope::sdk {

/// A padded mini-batch of sets, all tensors on one device.
/// values: B x S x D float32; weights: B x S float32 (0 on padding); mask: B x S bool
/// (true on real elements). S is the largest set size in the batch.
struct SetBatch {
    torch::Tensor values;
    torch::Tensor weights;
    torch::Tensor mask;
};

/// What an encoder is built from: input dimension D, output dimension and its options,
/// resolved against the encoder's schema (EncoderInfo::options) by the host.
struct EncoderSpec {
    std::int64_t inputDim = 0;
    std::int64_t outputDim = 64;
    OptionValues options;
};

/// A set encoder f: set -> R^outputDim. Implementations derive from this and are
/// torch::nn::Modules (so parameters, to(device), save/load work as usual).
class SetEncoder : public torch::nn::Module {
public:
    /// Returns B x outputDim on the batch's device.
    virtual torch::Tensor forward(const SetBatch& batch) = 0;
    virtual std::int64_t outputDim() const = 0;
    /// Re-initialises the head (ρ, the layers after pooling) with fresh random weights and
    /// keeps the rest: what fine-tuning after self-supervised pre-training does (seed 001
    /// §5, "Ours+Int."). Draws from LibTorch's default generator. Returns false when the
    /// encoder has no separate head (then nothing changes).
    virtual bool resetHead() { return false; }
};

/// What a loss reads from the batch besides the embeddings; the pipeline computes only
/// what is asked for.
struct LossNeeds {
    bool labels = false;        ///< supervised: uses LossContext::labels
    bool transport = false;     ///< uses LossContext::emd / transport (EMD pseudo-labels)
    bool augmentedView = false; ///< uses LossContext::augmented (needs an augmentation in the run)
    /// Uses LossContext::keys: a momentum key encoder's embeddings (MoCo). The trainer keeps a
    /// key encoder θ_k (the run's encoder built again from the same registry entry and spec,
    /// its parameters and buffers copied from the query encoder θ_q when the stage starts,
    /// never given to the optimizer, saved in checkpoints) and after each optimizer step sets
    /// θ_k <- m θ_k + (1 - m) θ_q for the parameters (buffers copied), m = keyMomentum. With
    /// keyMomentum = 0 the key encoder would equal the query encoder, so the trainer builds
    /// none and the keys are the query encoder's embeddings, detached.
    bool momentumKeys = false;
    double keyMomentum = 0.999; ///< m in [0, 1], read when momentumKeys
};

/// Everything a loss may use for one mini-batch of B sets. Tensors are on the embeddings'
/// device. Fields a loss did not ask for (LossNeeds) may be undefined.
struct LossContext {
    torch::Tensor embeddings; ///< B x E, differentiable
    torch::Tensor labels;     ///< B int64, -1 for unlabelled rows (always defined)
    torch::Tensor items;      ///< B int64: the dataset index of each set (always defined)
    torch::Tensor emd;        ///< B x B float32: exact EMD between the batch's (original) sets
    torch::Tensor augmented;  ///< B x E, differentiable: the embedding of each set's augmented view
    /// B x E, no gradient (LossNeeds::momentumKeys): the key encoder's embedding of each set's
    /// augmented view, or of the set itself when the run has no augmentation.
    torch::Tensor keys;
    const SetBatch* sets = nullptr;        ///< the collated batch
    BatchTransport* transport = nullptr;   ///< flows between the batch's sets, on demand
};

/// Result of a loss on one mini-batch.
struct LossOutput {
    torch::Tensor loss;               ///< scalar, differentiable
    std::int64_t terms = 0;           ///< pairs, triplets or rows that entered the mean
    std::int64_t activeTerms = 0;     ///< of those, how many had a non-zero loss
};

/// What a loss is built from.
struct LossSpec {
    OptionValues options;         ///< resolved against the loss's schema (LossInfo::options)
    std::int64_t embeddingDim = 0;
    std::int64_t numClasses = 0;  ///< classes of the supervising label set (0 when the run has none)
    std::int64_t datasetSize = 0; ///< items in the dataset (instance-level losses such as Exemplar)
};

/// A metric-learning loss. It is a torch::nn::Module: parameters it registers (a classifier,
/// a temperature, ...) are trained with the encoder's, moved to the run's device and saved
/// in checkpoints.
class MetricLoss : public torch::nn::Module {
public:
    /// Depends on the options only (not on LossSpec's sizes): the host may ask an instance
    /// built with the smallest sizes.
    virtual LossNeeds needs() const = 0;
    virtual LossOutput forward(const LossContext& context) = 0;
    /// Parameters of this loss that the trainer's optimizer must leave alone: the loss updates
    /// them itself in afterBackward() (seed 004's metric L, stepped on the Stiefel manifold).
    /// They are still moved to the run's device and saved in checkpoints. Default: none.
    virtual std::vector<torch::Tensor> selfUpdatedParameters() { return {}; }
    /// Called by the trainer once per step, after backward() and before the optimizer steps,
    /// with the step's learning rate (schedule applied). Updates selfUpdatedParameters() from
    /// their gradients. Default: nothing.
    virtual void afterBackward(double /*learningRate*/) {}
    /// The learned metric's projection, when the loss learns one on top of the encoder: a
    /// d x l matrix P (d = the encoder's output width) such that the loss's distance is
    /// ‖Pᵀ(a - b)‖ (seed 004's L, δ²_L(a, b) = (a - b)ᵀ L Lᵀ (a - b)). The trainer then scores,
    /// snapshots and publishes z P (l wide) instead of z, and saves P with the checkpoint so
    /// that every later use of the model (eval, export, maps, retrieval) embeds by the same
    /// metric. Undefined (default): the encoder's output is the embedding.
    virtual torch::Tensor embeddingProjection() const { return {}; }
};

/// What an optimizer is built from.
struct OptimizerSpec {
    OptionValues options; ///< resolved against the optimizer's schema
    /// The learning rate the options give (every optimizer declares "lr"); the trainer's
    /// schedule scales it per step.
    double learningRate = 0.0;
};

} // namespace setscope::sdk
