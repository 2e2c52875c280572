#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 setscope developers
"""Learning curves by optimizer step, from `setscope-cli train` logs.

    curves.py [--every N] [--csv FILE] LABEL=LOG [LABEL=LOG ...]

Prints a Markdown table: one row per log, one column every N steps (default 250), each cell
the test-split kNN accuracy of the last evaluated epoch at or before that step (the rows of a
run that evaluates every epoch end at different steps, so the grid takes the latest score; a
"best (epoch …)" row is not a point of the curve). Stage changes (pre-train → fine-tune) are
marked with the stage's name in the last column. --csv writes every evaluated point
(label, step, epoch, stage, kNN, validation-kNN, loss, spread). Only the standard library.
"""
import argparse
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from summarize import parse  # noqa: E402


def points(log):
    return [r for r in log["rows"] if not r["stage"].startswith("best") and "kNN" in r["values"]]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--every", type=int, default=250)
    ap.add_argument("--csv")
    ap.add_argument("runs", nargs="+", metavar="LABEL=LOG")
    a = ap.parse_args()
    runs = []
    for spec in a.runs:
        label, _, path = spec.partition("=")
        if not path:
            sys.exit("curves.py: %s: expected LABEL=LOG" % spec)
        runs.append((label, parse(path)))
    last = max((points(log)[-1]["step"] for _, log in runs if points(log)), default=0)
    grid = list(range(a.every, last + 1, a.every))
    if not grid or grid[-1] != last:
        grid.append(last)
    print("| run | first evaluation | " + " | ".join(str(s) for s in grid) + " | stages |")
    print("|---|---|" + "---|" * len(grid) + "---|")
    for label, log in runs:
        pts = points(log)
        cells = []
        for s in grid:
            before = [p for p in pts if p["step"] <= s]
            cells.append("%.3f" % before[-1]["values"]["kNN"] if before and (s <= pts[-1]["step"]) else "")
        first = "%.3f" % pts[0]["values"]["kNN"] if pts else ""
        stages = []
        for p in pts:
            if not stages or stages[-1][0] != p["stage"]:
                stages.append((p["stage"], p["step"]))
        stage_text = ", ".join("%s from step %d" % (name, step) for name, step in stages[1:]) if len(stages) > 1 else ""
        print("| %s | %s | %s | %s |" % (label, first, " | ".join(cells), stage_text))
    if a.csv:
        with open(a.csv, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(["run", "step", "epoch", "stage", "knn", "validation_knn", "loss", "spread"])
            for label, log in runs:
                for p in points(log):
                    v = p["values"]
                    w.writerow([label, p["step"], p["epoch"], p["stage"], v["kNN"], v.get("validation-knn", ""),
                                p["loss"], v.get("spread", "")])


if __name__ == "__main__":
    main()
