#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 setscope developers
"""Turns the logs of bench/results/run_table.sh into the Markdown tables of docs/RESULTS.md.

    summarize.py OUT_DIR [TITLE]

Prints two tables: one row per method (the run's model: its last "epoch" line, which is the
best validation epoch when the run kept one), and the learning curves (kNN accuracy after each
epoch; for transfer runs the epochs count across both stages). Only the standard library.

A log with a line starting "INTERRUPTED" (added by hand when a run was killed before its end)
shows the epoch the run would have kept so far: the first epoch with the highest validation-knn
(the trainer keeps a new best only when it is strictly better), or the last epoch without one.
"""
import os
import re
import sys

ROWS = [
    ("emd-knn", "EMD-kNN (exact)"),
    ("chamfer-knn", "Chamfer-kNN (CD)"),
    ("approx-emd", "Approx.EMD"),
    ("cont", "Cont. (PointSwap view)"),
    ("exemplar", "Exemplar (DeepSets)"),
    ("sset", "SSET (Eq. 1)"),
    ("ours", "Ours (WSSET)"),
    ("ours+pd", "Ours+PD"),
    ("ours+pm", "Ours+PM"),
    ("ours+ps", "Ours+PS"),
    ("deepsets+tl", "DeepSets+TL (supervised)"),
    ("ours+tl", "Ours+TL (supervised)"),
    ("ours+int", "Ours+Int."),
    ("ours+int-10pct", "Ours+Int., 10 % of the labels"),
]

EPOCH = re.compile(r"^epoch (\d+)\s+step (\d+)\s+loss ([-0-9.e]+)(?:\s+\[([^\]]*)\])?(.*)\((\d+\.\d)s\)\s*$")
VALUE = re.compile(r"\s+(\S+) ([-0-9.e+]+)")
KNN_EXACT = re.compile(r"kNN accuracy \(k=\d+, distance-weighted, (?:\w+, )?(\d+) queries\): ([0-9.]+)")
WALL = re.compile(r"^wall (\d+) s")


def parse(path):
    rows, exact, wall, failed, command, interrupted = [], None, None, False, "", False
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("== "):
                command = line.split(": ", 1)[1] if ": " in line else line
            m = EPOCH.match(line)
            if m:
                values = dict((k, float(v)) for k, v in VALUE.findall(m.group(5)))
                rows.append({"epoch": int(m.group(1)), "step": int(m.group(2)), "loss": float(m.group(3)),
                             "stage": m.group(4) or "", "values": values, "seconds": float(m.group(6))})
            m = KNN_EXACT.search(line)
            if m:
                exact = (int(m.group(1)), float(m.group(2)))
            m = WALL.match(line)
            if m:
                wall = int(m.group(1))
            if line.startswith("FAILED"):
                failed = True
            if line.startswith("INTERRUPTED"):
                interrupted = True
    return {"rows": rows, "exact": exact, "wall": wall, "failed": failed, "command": command,
            "interrupted": interrupted}


def fmt(v):
    return "" if v is None else "%.4f" % v


def main():
    out = sys.argv[1]
    title = sys.argv[2] if len(sys.argv) > 2 else os.path.basename(out.rstrip("/"))
    logs = {name: parse(os.path.join(out, name + ".log")) for name, _ in ROWS
            if os.path.exists(os.path.join(out, name + ".log"))}
    print("### %s\n" % title)
    print("| method | epochs run | model kept | kNN accuracy | RC@1 | RC@4 | RC@8 | R@1 | R@8 | wall |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, label in ROWS:
        if name not in logs:
            continue
        log = logs[name]
        wall = "%d s" % log["wall"] if log["wall"] is not None else "running"
        if log["interrupted"]:
            wall = "killed"
        if log["failed"]:
            print("| %s | failed | | | | | | | | %s |" % (label, wall))
            continue
        if name.endswith("-knn"):
            if log["exact"]:
                print("| %s | – | – | %.4f (%d queries) | | | | | | %s |" % (label, log["exact"][1], log["exact"][0], wall))
            else:
                print("| %s | | | | | | | | | %s |" % (label, wall))
            continue
        rows = log["rows"]
        if not rows:
            print("| %s | | | | | | | | | %s |" % (label, wall))
            continue
        last = rows[-1]
        if log["interrupted"] and any("validation-knn" in r["values"] for r in rows):
            best = max(r["values"].get("validation-knn", -1.0) for r in rows)
            last = next(r for r in rows if r["values"].get("validation-knn", -1.0) == best)
        trained = max(r["epoch"] for r in rows if not r["stage"].startswith("best"))
        kept = "epoch %d" % last["epoch"]
        v = last["values"]
        print("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            label, trained, kept, fmt(v.get("kNN")), fmt(v.get("RC@1")), fmt(v.get("RC@4")), fmt(v.get("RC@8")),
            fmt(v.get("R@1")), fmt(v.get("R@8")), wall))
    curves = [(label, logs[name]["rows"]) for name, label in ROWS if name in logs and logs[name]["rows"]]
    if curves:
        width = max(max(r["epoch"] for r in rows if not r["stage"].startswith("best")) for _, rows in curves)
        print("\nLearning curves: kNN accuracy on the test split after each epoch (mean loss of the epoch "
              "in brackets).\n")
        print("| method | " + " | ".join(str(e) for e in range(1, width + 1)) + " |")
        print("|---|" + "---|" * width)
        for label, rows in curves:
            cells = {}
            for r in rows:
                if not r["stage"].startswith("best") and "kNN" in r["values"]:
                    cells[r["epoch"]] = "%.3f (%.3g)" % (r["values"]["kNN"], r["loss"])
            print("| %s | " % label + " | ".join(cells.get(e, "") for e in range(1, width + 1)) + " |")
    print("\nCommands:\n")
    print("```sh")
    for name, _ in ROWS:
        if name in logs:
            print(logs[name]["command"])
    print("```")


if __name__ == "__main__":
    main()
