// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The launchers' environment conventions (torchrun, SLURM, setscope-cli --nproc) read into a
// Rendezvous, and the errors for an incomplete one.
#include "core/dist/Rendezvous.h"

#include <QtTest>

#include <map>
#include <string>

using namespace setscope::dist;

namespace {

Getenv env(std::map<std::string, std::string> vars)
{
    auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
    return [shared](const char* name) -> const char* {
        const auto it = shared->find(name);
        return it == shared->end() ? nullptr : it->second.c_str();
    };
}

QString errorOf(const Getenv& e)
{
    try {
        rendezvousFromEnvironment(e);
    } catch (const std::invalid_argument& x) {
        return QString::fromStdString(x.what());
    }
    return {};
}

} // namespace

class TestRendezvous : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void noEnvironmentIsOneProcess()
    {
        QVERIFY(!rendezvousFromEnvironment(env({})));
        QVERIFY(!rendezvousFromEnvironment(env({{"WORLD_SIZE", "1"}, {"RANK", "0"}})));
        QVERIFY(!rendezvousFromEnvironment(env({{"SLURM_NTASKS", "1"}, {"SLURM_PROCID", "0"}})));
    }

    void torchrunEnvironment()
    {
        const auto r = rendezvousFromEnvironment(env({{"WORLD_SIZE", "8"},
                                                      {"RANK", "5"},
                                                      {"LOCAL_RANK", "1"},
                                                      {"MASTER_ADDR", "node0"},
                                                      {"MASTER_PORT", "29400"},
                                                      {"TORCHELASTIC_RUN_ID", "job"}}));
        QVERIFY(r);
        QCOMPARE(r->rank, 5);
        QCOMPARE(r->worldSize, 8);
        QCOMPARE(r->localRank, 1);
        QCOMPARE(r->host, std::string("node0"));
        QCOMPARE(r->port, 29400);
        QVERIFY(r->file.empty());
        QVERIFY(!r->agentStore);
        QCOMPARE(r->origin, std::string("torchrun"));
        QCOMPARE(QString::fromStdString(r->describe()), QString("rank 5 of 8 (torchrun, TCP store node0:29400)"));
    }

    void torchrunAgentStore()
    {
        // torchrun serves the store itself: every rank is a client, under the restart's prefix.
        const auto r = rendezvousFromEnvironment(env({{"WORLD_SIZE", "2"},
                                                      {"RANK", "0"},
                                                      {"MASTER_ADDR", "127.0.0.1"},
                                                      {"MASTER_PORT", "29500"},
                                                      {"TORCHELASTIC_USE_AGENT_STORE", "True"},
                                                      {"TORCHELASTIC_RESTART_COUNT", "3"}}));
        QVERIFY(r);
        QVERIFY(r->agentStore);
        QCOMPARE(r->restartCount, 3);
        QCOMPARE(r->port, 29500);
        const auto off = rendezvousFromEnvironment(
            env({{"WORLD_SIZE", "2"}, {"RANK", "0"}, {"MASTER_ADDR", "h"}, {"TORCHELASTIC_USE_AGENT_STORE", "False"}}));
        QVERIFY(off && !off->agentStore);
        QCOMPARE(off->port, 29500); // torchrun's default port
    }

    void slurmEnvironment()
    {
        const auto r = rendezvousFromEnvironment(env({{"SLURM_NTASKS", "64"},
                                                      {"SLURM_PROCID", "63"},
                                                      {"SLURM_LOCALID", "0"},
                                                      {"MASTER_ADDR", "n001"}}));
        QVERIFY(r);
        QCOMPARE(r->rank, 63);
        QCOMPARE(r->worldSize, 64);
        QCOMPARE(r->origin, std::string("SLURM"));
        QVERIFY(errorOf(env({{"SLURM_NTASKS", "4"}, {"SLURM_PROCID", "1"}})).contains("set MASTER_ADDR to the first node"));
    }

    void localRanksUseAFileStore()
    {
        const auto r = rendezvousFromEnvironment(env({{"WORLD_SIZE", "2"},
                                                      {"RANK", "1"},
                                                      {"SETSCOPE_DIST_STORE", "file:/tmp/x/store"},
                                                      {"SETSCOPE_DIST_TIMEOUT", "90"}}));
        QVERIFY(r);
        QCOMPARE(r->file, std::string("/tmp/x/store"));
        QCOMPARE(r->timeout, std::chrono::milliseconds(90000));
        QVERIFY(errorOf(env({{"WORLD_SIZE", "2"}, {"RANK", "1"}, {"SETSCOPE_DIST_STORE", "tcp://x"}})).contains("expected file:PATH"));
    }

    void badValuesNameTheVariable()
    {
        QCOMPARE(errorOf(env({{"WORLD_SIZE", "2"}, {"RANK", "2"}, {"MASTER_ADDR", "h"}})),
                 QString("the environment variable RANK='2' is not an integer in [0, 1]"));
        QCOMPARE(errorOf(env({{"WORLD_SIZE", "two"}})),
                 QString("the environment variable WORLD_SIZE='two' is not an integer in [1, 1048576]"));
        QCOMPARE(errorOf(env({{"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}})),
                 QString("the environment variable RANK is not set"));
        QVERIFY(errorOf(env({{"WORLD_SIZE", "2"}, {"RANK", "0"}})).contains("MASTER_ADDR is not set"));
        QVERIFY(errorOf(env({{"WORLD_SIZE", "2"}, {"RANK", "0"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "70000"}}))
                    .contains("MASTER_PORT='70000'"));
    }
};

QTEST_GUILESS_MAIN(TestRendezvous)
#include "tst_Rendezvous.moc"
