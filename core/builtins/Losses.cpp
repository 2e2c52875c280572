// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The built-in losses; each entry lives with its loss in core/losses (docs/LOSSES.md).
#include "core/builtins/Builtins.h"

#include "core/losses/AngularLoss.h"
#include "core/losses/ApPriorLoss.h"
#include "core/losses/ApproxEmdLoss.h"
#include "core/losses/ContrastiveLoss.h"
#include "core/losses/CosineTripletLoss.h"
#include "core/losses/CrossEntropyLoss.h"
#include "core/losses/ExemplarLoss.h"
#include "core/losses/LocalityContrastiveLoss.h"
#include "core/losses/LrmlLoss.h"
#include "core/losses/MocoLoss.h"
#include "core/losses/NPairLoss.h"
#include "core/losses/SelfSupervisedTripletLoss.h"
#include "core/losses/SeraphLoss.h"
#include "core/losses/TripletLoss.h"
#include "core/losses/UniformityLoss.h"

namespace setscope::losses {
// Losses without a header (nothing else uses their class): the entry is all the registry needs.
sdk::LossInfo ntXentLossInfo(); // NtXentLoss.cpp
} // namespace setscope::losses

namespace setscope::builtins {

void registerLosses(sdk::Registrar& r)
{
    r.addLoss(losses::tripletLossInfo());
    r.addLoss(losses::contrastiveLossInfo());
    // The papers' losses (seed 000, seed 001 §4 and §7.1).
    r.addLoss(losses::wssetLossInfo());
    r.addLoss(losses::ssetLossInfo());
    r.addLoss(losses::approxEmdLossInfo());
    r.addLoss(losses::ntXentLossInfo());
    r.addLoss(losses::exemplarLossInfo());
    r.addLoss(losses::crossEntropyLossInfo());
    // Weak metric learning (seed 003 §3-4) and the background losses of seed 002.
    r.addLoss(losses::uniformityLossInfo());
    r.addLoss(losses::localityContrastiveLossInfo());
    r.addLoss(losses::npairLossInfo());
    r.addLoss(losses::cosineTripletLossInfo());
    r.addLoss(losses::mocoLossInfo());
    // Semi-supervised metric learning (seed 004).
    r.addLoss(losses::angularLossInfo());
    r.addLoss(losses::seraphLossInfo());
    r.addLoss(losses::lrmlLossInfo());
    r.addLoss(losses::apPriorLossInfo());
}

} // namespace setscope::builtins
