// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The built-in batch samplers; each entry lives with its sampler in core/train.
#include "core/builtins/Builtins.h"

#include "core/train/PartitionSampler.h"
#include "core/train/Samplers.h"
#include "core/train/SsdmlSampler.h"

namespace setscope::builtins {

void registerSamplers(sdk::Registrar& r)
{
    r.addSampler(train::classBalancedSamplerInfo());
    r.addSampler(train::randomSamplerInfo());
    r.addSampler(train::sizeBucketedSamplerInfo());
    r.addSampler(train::ssdmlTripletSamplerInfo());
    r.addSampler(train::ssdmlPartitionSamplerInfo());
}

} // namespace setscope::builtins
