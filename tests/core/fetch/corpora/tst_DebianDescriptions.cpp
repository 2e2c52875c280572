// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "tests/core/fetch/corpora/CorpusTestUtil.h"

#include <QtTest>

#include <archive.h>
#include <archive_entry.h>
#include <zlib.h>

using namespace setscope::fetch::corpora;
using namespace corpustest;

namespace {

std::string md5(char c) { return std::string(32, c); }

// A Packages index in the archive's layout (fields trimmed to what matters plus a few
// that do not), one stanza per case.
const std::string kPackages =
    "Package: alpha-game\nVersion: 1.0-1\nArchitecture: amd64\nDescription: A fine game\n"
    "Description-md5: " + md5('a') + "\nTag: game::strategy, interface::x11,\n role::program\nSection: games\n"
    "Priority: optional\n\n"
    // Same description (same md5) as alpha-game: one document, majority section wins.
    "Package: alpha-game-data\nSource: alpha-game (1.0-1)\nDescription: A fine game\nDescription-md5: " + md5('a') + "\nSection: games\n\n"
    "Package: alpha-edu\nDescription: A fine game\nDescription-md5: " + md5('a') + "\nSection: education\n\n"
    // A dropped (non-topical) section.
    "Package: beta-lib1\nDescription: Beta library\nDescription-md5: " + md5('b') + "\nSection: libs\n\n"
    // The area prefix is stripped.
    "Package: dee-edit\nDescription: Text editor!\nDescription-md5: " + md5('c') + "\nSection: contrib/editors\n\n"
    // An md5 that Translation-en does not have.
    "Package: gamma\nDescription: Lost\nDescription-md5: " + md5('d') + "\nSection: editors\n\n"
    // A transitional package.
    "Package: delta-old\nDescription: transitional dummy package\nDescription-md5: " + md5('e') +
    "\nSection: editors\n\n"
    // No Description-md5 at all.
    "Package: nomd5\nDescription: Nothing\nSection: games\n\n"
    // A third-party stanza with the long description in Packages itself.
    "Package: zeta\nSection: games\nDescription: Zeta puzzles\n Zeta is a puzzle game.\n\n"
    "Package: epsilon\nDescription: Epsilon shooter\nDescription-md5: " + md5('f') + "\nSection: games\n\n"
    // Built from source "zeta": dropped by default, since zeta itself is there (though
    // yak-data sorts first).
    "Package: xi-doc\nSource: xi\nDescription: Xi manual\nDescription-md5: " + md5('8') + "\nSection: games\n\n"
    "Package: xi-game\nSource: xi\nDescription: Xi game\nDescription-md5: " + md5('6') + "\nSection: games\n\n"
    "Package: yak-data\nSource: zeta (2.0)\nDescription: Yak data\nDescription-md5: " + md5('7') +
    "\nSection: games\n";

const std::string kTranslation =
    "Package: alpha-game\nDescription-md5: " + md5('a') + "\nDescription-en: A fine game\n"
    " Alpha is a game\n about letters.\n .\n It has two paragraphs.\n\n"
    "Package: alpha-game-data\nSource: alpha-game (1.0-1)\nDescription-md5: " + md5('a') + "\nDescription-en: A fine game\n"
    " Alpha is a game\n about letters.\n .\n It has two paragraphs.\n\n"
    "Package: beta-lib1\nDescription-md5: " + md5('b') + "\nDescription-en: Beta library\n A library.\n\n"
    "Package: dee-edit\nDescription-md5: " + md5('c') + "\nDescription-en: Text editor!\n An editor\twith\n"
    "   verbatim   spacing\n\n"
    "Package: delta-old\nDescription-md5: " + md5('e') + "\nDescription-en: transitional dummy package\n"
    " This is a transitional package. It can safely be removed.\n\n"
    "Package: epsilon\nDescription-md5: " + md5('f') + "\nDescription-en: Epsilon shooter\n"
    " Alpha is a game\n about letters.\n .\n It has two paragraphs.\n\n"
    "Package: yak-data\nDescription-md5: " + md5('7') + "\nDescription-en: Yak data\n Data files for Zeta.\n\n"
    "Package: xi-doc\nDescription-md5: " + md5('8') + "\nDescription-en: Xi manual\n Read about Xi.\n\n"
    "Package: xi-game\nDescription-md5: " + md5('6') + "\nDescription-en: Xi game\n Xi is fun.\n\n"
    "Package: unrelated\nDescription-md5: " + md5('9') + "\nDescription-en: Not in Packages\n Ignored.\n";

// Hand-written from the rules: synopsis + ". " + paragraphs joined, white space collapsed,
// ordered by package name; epsilon keeps its own synopsis so its text differs.
const std::string kExpected = "games\tA fine game. Alpha is a game about letters. It has two paragraphs.\n"
                              "editors\tText editor! An editor with verbatim spacing\n"
                              "games\tEpsilon shooter. Alpha is a game about letters. It has two paragraphs.\n"
                              "games\tXi game. Xi is fun.\n"
                              "games\tZeta puzzles. Zeta is a puzzle game.\n";

void writeGzip(const QString& path, const std::string& content)
{
    gzFile f = gzopen(path.toStdString().c_str(), "wb");
    gzwrite(f, content.data(), unsigned(content.size()));
    gzclose(f);
}

/// An lz4 frame (what apt stores) written by libarchive's raw writer: an independent encoder.
std::string lz4Bytes(const std::string& content)
{
    std::vector<char> buf(content.size() + content.size() / 8 + 4096);
    size_t used = 0;
    archive* a = archive_write_new();
    archive_write_add_filter_lz4(a);
    archive_write_set_format_raw(a);
    archive_write_open_memory(a, buf.data(), buf.size(), &used);
    archive_entry* e = archive_entry_new();
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_pathname(e, "data");
    archive_entry_set_size(e, la_int64_t(content.size()));
    archive_write_header(a, e);
    archive_write_data(a, content.data(), content.size());
    archive_entry_free(e);
    archive_write_close(a);
    archive_write_free(a);
    return std::string(buf.data(), used);
}

const char* kPackagesName = "deb.debian.org_debian_dists_bookworm_main_binary-amd64_Packages";
const char* kTranslationName = "deb.debian.org_debian_dists_bookworm_main_i18n_Translation-en";

} // namespace

