// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Adding a CLI command (docs/ARCHITECTURE.md, "Adding a loss / a view / a loader / a CLI
// command"): a toy command written in this one file and given to the command line as one more
// entry of the list runs as a built-in one does -- its flags parsed, the context's registry and
// dataset opening at hand, its exit code returned, its errors reported as setscope-cli reports
// them -- and `--help` lists it beside the built-ins.
#include "app/cli/CliContext.h"
#include "app/cli/Commands.h"

#include "core/data/Dataset.h"
#include "core/data/Synthetic.h"

#include <QtTest>

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace setscope;

namespace {

/// The toy: `count-items --dataset SPEC [--exit-code N]` prints how many items and classes the
/// dataset has.
void addCountItemsCommand(CLI::App& app, cli::ContextFn ctx, int& rc)
{
    auto* cmd = app.add_subcommand("count-items", "Print how many items and fine classes a dataset has");
    auto dataset = std::make_shared<std::string>();
    auto code = std::make_shared<int>(0);
    cmd->add_option("--dataset", *dataset, "a name or a path")->required();
    cmd->add_option("--exit-code", *code, "the exit code to return");
    cmd->callback([ctx, dataset, code, &rc] {
        const auto ds = ctx().openDataset(*dataset);
        std::cout << ds->size() << " items, " << ds->requireLabelSet("fine").numClasses() << " classes\n";
        rc = *code;
    });
}

/// Runs `args` with the built-in commands and the toy; what it printed on stdout and stderr.
struct Run {
    int rc = -1;
    std::string out, err;
};
Run run(std::vector<std::string> args)
{
    args.insert(args.begin(), "setscope-cli");
    std::vector<char*> argv;
    for (std::string& a : args)
        argv.push_back(a.data());
    std::vector<cli::AddCommandFn> commands = cli::commandList();
    commands.push_back(addCountItemsCommand); // the one entry that adds it
    std::ostringstream out, err;
    std::streambuf* oldOut = std::cout.rdbuf(out.rdbuf());
    std::streambuf* oldErr = std::cerr.rdbuf(err.rdbuf());
    Run r;
    r.rc = cli::runCommandLine(static_cast<int>(argv.size()), argv.data(), commands);
    std::cout.rdbuf(oldOut);
    std::cerr.rdbuf(oldErr);
    r.out = out.str();
    r.err = err.str();
    return r;
}

} // namespace

class TestCliAddingACommand : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void theToyRunsAsABuiltInCommand()
    {
        const data::Dataset want = data::makeHierarchicalGaussians(data::SyntheticSpec::parse("points=30,fine=2,coarse=3"));
        const Run r = run({"count-items", "--dataset", "synthetic:points=30,fine=2,coarse=3"});
        QCOMPARE(r.rc, 0);
        QCOMPARE(QString::fromStdString(r.out),
                 QStringLiteral("%1 items, %2 classes\n").arg(want.size()).arg(want.requireLabelSet("fine").numClasses()));
        QCOMPARE(run({"count-items", "--dataset", "synthetic", "--exit-code", "3"}).rc, 3);
    }

    void itsErrorsAreReportedAsSetscopeCliReportsThem()
    {
        // A missing required flag: CLI11's message and a non-zero code.
        const Run missing = run({"count-items"});
        QVERIFY(missing.rc != 0);
        QVERIFY2(missing.err.find("--dataset") != std::string::npos, missing.err.c_str());
        // A bad dataset option: "setscope-cli: ..." naming it, exit code 1.
        const Run bad = run({"count-items", "--dataset", "synthetic:no-such-option=1"});
        QCOMPARE(bad.rc, 1);
        QVERIFY2(bad.err.rfind("setscope-cli: ", 0) == 0 && bad.err.find("no-such-option") != std::string::npos,
                 bad.err.c_str());
    }

    void helpListsItBesideTheBuiltIns()
    {
        const Run help = run({"--help"});
        QCOMPARE(help.rc, 0);
        for (const char* name : {"count-items", "train", "emd-knn", "tsne", "retrieve"})
            QVERIFY2(help.out.find(name) != std::string::npos, name);
    }
};

QTEST_GUILESS_MAIN(TestCliAddingACommand)
#include "tst_CliAddingACommand.moc"
