// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "CliContext.h"
#include "Commands.h"
#include "ConsoleSink.h"
#include "Distributed.h"
#include "EventSink.h"
#include "Interrupt.h"

#include "core/data/Dataset.h"
#include "core/eval/Metrics.h"
#include "core/project/ProjectStore.h"
#include "core/project/RunRecorder.h"
#include "core/train/RunPlan.h"
#include "core/train/TrainingJob.h"
#include "core/workspace/TrainLaunch.h"
#include "core/workspace/Workspace.h"

#include <setscope/sdk/Options.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <optional>
#include <fstream>
#include <iostream>
#include <map>
#include <thread>

namespace setscope::cli {

namespace {

struct TrainOptions {
    std::string dataset;
    std::string configFile;
    std::string project;
    train::TrainerConfig cfg;
    bool baseline = true;
    std::vector<std::string> modelOptions;
    std::string coarse; ///< a label mapping file (--coarse)
    int nproc = 1;      ///< local ranks to start (--nproc)
    bool events = false; ///< JSON lines on stdout instead of the console's lines (--events)
};

/// "raw vectors: kNN 0.8538  R@1 0.8092 ...  [test-vs-train, 10000 queries]"
std::string printScores(const char* what, const std::vector<eval::MetricValue>& values)
{
    std::string line = std::string(what) + ":";
    for (const eval::MetricValue& v : values) {
        char buf[64];
        std::snprintf(buf, sizeof buf, " %s %.4f ", eval::shortMetricName(v.name).c_str(), v.value);
        line += buf;
    }
    while (!line.empty() && line.back() == ' ')
        line.pop_back();
    if (!values.empty())
        line += "  [" + values.front().doc + "]";
    return line;
}
} // namespace

namespace {

/// Every option name of every registered item, with the items that declare it, for the
/// generated flags of `train`.
std::map<std::string, std::string> itemOptionHelp(const plugin::Registry& r)
{
    std::map<std::string, std::string> help;
    for (const plugin::ItemRef& item : r.trainingItems())
        for (const sdk::OptionSpec& o : *item.options) {
            std::string& h = help[o.name];
            h += (h.empty() ? "" : "; ") + std::string(item.kind) + " " + *item.name + ": " + o.doc + " (" +
                 sdk::optionTypeName(o.type) + ", default " + (o.defaultValue.empty() ? "\"\"" : o.defaultValue) + ")";
        }
    return help;
}

} // namespace

namespace {

/// What `train` reads from its command line besides the trainer's settings.
void addSettingFlags(CLI::App* cmd, TrainOptions& o)
{
    train::TrainerConfig& c = o.cfg;
    cmd->add_option("--dataset", o.dataset, "dataset name or path")->required();
    cmd->add_option("--config", o.configFile, "trainer config JSON (keys as stored with runs); flags override it");
    cmd->add_option("--recipe", c.recipe, "a method of the papers: ours, ours+ps, ours+pd, ours+pm, sset, approx-emd, cont, "
                                          "exemplar, tl, ce, int, ext (see `setscope-cli plugins`)");
    cmd->add_option("--model", c.model,
                    "encoder: mlp, deepsets, selfattn or a plugin's (default: mlp for vectors and images; selfattn, "
                    "deepsets for --recipe exemplar, on a dataset of sets)");
    cmd->add_option("--loss", c.loss, "without a recipe: the loss (default triplet)");
    cmd->add_option("--augmentation", c.augmentation, "without a recipe: pointswap, pointdrop, pointmixup (default none)");
    cmd->add_option("--sampler", c.sampler,
                    "without a recipe: class-balanced, random, size-bucketed (default: class-balanced for losses "
                    "that read labels, else random)");
    cmd->add_option("--optimizer", c.optimizer, "adam, adamw, sgd")->capture_default_str();
    cmd->add_option("--schedule", c.schedule, "learning-rate schedule within each stage: constant | cosine")
        ->capture_default_str();
    cmd->add_option("--preset", c.preset,
                    "defaults below explicit flags. paper: Adam lr 1e-5, β 0.9/0.999, ε 1e-7, batches of 64; cpu: Adam lr "
                    "1e-4, batches of 32, selfattn at 2 layers, 4 heads, ff 256, rho 256 (the default on a dataset of sets "
                    "when --model is not given)");
    cmd->add_option("--label-fraction", c.labelFraction,
                    "share of the training labels supervised stages use (semi-supervised: 0.01 .. 0.1)")
        ->capture_default_str();
    cmd->add_option("--validation-fraction", c.validationFraction,
                    "share of the train split held out to pick the best epoch (default 0.1 with a recipe, else 0)");
    cmd->add_option("--external", c.externalDataset, "recipe ext: the dataset to pre-train on first");
    cmd->add_option("--epochs", c.epochs, "epochs (of each stage, unless the recipe's options say otherwise; 30 on a dataset of sets unless --model is given)")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cmd->add_option("--max-steps", c.maxSteps, "stop after this many steps (0 = no limit)")->capture_default_str();
    cmd->add_option("--device", c.device, "auto | cpu | cuda | cuda:N")->capture_default_str();
    cmd->add_option("--emd-cache", c.emdCache,
                    "auto: read the batches' exact EMDs from a finished pairwise matrix of the dataset when the "
                    "cache has one (setscope-cli emd-matrix computes it); off: always solve them")
        ->capture_default_str();
}

void addRunFlags(CLI::App* cmd, TrainOptions& o)
{
    train::TrainerConfig& c = o.cfg;
    cmd->add_option("--label-set", c.labelSet, "labels that supervise and score the run")->capture_default_str();
    cmd->add_option("--coarse", o.coarse,
                    "derive a label set by this mapping file (JSON, docs/LABELS.md; e.g. coarse classes from fine "
                    "ones) and supervise the run with it; with --project the derived set is saved there");
    cmd->add_option("--embedding-dim", c.embeddingDim, "output dimension")->capture_default_str();
    cmd->add_option("--model-option", o.modelOptions, "encoder option key=value (repeatable; or its own flag below)");
    cmd->add_option("--seed", c.seed, "random seed")->capture_default_str();
    cmd->add_option("--threads", c.threads, "intra-op and EMD threads (0 = all cores)")->capture_default_str();
    cmd->add_option("--checkpoint-dir", c.checkpointDir, "write checkpoints here");
    cmd->add_option("--checkpoint-every", c.checkpointEvery, "steps between checkpoints (0 = each epoch)");
    cmd->add_option("--resume", c.resumeFrom,
                    "resume from this checkpoint (an exact continuation: the same settings except epochs, "
                    "max steps, device, checkpoint and snapshot settings)");
    cmd->add_option("--init-from", c.initFrom,
                    "start from this checkpoint's encoder weights (fine-tuning: fresh optimizer, schedule and step "
                    "count; the same model, embedding dim and model options; any dataset of the same input dimension)");
    cmd->add_option("--resume-override", c.resumeOverrides,
                    "FIELD[,FIELD]: let these settings differ from the checkpoint's (recipe, loss, loss_options, "
                    "sampler_options, optimizer_options, label_set, seed, threads, ...); the run is then no longer an "
                    "exact continuation")
        ->delimiter(',');
    cmd->add_option("--batch-shards", c.batchShards,
                    "cut each step's batch into this many parts that the loss sees one at a time (its mining, EMD "
                    "pseudo-labels, batch statistics), averaging their gradients; a distributed run needs a multiple "
                    "of its ranks (default: 1, or the --nproc count)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--nproc", o.nproc,
                    "train data-parallel with this many processes on this machine (c10d Gloo over a file store; "
                    "each rank gets --threads cores/N unless --threads is given; docs/DISTRIBUTED.md); runs across "
                    "machines start once per rank under torchrun or srun instead")
        ->check(CLI::PositiveNumber);
    cmd->add_flag("--events", o.events,
                  "report as JSON lines on stdout (progress, loss, epoch, checkpoint, message, finished) for "
                  "programs that drive the CLI; no raw-vector baseline");
    cmd->add_flag("!--no-baseline", o.baseline, "skip the raw-vector baseline");
    cmd->add_option("--project", o.project,
                    "record the run in this project file (created if missing): config, per-epoch metrics, "
                    "checkpoints; its label sets (with your edits) supervise the training");

}

/// The settings of --config with the flags given on the command line over them. Returns the
/// keys the file sets (they count as given).
nlohmann::json mergeConfigFile(train::TrainerConfig& cfg, const CLI::App* cmd, const std::string& file)
{
    if (file.empty())
        return nlohmann::json::object();
    std::ifstream in(file);
    if (!in)
        throw std::runtime_error("cannot read config " + file);
    nlohmann::json j = nlohmann::json::parse(in, nullptr, true, true);
    train::TrainerConfig fromFile = train::TrainerConfig::fromJson(j);
    const nlohmann::json flags = cfg.toJson();
    nlohmann::json merged = fromFile.toJson();
    for (const auto& [flag, key] : std::vector<std::pair<std::string, std::string>>{
             {"--recipe", "recipe"}, {"--model", "model"}, {"--loss", "loss"}, {"--augmentation", "augmentation"},
             {"--sampler", "sampler"}, {"--optimizer", "optimizer"}, {"--schedule", "schedule"},
             {"--preset", "preset"}, {"--label-fraction", "label_fraction"},
             {"--validation-fraction", "validation_fraction"}, {"--external", "external_dataset"},
             {"--epochs", "epochs"}, {"--max-steps", "max_steps"}, {"--device", "device"}, {"--emd-cache", "emd_cache"},
             {"--label-set", "label_set"}, {"--embedding-dim", "embedding_dim"}, {"--seed", "seed"},
             {"--threads", "threads"}, {"--checkpoint-dir", "checkpoint_dir"},
             {"--checkpoint-every", "checkpoint_every"}, {"--resume", "resume_from"},
             {"--batch-shards", "batch_shards"},
             {"--resume-override", "resume_overrides"}})
        if (cmd->count(flag) > 0)
            merged[key] = flags[key];
    cfg = train::TrainerConfig::fromJson(merged);
    return j;
}

/// The command line as a workspace::TrainRequest.
workspace::TrainRequest requestFrom(const TrainOptions& o, const CLI::App* cmd,
                                    const std::map<std::string, std::string>& itemValues)
{
    workspace::TrainRequest r;
    r.dataset = o.dataset;
    r.config = o.cfg;
    const nlohmann::json fileKeys = mergeConfigFile(r.config, cmd, o.configFile);
    for (const auto& kv : o.modelOptions) {
        const auto eq = kv.find('=');
        if (eq == std::string::npos)
            throw std::invalid_argument("--model-option expects key=value, got '" + kv + "'");
        r.config.modelOptions[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    for (const auto& [name, value] : itemValues)
        if (cmd->count("--" + name) > 0)
            r.itemOptions[name] = value;
    const auto given = [&](const char* flag, const char* key) { return cmd->count(flag) > 0 || fileKeys.contains(key); };
    r.modelGiven = given("--model", "model");
    r.presetGiven = given("--preset", "preset");
    r.epochsGiven = given("--epochs", "epochs");
    r.labelSetGiven = cmd->count("--label-set") > 0;
    r.threadsGiven = given("--threads", "threads");
    r.shardsGiven = given("--batch-shards", "batch_shards");
    r.coarseMapping = o.coarse;
    r.project = o.project;
    r.config.snapshotEvery = 0; // nobody looks at maps here
    return r;
}

/// The raw vectors' kNN and Recall@K, printed; -1 when not scored.
double printRawBaseline(const data::Dataset& ds, const std::string& labelSet)
{
    if (!ds.isVectorDataset() || !ds.labelSet(labelSet))
        return -1.0;
    const auto t0 = std::chrono::steady_clock::now();
    eval::MetricRequest request; // the baseline's kNN and Recall@K (the rest comes with every epoch)
    request.metrics = {"knn-accuracy", "recall-hit"};
    const std::vector<eval::MetricValue> raw = eval::evaluateRawMetrics(ds, labelSet, request);
    std::printf("%s  (%.1fs)\n", printScores("raw vectors", raw).c_str(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    std::fflush(stdout);
    return raw.front().value;
}

/// Runs the job to its end on this thread's watch: SIGINT, SIGTERM and SIGHUP (and, for a rank,
/// its launcher's end) cancel it, so that it ends, and is recorded, as cancelled.
void runWatched(train::TrainingJob& job, train::TrainingSink* sink)
{
    job.start(sink);
    bool cancelling = false;
    while (job.running()) {
        if (!cancelling && interruptRequested()) {
            std::fprintf(stderr, "\ninterrupt%s%s: cancelling...\n", *interruptName() ? " by " : "", interruptName());
            job.cancel();
            cancelling = true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    job.wait();
}

/// What rank 0 prints at the end.
void printOutcome(const train::TrainingJob& job, bool events, double rawKnn)
{
    const auto hist = job.history();
    if (!job.lastCheckpoint().empty())
        std::fprintf(stderr, "last checkpoint: %s\n", job.lastCheckpoint().c_str());
    if (!job.bestCheckpoint().empty())
        std::fprintf(stderr, "best checkpoint (validation kNN): %s\n", job.bestCheckpoint().c_str());
    if (events || job.status() != job::JobStatus::Finished || hist.empty() || !hist.back().value("knn-accuracy"))
        return;
    const double fin = *hist.back().value("knn-accuracy");
    if (rawKnn >= 0)
        std::printf("final: kNN accuracy %.4f (raw vectors %.4f, %+.4f)\n", fin, rawKnn, fin - rawKnn);
    else
        std::printf("final: kNN accuracy %.4f\n", fin);
}

/// One process's run: rank 0 of a distributed run (or the only process) prints, records and
/// compares with the raw vectors; the others train their parts. Returns the exit code.
int trainHere(CliContext& context, workspace::TrainRequest request, const workspace::ResolvedTrain& resolved,
              const TrainOptions& o)
{
    // A rank of a distributed run joins the others first: a rank that fails later then stops
    // them at once (its connections close) instead of leaving them waiting at the rendezvous.
    const RankContext rank = joinRun();
    if (!rank.lead)
        request.project.clear();
    const bool baseline = rank.lead && o.baseline && !o.events;
    if (rank.lead) {
        if (!resolved.defaultsNote.empty())
            std::fprintf(stderr, "%s\n", resolved.defaultsNote.c_str());
        std::fprintf(stderr, "plan: %s\n", resolved.plan.describe().c_str());
    }
    const train::TrainerConfig& cfg = resolved.config;
    workspace::Workspace ws(context.registry);
    const auto open = [&context](const std::string& spec) { return context.openDataset(spec); };
    const workspace::PreparedTrain prepared = workspace::prepareTrainData(resolved, request, ws, open);
    if (rank.lead)
        for (const std::string& note : prepared.notes)
            std::fprintf(stderr, "%s\n", note.c_str());
    std::shared_ptr<const data::Dataset> ds = ws.dataset();
    if (rank.comm) { // rank 0's labels (its project's, a derived set) for every rank
        shareLabelSet(rank, ds, cfg.labelSet);
        if (!rank.lead)
            ws.adoptDataset(ds, request.dataset);
    }
    if (rank.lead)
        std::fprintf(stderr, "dataset %s: %zu items (train %zu, test %zu), dim %d\n", ds->name().c_str(), ds->size(),
                     ds->count(data::Split::Train), ds->count(data::Split::Test), ds->dim());
    const double rawKnn = baseline ? printRawBaseline(*ds, cfg.labelSet) : -1.0;

    ConsoleSink console;
    EventSink events;
    train::TrainingSink* sink = !rank.lead ? nullptr : o.events ? static_cast<train::TrainingSink*>(&events) : &console;
    InterruptScope interrupts; // from the run's record on
    project::TrainingRun run = ws.prepareRun(cfg, prepared.external, sink); // recorded with --project
    if (!run.recordError.empty())
        throw std::runtime_error("project " + request.project + ": cannot record the run: " + run.recordError);
    if (run.recorder)
        std::fprintf(stderr, "project %s: run %lld, checkpoints in %s\n", request.project.c_str(),
                     static_cast<long long>(run.recorder->runId()), run.job->config().checkpointDir.c_str());
    train::TrainingJob& job = *run.job;
    job.setCommunicator(rank.comm);
    runWatched(job, run.sink);
    if (rank.lead)
        printOutcome(job, o.events, rawKnn);
    else if (job.status() == job::JobStatus::Failed)
        std::fprintf(stderr, "setscope-cli: %s\n", job.error().c_str());
    return exitCode(job.status());
}

} // namespace

void addTrainCommand(CLI::App& app, ContextFn ctx, int& rc)
{
    auto* cmd = app.add_subcommand("train", "Train an encoder with a recipe or a loss; prints one line per epoch");
    auto o = std::make_shared<TrainOptions>();
    addSettingFlags(cmd, *o);
    addRunFlags(cmd, *o);
    // One flag per option of every registered item (recipes, models, losses, augmentations,
    // samplers, optimizers): a new item's options need no CLI code. Each value goes to the
    // selected items that declare it (train::applyItemOptions).
    auto itemValues = std::make_shared<std::map<std::string, std::string>>();
    for (const auto& [name, help] : itemOptionHelp(ctx().registry)) {
        if (cmd->get_option_no_throw("--" + name))
            continue; // a fixed flag of the same name wins
        cmd->add_option("--" + name, (*itemValues)[name], help)->group("Options of the recipe's items (from the registry)");
    }
    cmd->callback([ctx, o, cmd, itemValues, &rc] {
        CliContext& context = ctx();
        const workspace::TrainRequest request = requestFrom(*o, cmd, *itemValues);
        const auto open = [&context](const std::string& spec) { return context.openDataset(spec); };
        const workspace::ResolvedTrain resolved = workspace::resolveTrain(request, context.registry, open);
        if (o->nproc > 1) {
            // This process only starts and watches the ranks; each runs this command without
            // --nproc, with one part of a batch per rank (replacing the user's --batch-shards and
            // --threads).
            const int shards = workspace::batchShardsFor(resolved.config, cmd->count("--batch-shards") > 0, o->nproc);
            rc = launchLocalRanks(o->nproc, resolved.config.threads, {"--batch-shards", std::to_string(shards)});
            return;
        }
        rc = trainHere(context, request, resolved, *o);
    });
}

} // namespace setscope::cli
