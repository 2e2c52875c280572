// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// The check a LibTorch archive (a checkpoint, or weights carried inside one) passes before
// LibTorch's own reader sees a byte of it (docs/RELIABILITY.md, "Untrusted files";
// docs/ARCHITECTURE.md, "Checkpoints from elsewhere").
//
// LibTorch's reader (torch::jit::load under torch::serialize::InputArchive) parses the
// TorchScript class definitions an archive carries and unpickles its data with little
// checking of its own: the checkpoint fuzz target crashed it (SIGSEGV in
// torch::jit::ScriptTypeParser) with one damaged class definition. So only what
// torch::serialize::OutputArchive writes is let through, and every structure of it is
// checked here, without LibTorch:
//   - the zip (libzip, every local header against the central directory): one top folder,
//     only the records OutputArchive writes, no duplicates, stored or deflated only, tensor
//     data stored, every CRC-32 checked, the whole within the memory budget;
//   - code/*.py: class definitions that declare attributes only (a line grammar, no
//     methods, no statements), every referenced class present, no cycle among them;
//   - data.pkl, constants.pkl, *.debug_pkl: a pickle machine that runs every opcode on a
//     typed stack: only the opcodes and globals LibTorch's pickler writes (the archive's own
//     classes, OrderedDict, tensor rebuild, storages, typed lists), every memo and mark
//     reference present, no value filled after it was put inside another (so no cycles),
//     nesting at most 1000 deep, every object built once with exactly its class's
//     attributes, each of the declared type, and every tensor inside its storage record.
// What the check itself costs is bounded whatever the file (util::InputBudget, docs/
// RELIABILITY.md "Budgets"): every record's bytes, every value a pickle makes (at most
// kMaxValues per archive, each charged to the memory budget) and every step of the walk
// (opcodes, type checks: a value shared by memo references is checked once per declared type,
// and the steps in all are limited) are charged as the check goes, so a small deflated
// archive cannot make it allocate gigabytes or run for hours.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace setscope::train {

struct ArchiveCheckOptions {
    /// Compare each record's CRC-32 with the zip's. Off only for the checkpoint fuzz target,
    /// so that mutated inputs reach the checks behind it (a fuzzer cannot fix up CRCs).
    bool verifyCrc = true;
    /// Called now and then while the check runs (every util::InputBudget::kPollEvery steps);
    /// may throw to stop it, e.g. a job's JobControl::checkpoint() on cancel.
    std::function<void()> poll{};
};

/// The most values (pickle stack pushes, memo entries, declared attributes) one archive may make:
/// far above what LibTorch writes for a setscope checkpoint (11 290 for the self-attention
/// encoder with its Adam state), far below what would strain memory (each is charged to the
/// memory budget too).
constexpr std::uint64_t kMaxArchiveValues = std::uint64_t{1} << 18;

/// Checks the archive file at `path`. Throws sdk::InputError(path, record, why) naming the
/// record (e.g. "archive/data.pkl, byte offset 1395") and what is wrong with it; returns
/// normally when LibTorch may read the file.
void checkTorchArchiveFile(const std::string& path, const ArchiveCheckOptions& options = {});

/// The same for an archive held in memory; `file` is the name errors give (the file it came
/// from).
void checkTorchArchive(std::string_view bytes, const std::string& file, const ArchiveCheckOptions& options = {});

} // namespace setscope::train
