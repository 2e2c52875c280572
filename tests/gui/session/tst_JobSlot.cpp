// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// JobSlot and RetiredJobs (gui/session/JobSlot.h): the current job's signals reach their
// handlers, a replaced job's late signals do not, a retired job is kept (with its sink) until
// its thread has ended. Every wait is on a state the test itself controls (a gate the job
// waits for), never on which thread happens to be faster.
#include "gui/bridge/QtTrainingSink.h"
#include "gui/session/JobSlot.h"
#include "tests/support/TimeFactor.h"

#include <QtTest>

#include <atomic>
#include <chrono>
#include <thread>

using namespace setscope;
using setscope::gui::JobSlot;
using setscope::gui::QtJobSink;
using setscope::gui::QtTrainingSink;
using setscope::gui::RetiredJobs;

namespace {

/// Reports "started", waits until its gate opens (and, unless it honours cancel, ignores
/// cancel meanwhile), reports "done" and ends.
class GatedJob final : public job::Job {
public:
    explicit GatedJob(bool honourCancel = false)
        : m_honourCancel(honourCancel)
    {
    }
    ~GatedJob() override
    {
        open();
        stopAndWait();
    }
    void open() { m_gate.store(true); }
    bool sawCancel() const { return m_sawCancel.load(); }

protected:
    void run() override
    {
        reportMessage("started");
        while (!m_gate.load()) {
            if (control().cancelRequested()) {
                m_sawCancel.store(true);
                if (m_honourCancel)
                    throw job::Cancelled();
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        reportMessage("done");
    }

private:
    const bool m_honourCancel;
    std::atomic<bool> m_gate{false};
    std::atomic<bool> m_sawCancel{false};
};

/// Records the sink it was started with as a training sink, as train::TrainingJob takes one
/// (Job::start's sink, when it is a TrainingSink).
class TrainingSinkJob final : public job::Job {
public:
    ~TrainingSinkJob() override { stopAndWait(); }
    train::TrainingSink* trainingSink() const { return m_trainingSink.load(); }

protected:
    void run() override { m_trainingSink.store(dynamic_cast<train::TrainingSink*>(sink())); }

private:
    std::atomic<train::TrainingSink*> m_trainingSink{nullptr};
};

} // namespace

class TestJobSlot : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void currentJobReachesItsHandlers();
    void replacedJobsLateSignalsAreVoid();
    void retiredJobIsKeptUntilItsThreadEnds();
    void retireWithoutJobFreesAtOnce();
    void startWithoutPrepareThrows();
    void startHandsTheJobItsSink();
    void onRefusesASignalThePreparedSinkHasNot();
};

void TestJobSlot::currentJobReachesItsHandlers()
{
    RetiredJobs retired;
    JobSlot slot(retired);
    QStringList messages;
    int finished = -1;
    slot.prepare();
    slot.on(&QtJobSink::messageReported, this, [&](const QString& m) { messages << m; });
    slot.on(&QtJobSink::jobFinished, this, [&](int status, const QString&) { finished = status; });
    auto job = std::make_unique<GatedJob>();
    GatedJob* j = job.get();
    slot.start(std::move(job));
    QCOMPARE(slot.job(), static_cast<job::Job*>(j));
    QVERIFY(slot.jobAs<GatedJob>() == j);
    j->open();
    QTRY_COMPARE_WITH_TIMEOUT(finished, int(job::JobStatus::Finished), setscope::testing::scaledMs(10000));
    // The job's own messages, then Job's report of the peak memory just before finished().
    QCOMPARE(messages.size(), 3);
    QCOMPARE(messages.mid(0, 2), QStringList({"started", "done"}));
    QVERIFY2(messages[2].startsWith("peak memory while the job ran: "), qPrintable(messages[2]));
    QVERIFY(retired.empty());
}

void TestJobSlot::replacedJobsLateSignalsAreVoid()
{
    RetiredJobs retired;
    JobSlot slot(retired);
    int firstFinished = 0;
    int secondFinished = 0;
    QStringList firstMessages;

    slot.prepare();
    slot.on(&QtJobSink::jobFinished, this, [&](int, const QString&) { ++firstFinished; });
    slot.on(&QtJobSink::messageReported, this, [&](const QString& m) { firstMessages << m; });
    auto first = std::make_unique<GatedJob>(/*honourCancel=*/false);
    GatedJob* a = first.get();
    slot.start(std::move(first));
    QTRY_COMPARE_WITH_TIMEOUT(firstMessages, QStringList({"started"}), setscope::testing::scaledMs(10000)); // it is in run()
    const quint64 generation = slot.generation();

    // Replacing it retires it: cancel requested, kept (it ignores cancel, so it still runs).
    slot.prepare();
    QVERIFY(slot.generation() > generation);
    slot.on(&QtJobSink::jobFinished, this, [&](int, const QString&) { ++secondFinished; });
    auto second = std::make_unique<GatedJob>();
    GatedJob* b = second.get();
    slot.start(std::move(second));
    QVERIFY(!retired.empty());
    QTRY_VERIFY_WITH_TIMEOUT(a->sawCancel(), setscope::testing::scaledMs(10000));

    // The old job now ends and reports; its signals were emitted before running() turned
    // false, so once it reads false they are queued here: deliver them.
    a->open();
    QTRY_VERIFY_WITH_TIMEOUT(!a->running(), setscope::testing::scaledMs(10000));
    QCoreApplication::processEvents();
    QCOMPARE(firstFinished, 0);
    QCOMPARE(firstMessages, QStringList({"started"})); // "done" came after it was replaced

    b->open();
    QTRY_COMPARE_WITH_TIMEOUT(secondFinished, 1, setscope::testing::scaledMs(10000));
    QCOMPARE(firstFinished, 0);
    retired.reap();
    QVERIFY(retired.empty());
}

void TestJobSlot::retiredJobIsKeptUntilItsThreadEnds()
{
    RetiredJobs retired;
    int added = 0;
    retired.onAdded([&] { ++added; });
    JobSlot slot(retired);
    slot.prepare();
    auto job = std::make_unique<GatedJob>(/*honourCancel=*/false);
    GatedJob* j = job.get();
    slot.start(std::move(job));
    slot.retire();
    QVERIFY(!slot.hasJob());
    QCOMPARE(added, 1);
    QTRY_VERIFY_WITH_TIMEOUT(j->sawCancel(), setscope::testing::scaledMs(10000));
    retired.reap(); // still running: kept
    QVERIFY(!retired.empty());
    QVERIFY(j->running());
    j->open();
    QTRY_VERIFY_WITH_TIMEOUT(!j->running(), setscope::testing::scaledMs(10000));
    QCoreApplication::processEvents();
    retired.reap();
    QVERIFY(retired.empty());
}

void TestJobSlot::retireWithoutJobFreesAtOnce()
{
    RetiredJobs retired;
    int added = 0;
    retired.onAdded([&] { ++added; });
    JobSlot slot(retired);
    QPointer<QtJobSink> sink = slot.prepare();
    QVERIFY(!sink.isNull());
    slot.retire();
    QVERIFY(sink.isNull()); // nothing could still call it
    QVERIFY(retired.empty());
    QCOMPARE(added, 0);
}

void TestJobSlot::startWithoutPrepareThrows()
{
    RetiredJobs retired;
    JobSlot slot(retired);
    QVERIFY_THROWS_EXCEPTION(std::logic_error, slot.start(std::make_unique<GatedJob>(true)));
    slot.prepare();
    auto job = std::make_unique<GatedJob>(/*honourCancel=*/true);
    slot.start(std::move(job));
    QVERIFY_THROWS_EXCEPTION(std::logic_error, slot.start(std::make_unique<GatedJob>(true)));
    slot.job()->cancel(); // the slot's destructor joins it
}

void TestJobSlot::startHandsTheJobItsSink()
{
    // A slot prepared for a training run starts its job with a TrainingSink: the job learns
    // so from the sink's type, as train::TrainingJob does.
    RetiredJobs retired;
    JobSlot slot(retired);
    QtTrainingSink* sink = slot.prepare<QtTrainingSink>();
    int finished = 0;
    slot.on(&QtJobSink::jobFinished, this, [&](int, const QString&) { ++finished; });
    auto job = std::make_unique<TrainingSinkJob>();
    TrainingSinkJob* j = job.get();
    slot.start(std::move(job));
    // The worker has run (and recorded its sink) once finished() is delivered.
    QTRY_COMPARE_WITH_TIMEOUT(finished, 1, setscope::testing::scaledMs(10000));
    QVERIFY(j->trainingSink() != nullptr);
    QCOMPARE(static_cast<job::ProgressSink*>(j->trainingSink()), sink->reportTarget());

    // A slot prepared with a plain job sink: the same job sees no TrainingSink.
    slot.prepare();
    auto job2 = std::make_unique<TrainingSinkJob>();
    TrainingSinkJob* j2 = job2.get();
    slot.start(std::move(job2));
    slot.job()->wait();
    QVERIFY(j2->trainingSink() == nullptr);
}

void TestJobSlot::onRefusesASignalThePreparedSinkHasNot()
{
    RetiredJobs retired;
    JobSlot slot(retired);
    slot.prepare(); // a plain job sink: no step losses
    QVERIFY_THROWS_EXCEPTION(std::logic_error, slot.on(&QtTrainingSink::stepLossReported, this, [](qint64, double) {}));
    slot.prepare<QtTrainingSink>();
    slot.on(&QtTrainingSink::stepLossReported, this, [](qint64, double) {}); // accepted
    slot.on(&QtJobSink::jobFinished, this, [](int, const QString&) {});     // a kind of job sink has its signals
}

QTEST_MAIN(TestJobSlot)
#include "tst_JobSlot.moc"
