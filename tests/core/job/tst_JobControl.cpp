// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// JobControl's observable state (polls, parked) and Job's promise about running(). Every
// wait here is on a state the code under test sets, with a generous deadline; no assertion
// depends on how fast a thread is.
#include "core/job/Job.h"
#include "core/job/WorkerPriority.h"
#include "core/util/Memory.h"
#include "tests/support/TimeFactor.h"

#include <QtTest>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include <cerrno>
#include <cstring>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

using namespace setscope::job;

namespace {

using setscope::testing::waitUntil;

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

/// A job that makes `bytes` resident (touched), polls, and frees them.
class AllocatingJob final : public Job {
public:
    explicit AllocatingJob(std::size_t bytes)
        : m_bytes(bytes)
    {
    }
    ~AllocatingJob() override { stopAndWait(); }

protected:
    void run() override
    {
        // Straight from the kernel and back: an allocator may keep freed memory resident
        // (AddressSanitizer's quarantine does), and the test is about what the job made
        // resident, not about the allocator.
        void* p = mmap(nullptr, m_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        QVERIFY(p != MAP_FAILED);
        auto* block = static_cast<char*>(p);
        std::memset(block, 1, m_bytes); // every page touched
        control().checkpoint();
        QVERIFY(block[m_bytes - 1] == 1);
        munmap(p, m_bytes);
    }

private:
    std::size_t m_bytes;
};

/// Records the niceness its worker thread runs at.
class NicenessJob final : public Job {
public:
    ~NicenessJob() override { stopAndWait(); }
    std::atomic<int> niceness{-100};

protected:
    void run() override
    {
        errno = 0;
        const int n = ::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()));
        niceness = errno == 0 ? n : -100;
    }
};

/// Records messages in order.
class RecordingSink final : public ProgressSink {
public:
    std::vector<std::string> messages;
    void message(const std::string& text) override { messages.push_back(text); }
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

    // The peak a job reports covers what it made resident (the allocation's size is the
    // reference), is reported as the last message before finished(), and a later, smaller job
    // does not inherit the process's earlier high (VmHWM) as its own.
    void peakMemoryIsReported()
    {
        const std::uint64_t before = setscope::util::residentBytes();
        QVERIFY(before > 0);
        constexpr std::size_t kBig = std::size_t(160) << 20;
        AllocatingJob big(kBig);
        RecordingSink sink;
        QCOMPARE(big.runHere(&sink), JobStatus::Finished);
        QVERIFY2(big.peakResidentBytes() >= before + kBig - (8 << 20),
                 qPrintable(QString("peak %1, resident before %2").arg(big.peakResidentBytes()).arg(before)));
        QCOMPARE(sink.messages.size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(sink.messages[0]),
                 "peak memory while the job ran: " + QString::fromStdString(setscope::util::formatBytes(big.peakResidentBytes())) +
                     " resident (the whole process)");

        AllocatingJob small(std::size_t(1) << 20);
        QCOMPARE(small.runHere(nullptr), JobStatus::Finished);
        QVERIFY(small.peakResidentBytes() > 0);
        QVERIFY2(small.peakResidentBytes() + kBig / 2 < big.peakResidentBytes(),
                 qPrintable(QString("small %1, big %2").arg(small.peakResidentBytes()).arg(big.peakResidentBytes())));
    }

    // setWorkerNiceness lowers the worker threads of jobs started afterwards, not the caller.
    void workersRunAtTheSetNiceness()
    {
        errno = 0;
        const int mine = ::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()));
        QCOMPARE(errno, 0);
        if (mine > 16)
            QSKIP("the test already runs at niceness > 16");
        setWorkerNiceness(3);
        NicenessJob lowered;
        lowered.start(nullptr);
        lowered.wait();
        setWorkerNiceness(0);
        NicenessJob plain;
        plain.start(nullptr);
        plain.wait();
        QCOMPARE(lowered.niceness.load(), mine + 3);
        QCOMPARE(plain.niceness.load(), mine);
        QCOMPARE(::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid())), mine);
    }
};

QTEST_GUILESS_MAIN(TestJobControl)
#include "tst_JobControl.moc"
