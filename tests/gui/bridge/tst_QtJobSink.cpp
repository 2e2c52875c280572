// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// QtJobSink (gui/bridge/QtJobSink.h): any job's calls, made on its worker thread, arrive as
// queued signals on the GUI thread, in order; and the sink a job is given is no more than a
// job::ProgressSink (a training run given it reports progress and its end, nothing else).
#include "core/train/TrainingSink.h"
#include "gui/bridge/QtJobSink.h"

#include <QtTest/QtTest>

#include <thread>

using setscope::gui::QtJobSink;
using setscope::job::JobStatus;

class TestQtJobSink : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void workerCallsArriveQueuedOnGuiThread()
    {
        QtJobSink sink;
        QStringList order;
        QList<QThread*> threads;
        qint64 done = 0, total = 0;
        QString what, text, detail;
        int status = -1;
        auto record = [&](const char* name) {
            order << QString::fromLatin1(name);
            threads << QThread::currentThread();
        };
        connect(&sink, &QtJobSink::progressReported, this, [&](qint64 d, qint64 t, const QString& w) {
            record("progress");
            done = d;
            total = t;
            what = w;
        });
        connect(&sink, &QtJobSink::messageReported, this, [&](const QString& t) {
            record("message");
            text = t;
        });
        connect(&sink, &QtJobSink::jobFinished, this, [&](int s, const QString& d) {
            record("finished");
            status = s;
            detail = d;
        });
        setscope::job::ProgressSink* target = sink.reportTarget();
        QVERIFY(target);
        std::thread worker([target] {
            target->progress(7, 0, "reading ü.csv");
            target->message("line 3: skipped");
            target->finished(JobStatus::Cancelled, "");
        });
        worker.join();
        QVERIFY(order.isEmpty()); // nothing ran on the worker thread

        QTRY_COMPARE(order.size(), 3);
        QCOMPARE(order, QStringList({"progress", "message", "finished"}));
        for (QThread* t : threads)
            QCOMPARE(t, qApp->thread());
        QCOMPARE(done, 7);
        QCOMPARE(total, 0);
        QCOMPARE(what, QString::fromUtf8("reading \xc3\xbc.csv"));
        QCOMPARE(text, QStringLiteral("line 3: skipped"));
        QCOMPARE(status, static_cast<int>(JobStatus::Cancelled));
        QVERIFY(detail.isEmpty());
    }

    // A plain job sink does not pretend to be a training sink: train::TrainingJob asks its
    // sink's type (dynamic_cast) and a QtJobSink's target must answer "no".
    void isNotATrainingSink()
    {
        QtJobSink sink;
        QVERIFY(dynamic_cast<setscope::train::TrainingSink*>(sink.reportTarget()) == nullptr);
    }
};

QTEST_MAIN(TestQtJobSink)
#include "tst_QtJobSink.moc"
