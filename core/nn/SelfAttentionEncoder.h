// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/Model.h>
#include <setscope/sdk/Registrar.h>

#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/transformercoder.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <vector>

namespace setscope::nn {

/// The self-attention set encoder of seed 001 §4.3 / §6.2.2 (seed 000 §IV-C):
///   f(x) = normalize( rho( sum over the real elements w of x of ENCODER(w) ) )
/// ENCODER is a stack of Transformer encoder layers (LibTorch's TransformerEncoderLayer:
/// post-norm, ReLU, like PyTorch's default) without positional encoding, so it is
/// equivariant to the order of the elements and the sum makes f invariant to it. rho is
/// FC -> ReLU -> FC -> ReLU -> FC(outputDim), and the output is L2-normalised.
///
/// Padding is masked: padded elements are excluded as attention keys
/// (src_key_padding_mask) and from the sum, so the output does not depend on how much
/// padding a batch has or what the padded slots hold (the public reference code pads with
/// zeros and masks nothing, so its output does). Element weights (SetBatch::weights) are
/// not used: for documents the word frequency is a feature of the element already.
///
/// A set with no real element (a row whose mask is all false) is the empty sum:
/// its output is normalize(rho(0)), the same for every empty row, finite. (Its attention
/// runs unmasked over the padding, whose result is then discarded, because a softmax over
/// keys that are all masked would be NaN.)
///
/// Input projection: the model width must be divisible by the heads. When the input
/// dimension D is not (GloVe 100 + frequency = 101 with 7 heads), a learned Linear(D, D')
/// with bias maps each element to D' = the next multiple of the heads (105) before the first
/// layer. When D is divisible, there is no projection and the model is the paper's exactly.
///
/// The layers start as copies of one initialised layer, as PyTorch's TransformerEncoder
/// (and so the reference code) does.
///
/// Options (schema(); EncoderSpec::options resolved against it):
///   layers  = "5"        Transformer encoder layers
///   heads   = "7"        attention heads
///   ff      = "1000"     feed-forward width of each layer
///   dropout = "0.1"      dropout of the layers (attention weights, residuals, feed-forward)
///   rho     = "512,256"  hidden widths of rho (ReLU after each); the last layer has outputDim
///   group-tokens = "2048"  how the Transformer runs a batch (not what it computes): rows
///                        sorted by length are cut into groups of at most this many padded
///                        slots, each padded only to its own longest set (a group holds at
///                        least one row); 0 = the whole batch at once. Each set's encoding
///                        depends on that set alone, so the output is the same either way
///                        (tested); grouping cuts the padding of mixed-size batches and keeps
///                        the activations small (below glibc's 32 MiB mmap limit, so memory
///                        is reused instead of mapped and zeroed for every tensor).
/// At 301-d input and the defaults: 4 840 565 parameters in the layers + 302 400 in rho
/// = 5 142 965 (the count is derived in tests/core/nn/tst_SelfAttentionEncoder.cpp).
class SelfAttentionEncoderImpl : public sdk::SetEncoder {
public:
    static constexpr const char* kName = "selfattn";
    static sdk::OptionSchema schema();
    explicit SelfAttentionEncoderImpl(const sdk::EncoderSpec& spec);

    /// batch.values B x S x D float32, batch.mask B x S bool (true on real elements), both on
    /// one device -> B x outputDim on that device, rows of unit norm.
    torch::Tensor forward(const sdk::SetBatch& batch) override;
    std::int64_t outputDim() const override { return m_outputDim; }
    /// Fresh weights for every Linear layer of rho (LibTorch's default initialisation), the
    /// rest unchanged: the "ρ re-initialised" of fine-tuning (seed 001 §5).
    bool resetHead() override;

    std::int64_t inputDim() const { return m_inputDim; }
    /// Width of the Transformer layers: inputDim, or the projection's output size.
    std::int64_t modelDim() const { return m_modelDim; }
    bool projects() const { return !m_project.is_empty(); }
    std::int64_t layers() const { return m_layers; }
    std::int64_t heads() const { return m_heads; }
    std::int64_t feedForward() const { return m_ff; }
    double dropout() const { return m_dropout; }
    const std::vector<std::int64_t>& rhoHidden() const { return m_rhoHidden; }
    std::int64_t groupTokens() const { return m_groupTokens; }

    static constexpr std::int64_t kDefaultGroupTokens = 2048;

private:
    /// Projection, Transformer and masked sum of rows whose real elements lie within the S slots.
    torch::Tensor poolRows(const torch::Tensor& values, const torch::Tensor& mask);
    /// poolRows over groups of rows of similar length (group-tokens), in the batch's row order.
    torch::Tensor poolGrouped(const torch::Tensor& values, const torch::Tensor& mask);

    torch::nn::Linear m_project{nullptr};
    torch::nn::TransformerEncoder m_encoder{nullptr};
    torch::nn::Sequential m_rho{nullptr};
    std::int64_t m_inputDim = 0;
    std::int64_t m_modelDim = 0;
    std::int64_t m_outputDim = 0;
    std::int64_t m_layers = 0;
    std::int64_t m_heads = 0;
    std::int64_t m_ff = 0;
    double m_dropout = 0.0;
    std::vector<std::int64_t> m_rhoHidden;
    std::int64_t m_groupTokens = kDefaultGroupTokens;
};
TORCH_MODULE(SelfAttentionEncoder);

/// The registry's entry "selfattn": name, one line of doc, SelfAttentionEncoderImpl::schema() and its factory.
sdk::EncoderInfo selfAttentionEncoderInfo();

} // namespace setscope::nn
