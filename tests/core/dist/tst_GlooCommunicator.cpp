// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The Communicator over c10d's ProcessGroupGloo, with two ranks as two threads of this process:
// collectives and messages against hand-computed values, over a file store and a TCP store; a
// rank that never comes and a rank that leaves end in PeerLost, not a hang.
#include "core/dist/Gloo.h"
#include "tests/support/FreePort.h"

#include <QtTest>
#include <QTemporaryDir>


#include <chrono>
#include <functional>
#include <future>
#include <semaphore>

using namespace setscope::dist;

namespace {

/// Runs `body(rank, communicator)` on two threads joined through `base` (rank and size set
/// here), then `after(rank)` once that rank's communicator is gone; returns each rank's error
/// message ("" when it finished).
std::array<std::string, 2> twoRanks(Rendezvous base, const std::function<void(int, Communicator&)>& body,
                                    const std::function<void(int)>& after = {})
{
    auto one = [&](int rank) {
        try {
            Rendezvous r = base;
            r.rank = rank;
            r.worldSize = 2;
            {
                auto comm = connectGloo(r);
                body(rank, *comm);
            }
            if (after)
                after(rank);
        } catch (const std::exception& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    auto f0 = std::async(std::launch::async, one, 0);
    auto f1 = std::async(std::launch::async, one, 1);
    return {f0.get(), f1.get()};
}


void exercise(int rank, Communicator& c)
{
    QCOMPARE(c.rank(), rank);
    QCOMPARE(c.size(), 2);
    std::vector<float> f{float(rank + 1), 10.0f * float(rank + 1), -0.5f};
    c.allreduceSum(std::span<float>(f));
    QCOMPARE(f, (std::vector<float>{3.0f, 30.0f, -1.0f}));
    std::vector<double> d{1e-12 * (rank + 1), 1.0};
    c.allreduceSum(std::span<double>(d));
    QCOMPARE(d, (std::vector<double>{3e-12, 2.0}));

    std::vector<std::int64_t> v = rank == 1 ? std::vector<std::int64_t>{5, -6, 1LL << 40} : std::vector<std::int64_t>{};
    c.broadcast(v, 1); // the receiver's vector takes the root's length
    QCOMPARE(v, (std::vector<std::int64_t>{5, -6, 1LL << 40}));
    std::string s = rank == 0 ? std::string("h\xc3\xa9llo\0world", 12) : std::string("other");
    c.broadcast(s, 0);
    QCOMPARE(s, std::string("h\xc3\xa9llo\0world", 12));
    std::string empty = rank == 0 ? "" : "x";
    c.broadcast(empty, 0);
    QCOMPARE(empty, std::string());
    std::vector<float> w = rank == 0 ? std::vector<float>{1, 2} : std::vector<float>{0, 0};
    c.broadcast(std::span<float>(w), 0);
    QCOMPARE(w, (std::vector<float>{1, 2}));

    // Messages: rank 1 sends a header then its data; rank 0 takes the header from any rank.
    if (rank == 1) {
        const std::vector<std::int64_t> head{7, 3};
        const std::vector<float> data{1.5f, 2.5f, 3.5f};
        c.send(std::span<const std::int64_t>(head), 0, 5);
        c.send(std::span<const float>(data), 0, 6);
    } else {
        std::vector<std::int64_t> head(2);
        QCOMPARE(c.recvAny(std::span<std::int64_t>(head), 5), 1);
        QCOMPARE(head, (std::vector<std::int64_t>{7, 3}));
        std::vector<float> data(static_cast<std::size_t>(head[1]));
        c.recv(std::span<float>(data), 1, 6);
        QCOMPARE(data, (std::vector<float>{1.5f, 2.5f, 3.5f}));
    }
    // A counter in the store: each rank takes 10 tickets; together they are 1..20, none twice.
    std::vector<std::int64_t> mine;
    for (int k = 0; k < 10; ++k)
        mine.push_back(c.add("tickets", 1));
    std::vector<std::int64_t> all(20, 0);
    for (std::int64_t t : mine) {
        QVERIFY(t >= 1 && t <= 20);
        all[static_cast<std::size_t>(t - 1)] = 1 + rank;
    }
    c.allreduceSum(std::span<double>()); // (an empty collective is a no-op)
    std::vector<float> marks(all.begin(), all.end());
    c.allreduceSum(std::span<float>(marks));
    for (float m : marks) // every ticket taken by exactly one rank (1 or 2, not 0 or 3)
        QVERIFY(m == 1.0f || m == 2.0f);
    QCOMPARE(std::count(marks.begin(), marks.end(), 1.0f) + std::count(marks.begin(), marks.end(), 2.0f), 20);
    QCOMPARE(std::count(marks.begin(), marks.end(), 1.0f), 10);
    c.barrier();
}

} // namespace

class TestGlooCommunicator : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void collectivesOverAFileStore()
    {
        QTemporaryDir dir;
        Rendezvous r;
        r.file = dir.filePath("store").toStdString();
        r.timeout = std::chrono::seconds(60);
        const auto errors = twoRanks(r, exercise);
        QVERIFY2(errors[0].empty() && errors[1].empty(), (errors[0] + " | " + errors[1]).c_str());
    }

    void collectivesOverATcpStore()
    {
        Rendezvous r;
        r.host = "127.0.0.1";
        r.port = setscope::testing::freePort();
        r.timeout = std::chrono::seconds(60);
        const auto errors = twoRanks(r, exercise);
        QVERIFY2(errors[0].empty() && errors[1].empty(), (errors[0] + " | " + errors[1]).c_str());
    }

    void aRankThatNeverComes()
    {
        QTemporaryDir dir;
        Rendezvous r;
        r.file = dir.filePath("store").toStdString();
        r.worldSize = 2;
        r.timeout = std::chrono::seconds(2);
        const auto t0 = std::chrono::steady_clock::now();
        try {
            connectGloo(r);
            QFAIL("joined a run of two alone");
        } catch (const PeerLost& e) {
            QVERIFY2(QString(e.what()).startsWith("rank 0 of 2 (") && QString(e.what()).contains("cannot join the run"),
                     e.what());
        }
        QVERIFY(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(60));
    }

    void aRankThatLeaves()
    {
        QTemporaryDir dir;
        Rendezvous r;
        r.file = dir.filePath("store").toStdString();
        r.timeout = std::chrono::seconds(60);
        std::binary_semaphore gone(0);
        auto body = [&](int rank, Communicator& c) {
            std::vector<float> f{1.0f};
            c.allreduceSum(std::span<float>(f)); // both are in
            if (rank == 1)
                return; // leaves: its process group is destroyed, then it says so
            gone.acquire();
            c.allreduceSum(std::span<float>(f));
        };
        const auto t0 = std::chrono::steady_clock::now();
        const auto errors = twoRanks(r, body, [&](int rank) {
            if (rank == 1)
                gone.release();
        });
        QCOMPARE(errors[1], std::string());
        const QString caught = QString::fromStdString(errors[0]);
        QVERIFY2(caught.startsWith("rank 0 of 2: all-reduce failed: ") && caught.contains("another rank stopped"),
                 qPrintable(caught));
        QVERIFY(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(60));
    }
};

QTEST_GUILESS_MAIN(TestGlooCommunicator)
#include "tst_GlooCommunicator.moc"
