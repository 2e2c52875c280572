// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "tests/core/fetch/corpora/CorpusTestUtil.h"

#include <QtTest>

using namespace setscope::fetch::corpora;
using namespace corpustest;

namespace {

// The licence header as WordNet 3.0 ships it: every line starts with two spaces.
const std::string kHeader = "  1 This software and database is being provided to you, the LICENSEE, by  \n"
                            "  2 Princeton University under the following license.  By obtaining, using  \n"
                            "  3   \n";

// Real synset lines (wndb(5WN) layout) shortened to a few pointers.
const std::string kNoun =
    kHeader +
    "00001740 03 n 01 entity 0 003 ~ 00001930 n 0000 ~ 00002137 n 0000 ~ 04424418 n 0000 | that which is "
    "perceived or known or inferred to have its own distinct existence (living or nonliving)  \n"
    "02084071 05 n 02 dog 0 domestic_dog 0 001 @ 02083346 n 0000 | a member of the genus Canis; \"the dog barked "
    "all night\"  \n";
const std::string kVerb =
    kHeader + "00001740 29 v 04 breathe 0 take_a_breath 0 respire 0 suspire 3 002 * 00005041 v 0000 + 03110322 a "
              "0301 02 + 02 00 + 08 00 | draw air into, and expel out of, the lungs  \n";
const std::string kAdj = kHeader +
                         "00001740 00 a 01 able 0 001 ! 00002098 a 0101 | (usually followed by `to') having the "
                         "necessary means  \n"
                         "00002312 00 s 01 abaxial(a) 0 000 | facing away from the axis  \n"
                         "01234567 44 a 01 worn 0 000 | affected by wear  \n";
const std::string kAdv = kHeader + "00001740 02 r 01 a_cappella 0 000 | without musical accompaniment  \n";

} // namespace

class TestWordnetGlosses : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() { QVERIFY(m_dir.isValid()); }
    void glossesLabelledByLexicographerFile();
    void lexnamesFileIsUsed();
    void synsetWordsOption();
    void balancedSubset();
    void repeatedGlossesAreNoted();
    void missingFileIsNoted();
    void badInput_data();
    void badInput();

private:
    QString dictWithAllFour(const QString& name)
    {
        const QString d = m_dir.filePath(name);
        writeFile(d + "/data.noun", kNoun);
        writeFile(d + "/data.verb", kVerb);
        writeFile(d + "/data.adj", kAdj);
        writeFile(d + "/data.adv", kAdv);
        return d;
    }

    QTemporaryDir m_dir;
};

void TestWordnetGlosses::glossesLabelledByLexicographerFile()
{
    const QString d = dictWithAllFour("all");
    const QString out = m_dir.filePath("out/all/corpus.tsv"); // parent folders are created
    const CorpusStats s = writeWordnetGlosses(d.toStdString(), out.toStdString());
    const std::string expected =
        "noun.Tops\tthat which is perceived or known or inferred to have its own distinct existence (living or "
        "nonliving)\n"
        "noun.animal\ta member of the genus Canis; \"the dog barked all night\"\n"
        "verb.body\tdraw air into, and expel out of, the lungs\n"
        "adj.all\t(usually followed by `to') having the necessary means\n"
        "adj.all\tfacing away from the axis\n"
        "adj.ppl\taffected by wear\n"
        "adv.all\twithout musical accompaniment\n";
    QCOMPARE(body(out), expected);
    QCOMPARE(s.documents, std::size_t(7));
    QCOMPARE(s.dropped, std::size_t(0));
    QCOMPARE(s.perLabel.at("adj.all"), std::size_t(2));
    QCOMPARE(s.perLabel.size(), std::size_t(6));
    QVERIFY(!QFile::exists(out + ".part"));
    // Deterministic: a second run gives the same bytes.
    const std::string first = readFile(out);
    writeWordnetGlosses(d.toStdString(), out.toStdString());
    QCOMPARE(readFile(out), first);
}

