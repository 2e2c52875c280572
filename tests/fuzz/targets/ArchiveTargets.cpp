// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Fuzz target of the checkpoint archive check alone (see FuzzTargets.h), without LibTorch, so
// that the fuzzer runs it thousands of times faster than the checkpoint target: from memory
// and from a file, with CRCs unchecked (a fuzzer cannot fix them up) and checked.
#include "tests/fuzz/targets/FuzzTargets.h"

#include "core/train/ArchiveCheck.h"

#include <setscope/sdk/Errors.h>

#include <stdexcept>
#include <string_view>

namespace setscope::fuzz {

void torchArchive(const std::uint8_t* data, std::size_t size)
{
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    bool accepted = false;
    try {
        train::checkTorchArchive(bytes, "fuzz input", {.verifyCrc = false});
        accepted = true;
    } catch (const sdk::InputError&) {
    }
    // The file reader must agree with the memory reader.
    const TempFile f(data, size, ".pt");
    bool acceptedFromFile = false;
    try {
        train::checkTorchArchiveFile(f.path(), {.verifyCrc = false});
        acceptedFromFile = true;
    } catch (const sdk::InputError&) {
    }
    if (accepted != acceptedFromFile)
        throw std::logic_error("the archive check from memory and from a file disagree");
    try {
        train::checkTorchArchive(bytes, "fuzz input");
    } catch (const sdk::InputError&) {
    }
}

} // namespace setscope::fuzz
