// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// JobControl's observable state (polls, parked) and Job's promise about running(). Every
// wait here is on a state the code under test sets, with a generous deadline; no assertion
// depends on how fast a thread is.
#include "core/job/Job.h"

#include <QtTest>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>
#include <vector>

using namespace setscope::job;

namespace {

/// Polls `condition` every millisecond until it holds or 60 s pass.
template <typename F>
bool waitUntil(F condition)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!condition()) {
        if (std::chrono::steady_clock::now() > deadline)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

/// A job that polls `units` times, counting each unit of work it finishes.
class CountingJob final : public Job {
public:
    explicit CountingJob(std::int64_t units)
        : m_units(units)
    {
    }
    ~CountingJob() override { stopAndWait(); }
    std::atomic<std::int64_t> done{0};

protected:
    void run() override
    {
        for (std::int64_t i = 0; i < m_units; ++i) {
            control().checkpoint();
            done.fetch_add(1);
        }
    }

private:
    std::int64_t m_units;
};

/// A sink whose finished() waits for the test to open a gate.
class GatedSink final : public ProgressSink {
public:
    std::atomic<bool> inFinished{false};
    std::promise<void> gate;
    void finished(JobStatus, const std::string&) override
    {
        inFinished = true;
        gate.get_future().wait();
    }
};

} // namespace

class TestJobControl : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void pollsCountEveryAsk()
    {
        JobControl c;
        QCOMPARE(c.polls(), std::uint64_t(0));
        for (int i = 0; i < 5; ++i)
            c.checkpoint();
        QVERIFY(!c.cancelRequested());
        QCOMPARE(c.polls(), std::uint64_t(6));
        c.requestCancel();
        QVERIFY_THROWS_EXCEPTION(Cancelled, c.checkpoint());
        QCOMPARE(c.polls(), std::uint64_t(7));
    }

    void aJobPollsOncePerUnit()
    {
        CountingJob job(1000);
        QCOMPARE(job.runHere(nullptr), JobStatus::Finished);
        QCOMPARE(job.done.load(), std::int64_t(1000));
        QCOMPARE(job.polls(), std::uint64_t(1000));
    }

    // A paused worker parks at its next poll and does nothing until resumed; a cancel wakes
    // it and it ends at once. parked() is set by the worker itself, so waiting for it
    // replaces "sleep and hope the step in flight has ended".
    void pauseParksTheWorker()
    {
        CountingJob job(std::int64_t(1) << 40); // never ends by itself
        job.pause();
        job.start(nullptr);
        QVERIFY(waitUntil([&] { return job.parked(); }));
        const std::int64_t atPark = job.done.load();
        QCOMPARE(atPark, std::int64_t(0)); // paused before the first unit
        QTest::qWait(50); // an observation window: a parked worker does no unit meanwhile
        QCOMPARE(job.done.load(), atPark);
        QVERIFY(job.running());

        job.resume();
        QVERIFY(waitUntil([&] { return job.done.load() > atPark + 1000; }));
        job.pause();
        QVERIFY(waitUntil([&] { return job.parked(); }));
        const std::int64_t second = job.done.load();
        QTest::qWait(50);
        QCOMPARE(job.done.load(), second);

        job.cancel(); // wakes the parked worker, which throws Cancelled at once
        job.wait();
        QCOMPARE(job.status(), JobStatus::Cancelled);
        QCOMPARE(job.done.load(), second); // not one more unit after the park
        QVERIFY(!job.parked());
    }

    // Several threads may wait for one job (e.g. a GUI close and a CLI signal handler, or a
    // wait racing the destructor): all return once it has ended. wait() was joinable() then
    // join(), and two joins of one thread are undefined (std::system_error here).
    void severalThreadsMayWait()
    {
        CountingJob job(std::int64_t(1) << 40);
        job.pause();
        job.start(nullptr);
        QVERIFY(waitUntil([&] { return job.parked(); }));
        std::atomic<int> returned{0};
        std::vector<std::thread> waiters;
        for (int i = 0; i < 4; ++i)
            waiters.emplace_back([&] {
                job.wait();
                ++returned;
            });
        QTest::qWait(50); // let them block in wait()
        QCOMPARE(returned.load(), 0); // the job is parked: nobody can have returned
        job.cancel();
        for (auto& t : waiters)
            t.join();
        QCOMPARE(returned.load(), 4);
        QCOMPARE(job.status(), JobStatus::Cancelled);
        job.wait(); // and once more, after the end
    }

    // running() turns false only after the worker's last sink call has returned, so an
    // owner that frees the sink when it reads false cannot free it under the worker.
    void runningUntilTheLastSinkCallReturns()
    {
        GatedSink sink;
        CountingJob job(3);
        job.start(&sink);
        QVERIFY(waitUntil([&] { return sink.inFinished.load(); }));
        QCOMPARE(job.status(), JobStatus::Finished); // the status is final already...
        QVERIFY(job.running());                      // ...but the worker is still in the sink
        sink.gate.set_value();
        job.wait();
        QVERIFY(!job.running());
    }
};

QTEST_GUILESS_MAIN(TestJobControl)
#include "tst_JobControl.moc"
