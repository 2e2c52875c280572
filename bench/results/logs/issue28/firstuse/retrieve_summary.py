#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 setscope developers
"""Summarise `setscope-cli retrieve --json` lines (one query per line), one file per model.

    retrieve_summary.py LABEL=FILE.jsonl [...]

For each model: the queries, the mean precision@K by label of the embedding's top K and of
exact EMD's top K, how often each finds at least one item of the query's label, and the mean
overlap of the two top-K lists (what the Retrieval view marks "in both"). Standard library only.
"""
import json
import sys


def summary(path):
    rows = [json.loads(line) for line in open(path) if line.strip()]
    if not rows:
        sys.exit("retrieve_summary.py: %s: no queries" % path)
    n = len(rows)
    k = rows[0]["k"]
    mean = lambda f: sum(f(r) for r in rows) / n
    return {
        "queries": n,
        "k": k,
        "emb_precision": mean(lambda r: r["embedding"]["same_label"] / k),
        "emd_precision": mean(lambda r: r["exact"]["same_label"] / k),
        "emb_hit": mean(lambda r: r["embedding"]["same_label"] > 0),
        "emd_hit": mean(lambda r: r["exact"]["same_label"] > 0),
        "overlap": mean(lambda r: r["overlap"]),
    }


def main():
    print("| model | queries | embedding: same label in top K (mean) | exact EMD: same label in top K | "
          "at least one (embedding / EMD) | in both lists (mean of K) |")
    print("|---|---|---|---|---|---|")
    for spec in sys.argv[1:]:
        label, _, path = spec.partition("=")
        s = summary(path)
        print("| %s | %d | %.2f of %d | %.2f of %d | %.0f %% / %.0f %% | %.2f |" % (
            label, s["queries"], s["emb_precision"] * s["k"], s["k"], s["emd_precision"] * s["k"], s["k"],
            100 * s["emb_hit"], 100 * s["emd_hit"], s["overlap"]))


if __name__ == "__main__":
    main()
