// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// connectGloo() of a build without c10d's Gloo backend (cmake/SetscopeDependencies.cmake,
// SETSCOPE_GLOO): every distributed run is refused with the reason, before any rank waits.
#include "core/dist/Gloo.h"

namespace setscope::dist {

std::shared_ptr<Communicator> connectGloo(const Rendezvous& r)
{
    throw PeerLost(r.describe() + ": this setscope was built without c10d's Gloo backend (" SETSCOPE_GLOO_WHY
                   "), so it cannot run distributed (--nproc, torchrun, srun); rebuild with -DSETSCOPE_GLOO=ON "
                   "against a LibTorch that has Gloo and its headers");
}

} // namespace setscope::dist