void TestWordnetGlosses::lexnamesFileIsUsed()
{
    const QString d = dictWithAllFour("lexnames");
    // Tab separated "number name category" (lexnames(5WN)); renamed classes prove it is read.
    std::string lex;
    for (int i = 0; i < 45; ++i) {
        const int cat = i == 2 ? 4 : (i <= 1 || i == 44) ? 3 : i <= 28 ? 1 : 2;
        char num[3];
        std::snprintf(num, sizeof num, "%02d", i);
        lex += std::string(num) + "\tfile" + num + "\t" + std::to_string(cat) + "\n";
    }
    writeFile(d + "/lexnames", lex);
    const QString out = m_dir.filePath("lexnames.tsv");
    const CorpusStats s = writeWordnetGlosses(d.toStdString(), out.toStdString());
    QCOMPARE(s.perLabel.at("file05"), std::size_t(1));
    QCOMPARE(s.perLabel.at("file00"), std::size_t(2));
    QVERIFY(readFile(out).find("\nfile29\tdraw air into") != std::string::npos);
}

void TestWordnetGlosses::synsetWordsOption()
{
    const QString d = m_dir.filePath("words");
    writeFile(d + "/data.noun", kNoun);
    writeFile(d + "/data.adj", kAdj);
    const QString out = m_dir.filePath("words.tsv");
    WordnetOptions o;
    o.includeSynsetWords = true;
    writeWordnetGlosses(d.toStdString(), out.toStdString(), o);
    const std::string b = body(out);
    QVERIFY2(b.find("noun.animal\tdog, domestic dog: a member of the genus Canis;") != std::string::npos, b.c_str());
    QVERIFY2(b.find("adj.all\tabaxial: facing away") != std::string::npos, b.c_str()); // (a) marker removed
}

void TestWordnetGlosses::balancedSubset()
{
    // 10 animals and 2 Tops; at most 3 per class.
    std::string noun = kHeader;
    for (int i = 0; i < 10; ++i)
        noun += "0200000" + std::to_string(i) + " 05 n 01 beast" + std::to_string(i) + " 0 000 | animal number " +
                std::to_string(i) + "  \n";
    noun += "00001740 03 n 01 entity 0 000 | top one  \n00001930 03 n 01 thing 0 000 | top two  \n";
    const QString d = m_dir.filePath("balanced");
    writeFile(d + "/data.noun", noun);
    WordnetOptions o;
    o.balancedPerClass = 3;
    const QString out = m_dir.filePath("balanced.tsv");
    const CorpusStats s = writeWordnetGlosses(d.toStdString(), out.toStdString(), o);
    QCOMPARE(s.documents, std::size_t(5));
    QCOMPARE(s.perLabel.at("noun.animal"), std::size_t(3));
    QCOMPARE(s.perLabel.at("noun.Tops"), std::size_t(2)); // smaller classes keep everything
    QCOMPARE(s.dropped, std::size_t(7));
    // The kept animals keep their file order.
    std::vector<int> kept;
    std::istringstream lines(body(out));
    for (std::string l; std::getline(lines, l);)
        if (l.rfind("noun.animal\tanimal number ", 0) == 0)
            kept.push_back(std::stoi(l.substr(std::string("noun.animal\tanimal number ").size())));
    QCOMPARE(kept.size(), std::size_t(3));
    QVERIFY(std::is_sorted(kept.begin(), kept.end()));
    // Same seed, same subset; the choice is not simply the first three.
    const std::string first = readFile(out);
    writeWordnetGlosses(d.toStdString(), out.toStdString(), o);
    QCOMPARE(readFile(out), first);
    bool someSeedDiffers = false;
    for (std::uint64_t seed = 1; seed < 6 && !someSeedDiffers; ++seed) {
        o.seed = seed;
        writeWordnetGlosses(d.toStdString(), out.toStdString(), o);
        someSeedDiffers = readFile(out) != first;
    }
    QVERIFY(someSeedDiffers);
}

void TestWordnetGlosses::repeatedGlossesAreNoted()
{
    // Two noun.animal synsets and one noun.plant synset with the same gloss: all kept, noted.
    const std::string noun = kHeader + "02000001 05 n 01 a 0 000 | same words  \n"
                                       "02000002 05 n 01 b 0 000 | same words  \n"
                                       "02000003 20 n 01 c 0 000 | same words  \n";
    const QString d = m_dir.filePath("repeated");
    writeFile(d + "/data.noun", noun);
    const CorpusStats s = writeWordnetGlosses(d.toStdString(), m_dir.filePath("repeated.tsv").toStdString());
    QCOMPARE(s.documents, std::size_t(3));
    QCOMPARE(s.dropped, std::size_t(0));
    QVERIFY(s.notes.back().find("2 synsets repeat the text of an earlier synset (kept; 1 of them under another label)") !=
            std::string::npos);
}