class TestDebianDescriptions : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() { QVERIFY(m_dir.isValid()); }
    void joinsSectionsAndDescriptions_data();
    void joinsSectionsAndDescriptions();
    void optionsChangeWhatIsKept();
    void badInput_data();
    void badInput();

private:
    QTemporaryDir m_dir;
};

void TestDebianDescriptions::joinsSectionsAndDescriptions_data()
{
    QTest::addColumn<QString>("compression");
    QTest::newRow("plain") << "";
    QTest::newRow("gz") << ".gz";
    QTest::newRow("lz4") << ".lz4";
}

void TestDebianDescriptions::joinsSectionsAndDescriptions()
{
    QFETCH(QString, compression);
    const QString d = m_dir.filePath("lists" + compression);
    QDir().mkpath(d + "/partial"); // what apt leaves there; ignored
    writeFile(d + "/lock", "");
    writeFile(d + "/deb.debian.org_debian_dists_bookworm_InRelease", "Origin: Debian\n");
    const QString p = d + "/" + kPackagesName + compression;
    const QString t = d + "/" + kTranslationName + compression;
    if (compression == ".gz") {
        writeGzip(p, kPackages);
        writeGzip(t, kTranslation);
    } else if (compression == ".lz4") {
        writeFile(p, lz4Bytes(kPackages));
        writeFile(t, lz4Bytes(kTranslation));
    } else {
        writeFile(p, kPackages);
        writeFile(t, kTranslation);
    }
    DebianDescriptionsOptions o;
    o.minClassSize = 1;
    const QString out = d + "/corpus.tsv";
    const CorpusStats s = writeDebianDescriptions(d.toStdString(), out.toStdString(), o);
    QCOMPARE(body(out), kExpected);
    QCOMPARE(s.documents, std::size_t(5));
    QCOMPARE(s.perLabel.at("games"), std::size_t(4));
    QCOMPARE(s.perLabel.at("editors"), std::size_t(1));
    // Dropped descriptions: beta (libs), gamma (no translation), delta (transitional),
    // yak-data (same source as zeta), xi-doc (an auxiliary package of source xi).
    QCOMPARE(s.dropped, std::size_t(5));
    std::string notes;
    for (const auto& n : s.notes)
        notes += n + "\n";
    QVERIFY2(notes.find("13 package stanzas in 1 Packages files, 10 descriptions in 1 Translation-en files, 10 distinct") !=
                 std::string::npos,
             notes.c_str());
    QVERIFY2(notes.find("1 package stanzas with neither Description-md5 nor a long Description") != std::string::npos,
             notes.c_str());
    QVERIFY2(notes.find("1 descriptions (1 packages) not found in Translation-en") != std::string::npos, notes.c_str());
    QVERIFY2(notes.find("1 descriptions shared by packages of different sections") != std::string::npos, notes.c_str());
    QVERIFY2(notes.find("non-topical sections dropped: libs 1") != std::string::npos, notes.c_str());
    QVERIFY2(notes.find("1 transitional/dummy") != std::string::npos, notes.c_str());
    QVERIFY2(notes.find("2 descriptions dropped because another package of the same source") != std::string::npos,
             notes.c_str());
}

