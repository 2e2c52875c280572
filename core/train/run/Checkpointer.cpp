// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/train/run/Checkpointer.h"

#include "core/data/Dataset.h"
#include "core/train/CheckedLoad.h"
#include "core/train/run/Embedding.h"
#include "core/train/run/RunContext.h"
#include "core/train/run/Stages.h"
#include "core/train/run/TorchRuntime.h"
#include "core/util/AtomicFile.h"

#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <string_view>

namespace fs = std::filesystem;

namespace setscope::train::run {

namespace {

/// What `part` (the encoder, a loss) saves, as the bytes of one archive.
template <class Part>
std::string archiveBytes(Part& part)
{
    torch::serialize::OutputArchive ar;
    part.save(ar);
    std::ostringstream out;
    ar.save_to(out);
    return out.str();
}

/// Loads `bytes` (archiveBytes of a part of the same kind) into `part`, checked.
template <class Part>
void loadBytes(Part& part, const std::string& bytes, const torch::Device& device, const std::string& file,
               const std::string& what)
{
    std::istringstream in(bytes);
    torch::serialize::InputArchive ar;
    ar.load_from(in, device);
    loadChecked(part, ar, file, what);
}

torch::Tensor byteTensor(const std::string& bytes)
{
    return torch::from_blob(const_cast<char*>(bytes.data()), {static_cast<std::int64_t>(bytes.size())}, torch::kUInt8);
}

} // namespace

Checkpointer::Checkpointer(const RunContext& ctx, const StageSchedule& stages, RunState& state)
    : m_ctx(ctx)
    , m_stages(stages)
    , m_state(state)
{
    const TrainerConfig& cfg = ctx.cfg;
    if (!cfg.resumeFrom.empty()) {
        m_resume.emplace(openArchive(cfg.resumeFrom, ctx.device, &ctx.control()));
        m_resumeHeader = readHeader(*m_resume, cfg.resumeFrom, &ctx.control());
        m_overridden = checkResumeHeader(*m_resumeHeader, cfg, ctx.ds);
    } else if (!cfg.initFrom.empty()) {
        m_init.emplace(openArchive(cfg.initFrom, ctx.device, &ctx.control()));
        const CheckpointHeader h = readHeader(*m_init, cfg.initFrom, &ctx.control());
        checkInitHeader(h, cfg, ctx.ds);
        m_initStep = h.step;
    }
}

void Checkpointer::loadStart()
{
    const TrainerConfig& cfg = m_ctx.cfg;
    if (m_init) {
        // Only the encoder's weights: optimizer, schedule, sampler order and history start fresh.
        torch::serialize::InputArchive m;
        m_init->read("model", m);
        loadChecked(*m_state.enc, m, cfg.initFrom, "the weights of model " + cfg.model);
        m_init.reset();
        m_ctx.message("started from the weights of " + cfg.initFrom + " (its step " + std::to_string(m_initStep) +
                      "); optimizer and schedule start fresh");
    }
    if (m_resume) {
        const CheckpointHeader& h = *m_resumeHeader;
        m_best = h.best;
        torch::serialize::InputArchive m;
        m_resume->read("model", m);
        loadChecked(*m_state.enc, m, cfg.resumeFrom, "the weights of model " + cfg.model);
        m_state.step = h.step;
        m_state.epochLossSum = h.epochLossSum;
        m_state.epochLossCount = h.epochLossCount;
        m_ctx.host.record().setHistory(h.history);
    }
}

bool Checkpointer::continuesStage(std::size_t k) const
{
    return m_resume && static_cast<std::int64_t>(k) == m_resumeHeader->stage && m_state.step > m_stages[k].firstStep;
}

void Checkpointer::restoreStage(StageRun& st)
{
    const TrainerConfig& cfg = m_ctx.cfg;
    ActiveStage& a = m_state.stage;
    torch::serialize::InputArchive& ar = *m_resume;
    if (a.keyEnc) {
        torch::serialize::InputArchive k;
        if (ar.try_read("key_model", k))
            loadChecked(a.keyEnc->encoder(), k, cfg.resumeFrom, "the key encoder's weights");
        else
            m_ctx.message("the checkpoint holds no key encoder: it starts as a copy of the encoder at step " +
                          std::to_string(m_state.step) + " (not an exact continuation)");
    }
    torch::serialize::InputArchive o;
    ar.read("optimizer", o);
    a.opt->load(o);
    if (m_resumeHeader->format == 2) {
        torch::serialize::InputArchive l;
        if (ar.try_read("loss", l))
            loadChecked(*a.loss, l, cfg.resumeFrom, "the state of loss " + st.plan->loss->name);
    }
    // Batches mined from the model before the interruption (sampler refresh capability).
    torch::Tensor mined;
    if (st.sampler->refreshEvery() > 0 && ar.try_read("sampler_state", mined, /*is_buffer=*/true)) {
        mined = mined.to(torch::kCPU).to(torch::kLong).contiguous();
        st.sampler->restoreState(
            std::vector<std::int64_t>(mined.data_ptr<std::int64_t>(), mined.data_ptr<std::int64_t>() + mined.numel()));
        st.mined = true;
    }
    torch::Tensor rng; // absent in checkpoints written before it was stored
    if (ar.try_read("rng_cpu", rng, /*is_buffer=*/true)) {
        std::lock_guard lock(initMutex());
        setGeneratorState(torch::kCPU, rng);
    }
    // The CUDA generator's, when the checkpoint was written on the device this run uses.
    c10::IValue rngDevice;
    torch::Tensor rngCuda;
    const torch::Device& device = m_ctx.device;
    if (device.is_cuda() && ar.try_read("rng_cuda_device", rngDevice) && rngDevice.toStringRef() == device.str() &&
        ar.try_read("rng_cuda", rngCuda, /*is_buffer=*/true)) {
        std::lock_guard lock(initMutex());
        setGeneratorState(device, rngCuda);
    }
}

void Checkpointer::write(std::int64_t atStep, const fs::path& final)
{
    const TrainerConfig& cfg = m_ctx.cfg;
    const ActiveStage& a = m_state.stage;
    sdk::SetEncoder& enc = *m_state.enc;
    fs::create_directories(final.parent_path());
    torch::serialize::OutputArchive ar;
    ar.write("format", c10::IValue(std::string(kCheckpointFormat)));
    TrainerConfig stored = cfg;
    stored.resumeFrom.clear();
    stored.resumeOverrides.clear();
    ar.write("config", c10::IValue(stored.toJson().dump()));
    ar.write("stage", c10::IValue(static_cast<std::int64_t>(a.index)));
    ar.write("step", c10::IValue(atStep));
    ar.write("input_dim", c10::IValue(static_cast<std::int64_t>(m_ctx.ds.dim())));
    ar.write("dataset_hash", c10::IValue(m_ctx.ds.contentHash()));
    ar.write("epoch_loss_sum", c10::IValue(m_state.epochLossSum));
    ar.write("epoch_loss_count", c10::IValue(m_state.epochLossCount));
    nlohmann::json hist = nlohmann::json::array();
    for (const auto& m : m_ctx.host.record().history())
        hist.push_back(metricsToJson(m));
    ar.write("history", c10::IValue(hist.dump()));
    torch::serialize::OutputArchive m, o, l;
    enc.save(m);
    a.opt->save(o);
    a.loss->save(l);
    ar.write("model", m);
    ar.write("optimizer", o);
    ar.write("loss", l);
    if (const torch::Tensor p = metricProjection(*a.loss, enc.outputDim()); p.defined())
        ar.write("embedding_projection", p, /*is_buffer=*/true);
    if (a.keyEnc) {
        torch::serialize::OutputArchive k;
        a.keyEnc->encoder().save(k);
        ar.write("key_model", k);
    }
    if (a.index < m_stages.size()) {
        const std::vector<std::int64_t> mined = m_stages[a.index].sampler->state();
        if (!mined.empty())
            ar.write("sampler_state", torch::tensor(mined, torch::kLong), /*is_buffer=*/true);
    }
    {
        std::lock_guard lock(initMutex());
        ar.write("rng_cpu", generatorState(torch::kCPU), /*is_buffer=*/true);
        if (m_ctx.device.is_cuda()) {
            ar.write("rng_cuda_device", c10::IValue(m_ctx.device.str()));
            ar.write("rng_cuda", generatorState(m_ctx.device), /*is_buffer=*/true);
        }
    }
    if (m_best.step >= 0) {
        ar.write("best_step", c10::IValue(m_best.step));
        ar.write("best_validation", c10::IValue(m_best.validation));
        ar.write("best_epoch", c10::IValue(static_cast<std::int64_t>(m_best.epoch)));
        ar.write("best_path", c10::IValue(m_best.path));
        ar.write("best_model", byteTensor(m_best.weights), /*is_buffer=*/true);
        if (!m_best.loss.empty())
            ar.write("best_loss", byteTensor(m_best.loss), /*is_buffer=*/true);
    }
    // Written to final.part, fsynced and renamed: a reader (or a resume after a kill) sees
    // the previous file or the new one, and a failed write leaves no part file.
    util::writeFileAtomically(final, [&](std::ostream& out) { ar.save_to(out); });
}

void Checkpointer::prepareFolder()
{
    const TrainerConfig& cfg = m_ctx.cfg;
    if (cfg.checkpointDir.empty())
        return;
    // A run killed while writing a checkpoint leaves its part file (the checkpoints before it
    // are whole: each is renamed into place complete); the next run in the folder removes it,
    // and the ".pt.partial" files of setscope versions before the atomic writer.
    const auto endsWith = [](const std::string& n, std::string_view tail) {
        return n.size() > tail.size() && n.compare(n.size() - tail.size(), tail.size(), tail) == 0;
    };
    std::error_code ec;
    for (fs::directory_iterator it(cfg.checkpointDir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string n = it->path().filename().string();
        if (endsWith(n, ".pt.part") || endsWith(n, ".pt.partial"))
            fs::remove(it->path(), ec);
    }
    if (m_best.step >= 0)
        carryBest();
}

void Checkpointer::carryBest()
{
    // A run resumed into another checkpoint folder takes the best.pt of its best epoch along:
    // the file itself when it still holds that epoch (the old run may have gone on to a better
    // one), else one written from the best weights the checkpoint carries.
    const TrainerConfig& cfg = m_ctx.cfg;
    sdk::SetEncoder& enc = *m_state.enc;
    const fs::path target = fs::path(cfg.checkpointDir) / "best.pt";
    std::error_code ec;
    bool have = m_best.path == target.string() && fs::is_regular_file(target, ec);
    if (!have && !m_best.path.empty() && fs::is_regular_file(m_best.path, ec)) {
        try {
            auto old = openArchive(m_best.path, torch::kCPU, &m_ctx.control());
            if (readHeader(old, m_best.path, &m_ctx.control()).step == m_best.step) {
                fs::create_directories(target.parent_path());
                have = fs::copy_file(m_best.path, target, fs::copy_options::overwrite_existing);
            }
        } catch (const std::exception&) {
            have = false; // unreadable: written anew below
        }
    }
    if (!have) {
        // The best weights (and the loss's state then) may come from the checkpoint this run
        // resumed from.
        const std::string from = cfg.resumeFrom.empty() ? target.string() : cfg.resumeFrom;
        sdk::MetricLoss* loss = m_best.loss.empty() ? nullptr : m_state.stage.loss.get();
        const std::string now = archiveBytes(enc);
        const std::string lossNow = loss ? archiveBytes(*loss) : std::string();
        loadBytes(enc, m_best.weights, m_ctx.device, from, "the best epoch's weights of model " + cfg.model);
        if (loss)
            loadBytes(*loss, m_best.loss, m_ctx.device, from, "the best epoch's state of the loss");
        write(m_best.step, target);
        loadBytes(enc, now, m_ctx.device, from, "the weights of model " + cfg.model);
        if (loss)
            loadBytes(*loss, lossNow, m_ctx.device, from, "the state of the loss");
        m_ctx.message("best.pt of epoch " + std::to_string(m_best.epoch) + " written to " + target.string() +
                      " from the checkpoint's best weights (its optimizer state is that of step " +
                      std::to_string(m_state.step) + ")");
    }
    m_best.path = target.string();
}

void Checkpointer::save(std::int64_t atStep)
{
    const TrainerConfig& cfg = m_ctx.cfg;
    if (cfg.checkpointDir.empty() || atStep == m_lastSaved || !m_state.inStage())
        return;
    m_lastSaved = atStep;
    char name[64];
    std::snprintf(name, sizeof name, "step-%09lld.pt", static_cast<long long>(atStep));
    const fs::path final = fs::path(cfg.checkpointDir) / name;
    RunRecord& record = m_ctx.host.record();
    try {
        write(atStep, final);
    } catch (const std::exception& e) {
        // The run stops: going on without checkpoints would risk hours of work unnoticed.
        // The checkpoints written before are intact (docs/RELIABILITY.md "Faults").
        const std::string last = record.lastCheckpoint();
        const std::string previous = last.empty() ? cfg.resumeFrom : last;
        throw std::runtime_error("cannot save the checkpoint of step " + std::to_string(atStep) + ": " + e.what() +
                                 (previous.empty() ? std::string("; no checkpoint of this run was written before")
                                                   : "; the last good checkpoint is " + previous + " (resume from it)"));
    }
    record.setLastCheckpoint(final.string());
    if (TrainingSink* sink = m_ctx.host.trainingSink())
        sink->checkpointWritten(atStep, final.string());
}

void Checkpointer::offerBest(double validation, int epoch)
{
    if (validation <= m_best.validation)
        return;
    m_best.validation = validation;
    m_best.step = m_state.step;
    m_best.epoch = epoch;
    m_best.weights = archiveBytes(*m_state.enc);
    m_best.loss = m_state.stage.loss ? archiveBytes(*m_state.stage.loss) : std::string();
    if (!m_ctx.cfg.checkpointDir.empty()) {
        m_best.path = (fs::path(m_ctx.cfg.checkpointDir) / "best.pt").string();
        write(m_state.step, m_best.path);
    }
}

bool Checkpointer::restoreBest()
{
    if (m_best.step < 0 || m_best.step == m_state.step)
        return false;
    const std::string from = m_ctx.cfg.resumeFrom.empty() ? m_best.path : m_ctx.cfg.resumeFrom;
    loadBytes(*m_state.enc, m_best.weights, m_ctx.device, from, "the best epoch's weights of model " + m_ctx.cfg.model);
    // A loss that learns a metric is part of the model: its state of that epoch, not of the last step.
    if (sdk::MetricLoss* loss = m_state.stage.loss.get()) {
        if (!m_best.loss.empty())
            loadBytes(*loss, m_best.loss, m_ctx.device, from, "the best epoch's state of the loss");
        else if (metricProjection(*loss, m_state.enc->outputDim()).defined())
            m_ctx.message("the checkpoint this run resumed from keeps no state of the loss for its best epoch (written "
                          "by an older setscope): the kept model measures with the last step's metric");
    }
    return true;
}

} // namespace setscope::train::run
