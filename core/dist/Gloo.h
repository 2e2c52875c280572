// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/dist/Communicator.h"
#include "core/dist/Rendezvous.h"

#include <memory>

namespace setscope::dist {

/// Joins the run `r` describes: a c10d store (FileStore, or TCPStore served by rank 0 -- or by
/// torchrun's agent), then a c10d::ProcessGroupGloo over it. Blocks until every rank has joined
/// or r.timeout passes. The Gloo device: the interface GLOO_SOCKET_IFNAME names when set (as
/// PyTorch), loopback for a file store or a loopback MASTER_ADDR, else the address this
/// machine's hostname resolves to. Tensors go through host memory (a CUDA run copies its
/// gradients to the CPU for the all-reduce; NCCL is not used). Throws PeerLost when the
/// rendezvous fails, naming the store.
std::shared_ptr<Communicator> connectGloo(const Rendezvous& r);

} // namespace setscope::dist
