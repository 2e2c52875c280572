// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The GUI's Fetch: Session::fetch runs fetch::FetchJob on a worker thread, reports progress,
// ends with fetchFinished; a cancelled fetch changes nothing. The registry is a fake
// apt-get first on PATH that hands out a .deb the test built (no network).
#include "gui/session/Session.h"

#include "core/builtins/Builtins.h"
#include "core/data/Dataset.h"
#include "core/fetch/Catalog.h"
#include "core/plugin/Registry.h"
#include "core/job/ProgressSink.h"
#include "tests/core/fetch/FetchFixtures.h"

#include <QtTest/QtTest>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace setscope;


class TestSessionFetch : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        const fs::path root = m_dir.path().toStdString();
        const fs::path repo = root / "repo", bin = root / "bin";
        fixtures::writeFile(bin / "apt-get", fixtures::kFakeAptGet);
        fs::permissions(bin / "apt-get", fs::perms::owner_all);
        std::string sdf;
        for (const char* act : {"6.5", "7.25"})
            sdf += "mol\n  test\n\n  1  0  0  0  0  0  0  0  0  0999 V2000\n"
                   "    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0\nM  END\n"
                   "> <ACTIVITY>\n" + std::string(act) + "\n\n$$$$\n";
        const std::string error =
            fixtures::makeDeb(repo / "rdkit-data.deb", "rdkit-data", {{"usr/share/RDKit/Projects/DbCLI/testData/bzr.sdf", sdf}});
        QVERIFY2(error.empty(), error.c_str());
        qputenv("PATH", QByteArray::fromStdString(bin.string()) + ":" + qgetenv("PATH"));
        qputenv("FAKE_REPO", QByteArray::fromStdString(repo.string()));
        qputenv("FAKE_LOG", QByteArray::fromStdString((root / "log.txt").string()));
        qputenv("SETSCOPE_DATA_DIR", QByteArray::fromStdString((root / "data").string()));
        builtins::registerBuiltins(m_registry);
    }

    void fetchThenOpen()
    {
        gui::Session session(m_registry);
        QSignalSpy changing(&session, &gui::Session::fetchingChanged);
        QSignalSpy finished(&session, &gui::Session::fetchFinished);
        QVERIFY(!fetch::isFetched("bzr"));
        QVERIFY(session.fetch(QStringLiteral("bzr")));
        QVERIFY(session.isFetching());
        QVERIFY(!session.fetch(QStringLiteral("digits"))); // one at a time
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.at(0).at(0).toString(), QStringLiteral("bzr"));
        QCOMPARE(finished.at(0).at(1).toInt(), int(job::JobStatus::Finished));
        QVERIFY(!session.isFetching());
        QCOMPARE(changing.size(), 2); // true, then false
        QVERIFY(fetch::isFetched("bzr"));

        QSignalSpy opened(&session, &gui::Session::datasetChanged);
        session.load(QStringLiteral("bzr"));
        QVERIFY(opened.wait(60000));
        QCOMPARE(session.dataset()->size(), std::size_t(2));
    }

    // Cancel during a download that never ends by itself (the fake apt-get sleeps an hour):
    // the fetch ends Cancelled, apt-get is killed, nothing is left. Without a working cancel
    // the fetch would last that hour; no wall clock is needed to tell.
    void cancelLeavesNothing()
    {
        const fs::path pids = fs::path(m_dir.path().toStdString()) / "slow.pids";
        fixtures::ScopedEnv slow("FAKE_SLOW", pids.string());
        gui::Session session(m_registry);
        QSignalSpy finished(&session, &gui::Session::fetchFinished);
        QVERIFY(session.fetch(QStringLiteral("digits")));
        const std::vector<pid_t> aptGet = fixtures::waitForSlowPids(pids);
        QCOMPARE(aptGet.size(), std::size_t(2)); // apt-get is downloading
        QVERIFY(session.isFetching());
        session.cancelFetch();
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.at(0).at(1).toInt(), int(job::JobStatus::Cancelled));
        QVERIFY(!session.isFetching());
        for (pid_t p : aptGet)
            QVERIFY2(fixtures::waitUntilEnded(p), qPrintable(QString::number(p)));
        QVERIFY(!fetch::isFetched("digits"));
        QVERIFY(!fs::exists(fs::path(fetch::sourceDir("digits"))));
    }

private:
    QTemporaryDir m_dir;
    plugin::Registry m_registry;
};

QTEST_MAIN(TestSessionFetch)
#include "tst_SessionFetch.moc"
