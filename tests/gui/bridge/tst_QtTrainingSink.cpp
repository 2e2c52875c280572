// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/bridge/QtTrainingSink.h"

#include <QtTest/QtTest>

#include <thread>

using setscope::gui::QtTrainingSink;
using setscope::train::EpochMetrics;
using setscope::job::JobStatus;

class TestQtTrainingSink : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void metaTypeIsRegistered()
    {
        QtTrainingSink sink;
        QVERIFY(QMetaType::fromName("setscope::train::EpochMetrics").isValid());
    }

    // A job calls the sink on its worker thread; every slot must run later, queued, on the
    // GUI thread, in the order of the calls and with the values passed.
    void workerCallsArriveQueuedOnGuiThread()
    {
        QtTrainingSink sink;
        QStringList order;
        QList<QThread*> threads;
        qint64 done = 0, total = 0, step = 0;
        double loss = 0.0;
        QString what, text, detail;
        EpochMetrics got;
        int status = -1;
        auto record = [&](const char* name) {
            order << QString::fromLatin1(name);
            threads << QThread::currentThread();
        };
        connect(&sink, &setscope::gui::QtJobSink::progressReported, this, [&](qint64 d, qint64 t, const QString& w) {
            record("progress");
            done = d;
            total = t;
            what = w;
        });
        connect(&sink, &setscope::gui::QtJobSink::messageReported, this, [&](const QString& t) {
            record("message");
            text = t;
        });
        connect(&sink, &QtTrainingSink::stepLossReported, this, [&](qint64 s, double l) {
            record("stepLoss");
            step = s;
            loss = l;
        });
        connect(&sink, &QtTrainingSink::epochMetricsReported, this, [&](const EpochMetrics& m) {
            record("epochMetrics");
            got = m;
        });
        connect(&sink, &setscope::gui::QtJobSink::jobFinished, this, [&](int s, const QString& d) {
            record("finished");
            status = s;
            detail = d;
        });

        // What a training job sees: Job::start's sink, which is a TrainingSink.
        auto* s = dynamic_cast<setscope::train::TrainingSink*>(sink.reportTarget());
        QVERIFY(s);
        std::thread::id workerId;
        std::thread worker([&] {
            workerId = std::this_thread::get_id();
            s->progress(3, 10, "epoch 1/2");
            s->message("hello from the worker");
            s->stepLoss(42, 0.25);
            EpochMetrics m;
            m.epoch = 2;
            m.step = 200;
            m.meanLoss = 0.125;
            m.stage = "fine-tune";
            m.values = {{"knn-accuracy", 0.75}, {"recall-hit@1", 0.5}, {"recall-hit@8", 0.875}};
            m.seconds = 3.5;
            s->epochMetrics(m);
            s->finished(JobStatus::Failed, "disk full");
        });
        worker.join();
        // The GUI thread has not processed events yet: nothing may have run directly.
        QVERIFY(order.isEmpty());
        QVERIFY(workerId != std::this_thread::get_id());

        QTRY_COMPARE(order.size(), 5);
        QCOMPARE(order, QStringList({"progress", "message", "stepLoss", "epochMetrics", "finished"}));
        for (QThread* t : threads)
            QCOMPARE(t, qApp->thread());
        QCOMPARE(done, 3);
        QCOMPARE(total, 10);
        QCOMPARE(what, QStringLiteral("epoch 1/2"));
        QCOMPARE(text, QStringLiteral("hello from the worker"));
        QCOMPARE(step, 42);
        QCOMPARE(loss, 0.25);
        QCOMPARE(got.epoch, 2);
        QCOMPARE(got.step, 200);
        QCOMPARE(got.meanLoss, 0.125);
        QCOMPARE(got.stage, std::string("fine-tune"));
        QCOMPARE(got.values, (std::vector<std::pair<std::string, double>>{{"knn-accuracy", 0.75}, {"recall-hit@1", 0.5}, {"recall-hit@8", 0.875}}));
        QCOMPARE(got.seconds, 3.5);
        QCOMPARE(status, static_cast<int>(JobStatus::Failed));
        QCOMPARE(detail, QStringLiteral("disk full"));
    }

    void manyCallsFromSeveralThreadsAllArrive()
    {
        QtTrainingSink sink;
        int received = 0;
        qint64 sum = 0;
        connect(&sink, &QtTrainingSink::stepLossReported, this, [&](qint64 s, double) {
            QCOMPARE(QThread::currentThread(), qApp->thread());
            ++received;
            sum += s;
        });
        std::vector<std::thread> workers;
        for (int t = 0; t < 4; ++t)
            workers.emplace_back([&sink, t] {
                auto* target = static_cast<setscope::train::TrainingSink*>(sink.reportTarget());
                for (int i = 1; i <= 250; ++i)
                    target->stepLoss(t * 1000 + i, 0.0);
            });
        for (auto& w : workers)
            w.join();
        QTRY_COMPARE(received, 1000);
        // sum over t of (250 * 1000 t + 250*251/2)
        QCOMPARE(sum, qint64(250 * 1000 * (0 + 1 + 2 + 3) + 4 * (250 * 251 / 2)));
    }
};

QTEST_MAIN(TestQtTrainingSink)
#include "tst_QtTrainingSink.moc"
