// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The built-in set encoders; each entry lives with its network in core/nn.
#include "core/builtins/Builtins.h"

#include "core/nn/CnnMnistEncoder.h"
#include "core/nn/CnnWeakEncoder.h"
#include "core/nn/DeepSetsEncoder.h"
#include "core/nn/MlpEncoder.h"
#include "core/nn/SelfAttentionEncoder.h"

namespace setscope::builtins {

void registerEncoders(sdk::Registrar& r)
{
    r.addEncoder(nn::mlpEncoderInfo());
    r.addEncoder(nn::selfAttentionEncoderInfo());
    r.addEncoder(nn::deepSetsEncoderInfo());
    r.addEncoder(nn::cnnMnistEncoderInfo());
    r.addEncoder(nn::cnnWeakEncoderInfo());
}

} // namespace setscope::builtins
