// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/train/Optimizers.h"

#include <setscope/sdk/Model.h>

#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/optim/sgd.h>

namespace setscope::train {

sdk::OptimizerInfo adamOptimizerInfo()
{
    using sdk::OptionSpec;
    return {"adam", "Adam (Kingma & Ba); the papers train with lr 1e-5, β 0.9/0.999, ε 1e-7 (--preset paper)",
            {OptionSpec::real("lr", 1e-3, 1e-12, 10, "learning rate (1e-3 suits runs of a few epochs; the papers use 1e-5 for 1 000)"),
             OptionSpec::real("beta1", 0.9, 0, 0.999999, "β1"), OptionSpec::real("beta2", 0.999, 0, 0.999999999, "β2"),
             OptionSpec::real("eps", 1e-7, 1e-16, 1, "ε (seed 000 §VI-A: 1e-7)"),
             OptionSpec::real("weight-decay", 0, 0, 10, "L2 penalty added to the gradient")},
            [](std::vector<torch::Tensor> params, const sdk::OptimizerSpec& s) -> std::unique_ptr<torch::optim::Optimizer> {
                const sdk::OptionValues& o = s.options;
                return std::make_unique<torch::optim::Adam>(
                    std::move(params), torch::optim::AdamOptions(o.real("lr"))
                                           .betas({o.real("beta1"), o.real("beta2")})
                                           .eps(o.real("eps"))
                                           .weight_decay(o.real("weight-decay")));
            }};
}

sdk::OptimizerInfo adamwOptimizerInfo()
{
    using sdk::OptionSpec;
    return {"adamw", "AdamW: Adam with decoupled weight decay (Loshchilov & Hutter)",
            {OptionSpec::real("lr", 1e-3, 1e-12, 10, "learning rate"), OptionSpec::real("beta1", 0.9, 0, 0.999999, "β1"),
             OptionSpec::real("beta2", 0.999, 0, 0.999999999, "β2"), OptionSpec::real("eps", 1e-8, 1e-16, 1, "ε"),
             OptionSpec::real("weight-decay", 0.01, 0, 10, "decoupled weight decay")},
            [](std::vector<torch::Tensor> params, const sdk::OptimizerSpec& s) -> std::unique_ptr<torch::optim::Optimizer> {
                const sdk::OptionValues& o = s.options;
                return std::make_unique<torch::optim::AdamW>(
                    std::move(params), torch::optim::AdamWOptions(o.real("lr"))
                                           .betas({o.real("beta1"), o.real("beta2")})
                                           .eps(o.real("eps"))
                                           .weight_decay(o.real("weight-decay")));
            }};
}

sdk::OptimizerInfo sgdOptimizerInfo()
{
    using sdk::OptionSpec;
    return {"sgd", "stochastic gradient descent with momentum",
            {OptionSpec::real("lr", 0.01, 1e-12, 10, "learning rate"), OptionSpec::real("momentum", 0.9, 0, 0.999999, "momentum"),
             OptionSpec::flag("nesterov", false, "Nesterov momentum"),
             OptionSpec::real("weight-decay", 0, 0, 10, "L2 penalty added to the gradient")},
            [](std::vector<torch::Tensor> params, const sdk::OptimizerSpec& s) -> std::unique_ptr<torch::optim::Optimizer> {
                const sdk::OptionValues& o = s.options;
                return std::make_unique<torch::optim::SGD>(std::move(params),
                                                           torch::optim::SGDOptions(o.real("lr"))
                                                               .momentum(o.real("momentum"))
                                                               .nesterov(o.flag("nesterov"))
                                                               .weight_decay(o.real("weight-decay")));
            }};
}

} // namespace setscope::train
