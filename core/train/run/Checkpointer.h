// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/train/run/CheckpointFile.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace setscope::train::run {

struct RunContext;
struct RunState;
struct StageRun;
class StageSchedule;

/// A run's checkpoints: the one it resumes or starts from (opened and checked before anything
/// is built), the ones it writes (step-N.pt every checkpoint_every steps or epoch, written to a
/// part file and renamed), and the best validation epoch of the last stage (best.pt, model
/// selection), which every checkpoint carries so that a resumed run keeps it.
class Checkpointer {
public:
    /// Opens and checks config.resumeFrom (or config.initFrom): a checkpoint that does not fit
    /// is refused with every difference named, not late in a Torch error.
    Checkpointer(const RunContext& ctx, const StageSchedule& stages, RunState& state);

    bool resuming() const { return m_resume.has_value(); }
    /// The allowed differences of the resumed configuration ("" for an exact continuation).
    const std::string& overridden() const { return m_overridden; }

    /// The encoder's starting weights (state.enc, built): a fine-tuning start's, or the resumed
    /// run's together with its step, epoch loss, history and best epoch.
    void loadStart();
    /// Whether stage `k`, entered at the resumed step, continues the stage the checkpoint was
    /// written in (the optimizer's state belongs to that stage).
    bool continuesStage(std::size_t k) const;
    /// Loads into the stage just built (state.stage) what the checkpoint holds of it: the key
    /// encoder, the optimizer's and the loss's state, the mined batches, the generators.
    void restoreStage(StageRun& st);

    /// Removes the part files a killed run left in the checkpoint folder, and takes the best.pt
    /// of a resumed run's best epoch along into this run's folder.
    void prepareFolder();
    /// Writes step-N.pt for `atStep` (once per step; nothing without a folder or before the first
    /// stage). Throws std::runtime_error naming the last good checkpoint when writing fails.
    void save(std::int64_t atStep);
    /// An epoch of the last stage scored `validation` on the validation items: when it is the
    /// best so far, keeps the encoder's weights and writes best.pt.
    void offerBest(double validation, int epoch);
    /// When the best epoch is not the current step: loads its weights into the encoder and
    /// returns true.
    bool restoreBest();
    const BestEpoch& best() const { return m_best; }

private:
    void write(std::int64_t atStep, const std::filesystem::path& final);
    void carryBest();

    const RunContext& m_ctx;
    const StageSchedule& m_stages;
    RunState& m_state;
    std::optional<torch::serialize::InputArchive> m_resume;
    std::optional<CheckpointHeader> m_resumeHeader;
    std::optional<torch::serialize::InputArchive> m_init;
    std::int64_t m_initStep = 0;
    std::string m_overridden;
    BestEpoch m_best;
    std::int64_t m_lastSaved = -1;
};

} // namespace setscope::train::run