void TestWordnetGlosses::missingFileIsNoted()
{
    const QString d = m_dir.filePath("nounonly");
    writeFile(d + "/data.noun", kNoun);
    const CorpusStats s = writeWordnetGlosses(d.toStdString(), m_dir.filePath("nounonly.tsv").toStdString());
    QCOMPARE(s.documents, std::size_t(2));
    QCOMPARE(s.notes.size(), std::size_t(3)); // data.verb, data.adj, data.adv
    QVERIFY(s.notes[0].find("data.verb not found") != std::string::npos);
}

void TestWordnetGlosses::badInput_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("content");
    QTest::addColumn<QString>("expect");
    const QString h = QString::fromStdString(kHeader); // 3 lines, so the first synset is line 4
    QTest::newRow("truncated synset line") << "data.noun"
                                           << h + "00001740 03 n 01 entity 0 001 ~ 00001930 n 0000 | fine  \n"
                                                  "02084071 05 n 02 dog 0 domestic_dog 0 001 @ 0208\n"
                                           << "data.noun (line 5): synset line has no \" | \"";
    QTest::newRow("pointer count too high") << "data.noun" << h + "00001740 03 n 01 entity 0 003 ~ 00001930 n 0000 | x\n"
                                            << "data.noun (line 4): synset line ends after 11 fields";
    QTest::newRow("unknown lex_filenum") << "data.noun" << h + "00001740 77 n 01 entity 0 000 | x  \n"
                                         << "data.noun (line 4): unknown lexicographer file number 77";
    QTest::newRow("lex file contradicts type") << "data.noun" << h + "00001740 30 n 01 entity 0 000 | x  \n"
                                               << "contradicts lexicographer file verb.change";
    QTest::newRow("verb type in noun file") << "data.noun" << h + "00001740 30 v 01 go 0 000 00 | x  \n"
                                            << "does not belong in this file";
    QTest::newRow("bad offset") << "data.noun" << h + "1740 03 n 01 entity 0 000 | x  \n"
                                << "(line 4): synset offset \"1740\" is not 8 digits";
    QTest::newRow("extra fields") << "data.noun" << h + "00001740 03 n 01 entity 0 000 zz | x  \n"
                                  << "(line 4): 1 unexpected fields";
    QTest::newRow("no synsets") << "data.noun" << h << "data.noun: holds no synset lines";
    QTest::newRow("bad lexnames") << "lexnames" << "00\tadj.all\n" << "lexnames (line 1): expected";
    QTest::newRow("no data files") << "README" << "nothing" << "no WordNet data files";
    // Digit strings too long for std::stoul: refused as malformed, not escaping as
    // std::out_of_range (issue 12's fetch_lists regression inputs).
    QTest::newRow("lexnames number of 23 digits")
        << "lexnames" << "99999999999999999999999\tnoun.x\t1\n" << "lexnames (line 1): expected";
    QTest::newRow("verb frame count of 23 digits")
        << "data.verb" << h + "00001740 29 v 01 breathe 0 000 99999999999999999999999 | x  \n"
        << "data.verb (line 4): verb frame count \"99999999999999999999999\" is not a number of at most 2 digits";
}

void TestWordnetGlosses::badInput()
{
    QFETCH(QString, file);
    QFETCH(QString, content);
    QFETCH(QString, expect);
    const QString d = m_dir.filePath(QString("bad_") + QTest::currentDataTag()).replace(' ', '_');
    writeFile(d + "/" + file, content.toStdString());
    if (file == "lexnames")
        writeFile(d + "/data.noun", kNoun);
    const std::string msg =
        errorOf([&] { writeWordnetGlosses(d.toStdString(), (d + "/out.tsv").toStdString()); });
    QVERIFY2(!msg.empty(), "bad input accepted");
    QVERIFY2(msg.find(expect.toStdString()) != std::string::npos, msg.c_str());
    QVERIFY(!QFile::exists(d + "/out.tsv"));
}

QTEST_GUILESS_MAIN(TestWordnetGlosses)
#include "tst_WordnetGlosses.moc"
