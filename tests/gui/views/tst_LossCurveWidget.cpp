// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/views/LossCurveWidget.h"

#include <QtTest/QtTest>

#include <cmath>

using setscope::gui::LossCurveWidget;

namespace {

// The curve is blue, anti-aliased over a white-ish base: a pixel mostly covered by it is
// clearly bluer than red (the faint min-max band and the grey grid are not).
bool isLine(QColor c) { return c.blue() - c.red() > 35; }

/// Mean y of the curve's pixels in columns [x0, x1) (-1 when none).
double curveY(const QImage& img, int x0, int x1)
{
    double sum = 0;
    int n = 0;
    for (int x = x0; x < x1; ++x)
        for (int y = 0; y < img.height(); ++y)
            if (isLine(img.pixelColor(x, y))) {
                sum += y;
                ++n;
            }
    return n ? sum / n : -1.0;
}

} // namespace

class TestLossCurveWidget : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void emptyWidgetSaysWhatWillAppear()
    {
        LossCurveWidget w;
        w.resize(400, 200);
        const QImage img = w.grab().toImage();
        QVERIFY(!img.isNull());
        // Not one flat colour: the frame and the hint text are drawn.
        QSet<QRgb> colours;
        for (int y = 0; y < img.height(); y += 2)
            for (int x = 0; x < img.width(); x += 2)
                colours.insert(img.pixel(x, y));
        QVERIFY(colours.size() > 2);
    }

    // loss = 1 / (1 + step / 100) over 2 000 steps: the curve starts high on the left and
    // ends low on the right, decimated to one bucket per pixel column.
    void decreasingLossIsDrawnFromTopLeftToBottomRight()
    {
        LossCurveWidget w;
        w.resize(500, 240);
        w.setTotalSteps(2000);
        for (int s = 1; s <= 2000; ++s)
            w.addLoss(s, 1.0 / (1.0 + s / 100.0) + (s % 7) * 0.002);
        w.addEpochMarker(1000, 1);
        w.addEpochMarker(2000, 2);
        QCOMPARE(w.pointCount(), std::size_t(2000));
        const QImage img = w.grab().toImage();
        img.save(QDir(QStringLiteral(SETSCOPE_BINARY_DIR)).filePath(QStringLiteral("tst_loss_curve.png")));

        int linePixels = 0;
        for (int y = 0; y < img.height(); ++y)
            for (int x = 0; x < img.width(); ++x)
                linePixels += isLine(img.pixelColor(x, y));
        QVERIFY2(linePixels > 300, qPrintable(QString::number(linePixels)));

        int first = 0; // the curve's first column: the first steps
        while (first < img.width() && curveY(img, first, first + 1) < 0)
            ++first;
        const double left = curveY(img, first, first + 6);
        const double right = curveY(img, img.width() - 60, img.width() - 20);
        QVERIFY(left > 0 && right > 0);
        QVERIFY2(left < img.height() * 0.35, qPrintable(QString::number(left)));  // high loss: near the top
        QVERIFY2(right > img.height() * 0.55, qPrintable(QString::number(right))); // low loss: lower
    }

    void nonFiniteLossesAreSkippedAndClearEmpties()
    {
        LossCurveWidget w;
        w.addLoss(1, 0.5);
        w.addLoss(2, std::nan(""));
        w.addLoss(3, INFINITY);
        QCOMPARE(w.pointCount(), std::size_t(1));
        w.clear();
        QCOMPARE(w.pointCount(), std::size_t(0));
        w.resize(200, 120);
        QVERIFY(!w.grab().isNull());
    }
};

QTEST_MAIN(TestLossCurveWidget)
#include "tst_LossCurveWidget.moc"