void TestDebianDescriptions::optionsChangeWhatIsKept()
{
    const QString d = m_dir.filePath("options");
    writeFile(d + "/" + kPackagesName, kPackages);
    writeFile(d + "/" + kTranslationName + ".gz", ""); // replaced below
    writeGzip(d + "/" + kTranslationName + ".gz", kTranslation);
    const QString out = d + "/corpus.tsv";

    // Without the synopsis, alpha and epsilon have the same text: one is dropped as a duplicate.
    DebianDescriptionsOptions o;
    o.minClassSize = 1;
    o.includeSynopsis = false;
    CorpusStats s = writeDebianDescriptions(d.toStdString(), out.toStdString(), o);
    QCOMPARE(body(out), std::string("games\tAlpha is a game about letters. It has two paragraphs.\n"
                                    "editors\tAn editor with verbatim spacing\n"
                                    "games\tXi is fun.\n"
                                    "games\tZeta is a puzzle game.\n"));
    QCOMPARE(s.dropped, std::size_t(6));

    // All binary packages of a source, each its own document.
    o = {};
    o.minClassSize = 1;
    o.onePerSourcePackage = false;
    s = writeDebianDescriptions(d.toStdString(), out.toStdString(), o);
    QCOMPARE(body(out), std::string("games\tA fine game. Alpha is a game about letters. It has two paragraphs.\n"
                                    "editors\tText editor! An editor with verbatim spacing\n"
                                    "games\tEpsilon shooter. Alpha is a game about letters. It has two paragraphs.\n"
                                    "games\tXi manual. Read about Xi.\n"
                                    "games\tXi game. Xi is fun.\n"
                                    "games\tYak data. Data files for Zeta.\n"
                                    "games\tZeta puzzles. Zeta is a puzzle game.\n"));

    // Classes below the minimum size go (editors has 1 document).
    o = {};
    o.minClassSize = 2;
    s = writeDebianDescriptions(d.toStdString(), out.toStdString(), o);
    QCOMPARE(s.perLabel.size(), std::size_t(1));
    QCOMPARE(s.perLabel.at("games"), std::size_t(4));
    QVERIFY(s.notes.back().find("classes smaller than 2 dropped: editors 1") != std::string::npos);

    // Own dropped sections (games) and transitional packages kept.
    o = {};
    o.minClassSize = 1;
    o.droppedSections = {"games"};
    o.dropTransitional = false;
    s = writeDebianDescriptions(d.toStdString(), out.toStdString(), o);
    QCOMPARE(body(out), std::string("libs\tBeta library. A library.\n"
                                    "editors\tText editor! An editor with verbatim spacing\n"
                                    "editors\ttransitional dummy package. This is a transitional package. It can "
                                    "safely be removed.\n"));

    // Bytes that are not UTF-8 (a Latin-1 e-acute here) become U+FFFD, and the count is noted.
    {
        const QString l = m_dir.filePath("latin1");
        writeFile(l + "/" + kPackagesName, "Package: cafe\nSection: games\nDescription: x\nDescription-md5: " + md5('a') + "\n");
        writeFile(l + "/" + kTranslationName, "Package: cafe\nDescription-md5: " + md5('a') +
                                                  "\nDescription-en: Caf\xe9 game\n A game in a caf\xc3\xa9.\n");
        o = {};
        o.minClassSize = 1;
        s = writeDebianDescriptions(l.toStdString(), (l + "/corpus.tsv").toStdString(), o);
        QCOMPARE(body(l + "/corpus.tsv"), std::string("games\tCaf\xef\xbf\xbd game. A game in a caf\xc3\xa9.\n"));
        QVERIFY(s.notes.back().find("1 bytes that were not valid UTF-8 were replaced") != std::string::npos);
    }

    // A per-class cap.
    o = {};
    o.minClassSize = 1;
    o.maxPerClass = 2;
    s = writeDebianDescriptions(d.toStdString(), out.toStdString(), o);
    QCOMPARE(s.perLabel.at("games"), std::size_t(2));
    QCOMPARE(s.perLabel.at("editors"), std::size_t(1));

    // The default minimum class size (50) leaves nothing here: a clear error, no file.
    QFile::remove(out);
    const std::string msg = errorOf([&] { writeDebianDescriptions(d.toStdString(), out.toStdString()); });
    QVERIFY2(msg.find("no description survived") != std::string::npos, msg.c_str());
    QVERIFY(!QFile::exists(out));
}

