// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/text/Corpus.h"

#include <setscope/sdk/Errors.h>

#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace setscope::data;
using setscope::sdk::InputError;
using setscope::sdk::Split;

namespace fs = std::filesystem;

namespace {

void write(const fs::path& p, const std::string& text)
{
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
}

} // namespace

class TestCorpus : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() { QVERIFY(m_dir.isValid()); }
    void tsvTwoColumns();
    void tsvWithSplits();
    void tsvErrors_data();
    void tsvErrors();
    void folderFlat();
    void folderWithSplits();
    void folderErrors();
    void detection();

private:
    QTemporaryDir m_dir;
    fs::path root() const { return m_dir.path().toStdString(); }
};

void TestCorpus::tsvTwoColumns()
{
    const fs::path p = root() / "corpus.tsv";
    write(p, "# a comment\n\nsport\tThe match ended 2-1.\r\npolitics\t\ntech\tcaf\xC3\xA9 \xE2\x82\xAC\n");
    const Corpus c = readCorpusTsv(p.string());
    QCOMPARE(c.size(), std::size_t(3));
    QCOMPARE(c.labels, (std::vector<std::string>{"sport", "politics", "tech"}));
    QCOMPARE(c.texts[0], std::string("The match ended 2-1."));
    QCOMPARE(c.texts[1], std::string()); // empty document: kept here, dropped later with a note
    QCOMPARE(c.texts[2], std::string("caf\xC3\xA9 \xE2\x82\xAC"));
    QCOMPARE(c.ids[0], std::string("corpus.tsv:3"));
    QCOMPARE(c.ids[2], std::string("corpus.tsv:5"));
    QVERIFY(!c.hasSplits());
    QCOMPARE(c.sourceFiles, std::vector<std::string>{p.string()});
}

void TestCorpus::tsvWithSplits()
{
    const fs::path p = root() / "s.tsv";
    write(p, "a\tx y\ttrain\nb\tz\ttest\na\tw\tval\n");
    const Corpus c = readCorpusTsv(p.string());
    QCOMPARE(c.splits, (std::vector<Split>{Split::Train, Split::Test, Split::Val}));
    QCOMPARE(c.texts[0], std::string("x y"));
}

void TestCorpus::tsvErrors_data()
{
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("expected");
    QTest::newRow("no tab") << QByteArray("a\tok\nno tab here\n") << "(line 2): expected 'label<TAB>text'";
    QTest::newRow("empty label") << QByteArray("\ttext\n") << "(line 1): empty label";
    QTest::newRow("four fields") << QByteArray("a\tb\ttrain\textra\n") << "(line 1): more than three";
    QTest::newRow("unknown split") << QByteArray("a\tb\tdev\n") << "(line 1): unknown split 'dev'";
    QTest::newRow("split then none") << QByteArray("a\tb\ttrain\n# c\na\tc\n") << "(line 3): this line has no split";
    QTest::newRow("none then split") << QByteArray("a\tb\na\tc\ttest\n") << "(line 2): this line has a split";
    QTest::newRow("invalid utf-8") << QByteArray("a\tok\nb\tbad \xFF byte\n") << "(line 2): not valid UTF-8";
    QTest::newRow("only comments") << QByteArray("# nothing\n\n") << "no documents";
}

void TestCorpus::tsvErrors()
{
    QFETCH(QByteArray, content);
    QFETCH(QString, expected);
    const fs::path p = root() / "bad.tsv";
    write(p, content.toStdString());
    try {
        readCorpusTsv(p.string());
        QFAIL("no error");
    } catch (const InputError& e) {
        const QString msg = QString::fromStdString(e.what());
        QVERIFY2(msg.contains(expected), qPrintable(msg));
        QVERIFY2(msg.startsWith(QString::fromStdString(p.string())), qPrintable(msg));
    }
    QVERIFY_THROWS_EXCEPTION(InputError, readCorpusTsv((root() / "missing.tsv").string()));
}

void TestCorpus::folderFlat()
{
    const fs::path r = root() / "flat";
    write(r / "b-class" / "2.txt", "second b");
    write(r / "b-class" / "1.txt", "first b");
    write(r / "a-class" / "x.txt", "an a");
    write(r / "a-class" / "notes.md", "skipped");
    write(r / "a-class" / ".hidden.txt", "ignored");
    write(r / "README", "top-level readme");
    const Corpus c = readCorpusFolder(r.string());
    QCOMPARE(c.ids, (std::vector<std::string>{"a-class/x.txt", "b-class/1.txt", "b-class/2.txt"}));
    QCOMPARE(c.labels, (std::vector<std::string>{"a-class", "b-class", "b-class"}));
    QCOMPARE(c.texts[1], std::string("first b"));
    QVERIFY(!c.hasSplits());
    QCOMPARE(c.notes.size(), std::size_t(1));
    QVERIFY(QString::fromStdString(c.notes[0]).contains("1 entries"));
    QVERIFY(looksLikeCorpusFolder(r.string()));
    QCOMPARE(readCorpus(r.string()).size(), std::size_t(3));
}

void TestCorpus::folderWithSplits()
{
    const fs::path r = root() / "split";
    write(r / "pos" / "train" / "a.txt", "good");
    write(r / "pos" / "test" / "b.txt", "great");
    write(r / "neg" / "train" / "c.txt", "bad");
    const Corpus c = readCorpusFolder(r.string());
    QCOMPARE(c.ids, (std::vector<std::string>{"neg/train/c.txt", "pos/test/b.txt", "pos/train/a.txt"}));
    QCOMPARE(c.splits, (std::vector<Split>{Split::Train, Split::Test, Split::Train}));
}

void TestCorpus::folderErrors()
{
    const fs::path mixed = root() / "mixed";
    write(mixed / "a" / "train" / "x.txt", "x");
    write(mixed / "b" / "y.txt", "y");
    QVERIFY_THROWS_EXCEPTION(InputError, readCorpusFolder(mixed.string()));
    const fs::path both = root() / "both";
    write(both / "a" / "train" / "x.txt", "x");
    write(both / "a" / "y.txt", "y");
    QVERIFY_THROWS_EXCEPTION(InputError, readCorpusFolder(both.string()));
    const fs::path empty = root() / "empty";
    fs::create_directories(empty / "a");
    QVERIFY_THROWS_EXCEPTION(InputError, readCorpusFolder(empty.string()));
    const fs::path badUtf = root() / "badutf";
    write(badUtf / "a" / "x.txt", "bad \xC3");
    try {
        readCorpusFolder(badUtf.string());
        QFAIL("no error");
    } catch (const InputError& e) {
        QVERIFY2(QString::fromStdString(e.what()).contains("x.txt"), e.what());
    }
    QVERIFY_THROWS_EXCEPTION(InputError, readCorpusFolder((root() / "nothing").string()));
}

void TestCorpus::detection()
{
    const fs::path r = root() / "det";
    write(r / "a" / "x.txt", "x");
    QVERIFY(looksLikeCorpusFolder(r.string()));
    write(r / "data.csv", "1,2");
    QVERIFY(!looksLikeCorpusFolder(r.string())); // a folder with data files of its own is something else
    const fs::path noTxt = root() / "notxt";
    write(noTxt / "a" / "x.png", "");
    QVERIFY(!looksLikeCorpusFolder(noTxt.string()));
    QVERIFY(!looksLikeCorpusFolder((r / "data.csv").string()));
}

QTEST_GUILESS_MAIN(TestCorpus)
#include "tst_Corpus.moc"
