// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// File ▸ Export: the SVG writer's documents parse and escape, PNGs load back, embeddings of a
// run's snapshot read back as .npy / TSV with one metadata row per item, and refusals say why.
#include "gui/views/export/ExportActions.h"

#include "core/data/VectorLoaders.h"
#include "core/util/Faults.h"
#include "gui/views/export/Svg.h"
#include "tests/support/ExplorerFixture.h"

#include <QLabel>
#include <QtTest/QtTest>

#include <cerrno>
#include <cstring>
#include <fstream>

using namespace setscope;

namespace {

bool wellFormed(const QString& svg, QString* error)
{
    QXmlStreamReader xml(svg);
    while (!xml.atEnd())
        xml.readNext();
    *error = xml.errorString();
    return !xml.hasError();
}

int lines(const QString& path)
{
    std::ifstream in(path.toStdString());
    int n = 0;
    for (std::string l; std::getline(in, l);)
        ++n;
    return n;
}

} // namespace

class TestExport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void svgWriterMakesValidDocuments();
    void pngOfAWidget();
    void embeddingsOfASnapshot();
    void refusalsSayWhy();
    void failedWritesKeepThePreviousFile();
};

void TestExport::svgWriterMakesValidDocuments()
{
    gui::SvgWriter svg(200, 100);
    svg.circle(QPointF(10, 10), 3, Qt::red);
    svg.line(QPointF(0, 0), QPointF(5, 5), Qt::blue, 2);
    svg.text(QPointF(5, 50), QStringLiteral("a < b & \"c\""), 12);
    const double h = svg.table(QPointF(0, 60), QStringLiteral("t"), {"x", "y"}, {{"1", "2"}, {"3", "4"}}, {Qt::green});
    QCOMPARE(h, 18.0 + 4 + 18 * 3); // title, header, two rows
    const QString doc = svg.finish();
    QString error;
    QVERIFY2(wellFormed(doc, &error), qPrintable(error));
    QVERIFY(doc.contains("a &lt; b &amp; &quot;c&quot;"));
    QVERIFY(doc.contains("fill=\"#ff0000\""));
}

void TestExport::pngOfAWidget()
{
    QTemporaryDir dir;
    QLabel label(QStringLiteral("hello"));
    label.resize(120, 40);
    const QString path = dir.filePath("label.png");
    QCOMPARE(gui::exporting::savePng(&label, path), QString());
    const QImage back(path);
    QCOMPARE(back.size(), QSize(120, 40));
}

void TestExport::embeddingsOfASnapshot()
{
    QTemporaryDir dir;
    testutil::ExplorerFixture fx;
    fx.open(std::make_shared<const data::Dataset>(
        data::makeHierarchicalGaussians(data::SyntheticSpec::parse("dim=4,coarse=2,fine=2,points=30"))));
    QVERIFY(fx.train());
    const auto snap = fx.session->snapshot();
    QVERIFY(snap);
    const QString npy = dir.filePath("emb.npy");
    QCOMPARE(gui::exporting::saveEmbeddings(*fx.session, npy, false), QString());
    const data::NpyArray a = data::readNpy(npy.toStdString());
    QCOMPARE(a.shape, (std::vector<std::uint64_t>{snap->items.size(), static_cast<std::uint64_t>(snap->dim)}));
    QCOMPARE(a.data, snap->vectors);
    QCOMPARE(lines(dir.filePath("emb.csv")), static_cast<int>(snap->items.size()) + 1);
    QCOMPARE(gui::exporting::saveEmbeddings(*fx.session, dir.filePath("tsv"), true), QString());
    QCOMPARE(lines(dir.filePath("tsv/vectors.tsv")), static_cast<int>(snap->items.size()));
    QCOMPARE(lines(dir.filePath("tsv/metadata.tsv")), static_cast<int>(snap->items.size()) + 1);
    QVERIFY(!QFile::exists(dir.filePath("tsv/vectors.tsv.part")));
}

void TestExport::refusalsSayWhy()
{
    QTemporaryDir dir;
    testutil::ExplorerFixture fx;
    QVERIFY(gui::exporting::saveEmbeddings(*fx.session, dir.filePath("x.npy"), false).contains("Open a dataset"));
    fx.open(std::make_shared<const data::Dataset>(data::makeHierarchicalGaussians(data::SyntheticSpec::parse("points=10"))));
    QVERIFY(gui::exporting::saveEmbeddings(*fx.session, dir.filePath("x.npy"), false).contains("No embeddings yet"));
    QVERIFY(gui::exporting::saveRuns(*fx.session, dir.filePath("r.csv")).contains("Open a project"));
    QVERIFY(gui::exporting::saveSvg(QString(), dir.filePath("x.svg")).contains("nothing to export"));
    QVERIFY(!gui::exporting::saveSvg(QStringLiteral("<svg/>"), dir.filePath("no/such/dir/x.svg")).isEmpty());
}

// PNG and SVG go through core's atomic writer: a failing write, fsync or rename (the fault
// seam) is reported naming the file and the cause, and the previous file stays as it was.
void TestExport::failedWritesKeepThePreviousFile()
{
    QTemporaryDir dir;
    const QString svgPath = dir.filePath("view.svg"), pngPath = dir.filePath("label.png");
    const QString old = QStringLiteral("<svg>old</svg>");
    QCOMPARE(gui::exporting::saveSvg(old, svgPath), QString());
    QLabel label(QStringLiteral("hello"));
    label.resize(60, 20);
    QCOMPARE(gui::exporting::savePng(&label, pngPath), QString());
    QFile png(pngPath);
    QVERIFY(png.open(QIODevice::ReadOnly));
    const QByteArray pngBefore = png.readAll();
    png.close();
    label.resize(90, 30);
    for (int c = 0; c < 3; ++c) {
        const auto call = util::faults::Call(c);
        const int err = c == 0 ? ENOSPC : EIO;
        {
            util::faults::Armed fault(call, 1, err, "view.svg");
            const QString msg = gui::exporting::saveSvg(QStringLiteral("<svg>new</svg>"), svgPath);
            QVERIFY2(msg.contains(svgPath) && msg.contains(QString::fromUtf8(std::strerror(err))), qPrintable(msg));
        }
        {
            util::faults::Armed fault(call, 1, err, "label.png");
            const QString msg = gui::exporting::savePng(&label, pngPath);
            QVERIFY2(msg.contains(pngPath) && msg.contains(QString::fromUtf8(std::strerror(err))), qPrintable(msg));
        }
        QFile svg(svgPath);
        QVERIFY(svg.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(svg.readAll()), old);
        QVERIFY(png.open(QIODevice::ReadOnly));
        QCOMPARE(png.readAll(), pngBefore);
        png.close();
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), (QStringList{"label.png", "view.svg"}));
    }
    QCOMPARE(gui::exporting::savePng(&label, pngPath), QString());
    QCOMPARE(QImage(pngPath).size(), QSize(90, 30));
}

QTEST_MAIN(TestExport)
#include "tst_Export.moc"