void TestDebianDescriptions::badInput_data()
{
    QTest::addColumn<QString>("packages");
    QTest::addColumn<QString>("translation");
    QTest::addColumn<QString>("expect");
    const QString good = QString::fromStdString(kPackages);
    const QString tr = QString::fromStdString(kTranslation);
    QTest::newRow("stanza without Section")
        << "Package: a\nSection: games\nDescription-md5: " + QString::fromStdString(md5('a')) +
               "\n\nPackage: b\nDescription: B\nDescription-md5: " + QString::fromStdString(md5('b')) + "\n"
        << tr << "_Packages (line 5): Packages stanza of \"b\" has no Section field";
    QTest::newRow("stanza without Package") << "Section: games\nDescription: x\n" << tr
                                            << "_Packages (line 1): Packages stanza without a Package field";
    QTest::newRow("not a field") << "Package: a\nthis is not a field\n" << tr
                                 << "_Packages (line 2): expected \"Field: value\"";
    QTest::newRow("continuation first") << "\n continued\n" << tr
                                        << "_Packages (line 2): continuation line with no field";
    QTest::newRow("translation without md5") << good << "Package: a\nDescription-md5: " + QString::fromStdString(md5('a')) +
                                                          "\nDescription-en: x\n\nPackage: b\nDescription-en: y\n"
                                             << "_Translation-en (line 5): Translation-en stanza without Description-md5";
    QTest::newRow("empty Packages") << "" << tr << "no package stanzas";
    QTest::newRow("truncated lz4") << "lz4" << tr << "_Packages.lz4: cannot open: truncated lz4 input";
    QTest::newRow("truncated gz") << "gz" << tr << "_Packages.gz (byte offset ";
    QTest::newRow("no Packages file") << "none" << tr << "no *_Packages index here";
}

void TestDebianDescriptions::badInput()
{
    QFETCH(QString, packages);
    QFETCH(QString, translation);
    QFETCH(QString, expect);
    const QString d = m_dir.filePath(QString("bad_") + QTest::currentDataTag()).replace(' ', '_');
    QDir().mkpath(d);
    writeFile(d + "/" + kTranslationName, translation.toStdString());
    if (packages == "lz4") {
        // Large enough that the cut falls after the first blocks: the error comes from reading.
        std::string big;
        for (int i = 0; i < 3000; ++i)
            big += kPackages + "\n";
        std::string bytes = lz4Bytes(big);
        bytes.resize(bytes.size() / 2);
        writeFile(d + "/" + kPackagesName + ".lz4", bytes);
    } else if (packages == "gz") {
        std::string big;
        for (int i = 0; i < 3000; ++i)
            big += kPackages + "\n";
        writeGzip(d + "/full.gz", big);
        std::string bytes = readFile(d + "/full.gz");
        QFile::remove(d + "/full.gz");
        bytes.resize(bytes.size() / 2);
        writeFile(d + "/" + kPackagesName + ".gz", bytes);
    } else if (packages != "none") {
        writeFile(d + "/" + kPackagesName, packages.toStdString());
    }
    DebianDescriptionsOptions o;
    o.minClassSize = 1;
    const std::string msg =
        errorOf([&] { writeDebianDescriptions(d.toStdString(), (d + "/out.tsv").toStdString(), o); });
    QVERIFY2(!msg.empty(), "bad input accepted");
    QVERIFY2(msg.find(expect.toStdString()) != std::string::npos, msg.c_str());
    QVERIFY(!QFile::exists(d + "/out.tsv"));
}

QTEST_GUILESS_MAIN(TestDebianDescriptions)
#include "tst_DebianDescriptions.moc"
