#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 setscope developers
"""How often WSSET's pseudo-positive is of the anchor's class, by batch size.

    batch_positives.py EMD.npy LABELS.csv [--trials N] [--seed S]

EMD.npy: the n x n exact EMD matrix (`setscope-cli emd-matrix`); LABELS.csv: index,split,fine
(`setscope-cli export`). Over random batches of the train split, each anchor's positive is the
batch's EMD-nearest other item (seed 000 Eq. 2); the authors' code keeps it only when
EMD(a, p) is below the batch's 20th percentile of pairwise EMDs. Prints, per batch size, the
share of anchors with any item of their class in the batch, the share of positives of the
anchor's class, and the same among the kept ones with the share kept. An independent reading of
the labels the loss never sees; NumPy only.
"""
import argparse
import csv

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("emd")
    ap.add_argument("labels")
    ap.add_argument("--trials", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    d = np.load(a.emd)
    rows = list(csv.DictReader(open(a.labels)))
    train = np.array([int(r["index"]) for r in rows if r["split"] == "train"])
    label = {int(r["index"]): r["fine"] for r in rows}
    y = np.array([label[i] for i in train])
    classes = len(set(y))
    rng = np.random.default_rng(a.seed)
    print("train items %d, %d classes" % (len(train), classes))
    print("| batch | anchors with a same-class item in the batch | positive of the anchor's class | kept by the 20th-percentile filter | kept positives of the anchor's class |")
    print("|---|---|---|---|---|")
    for b in (8, 16, 32, 64, 128, len(train)):
        has = same = kept = keptSame = total = 0
        for _ in range(a.trials if b < len(train) else 1):
            idx = rng.choice(len(train), size=b, replace=False)
            sub = d[np.ix_(train[idx], train[idx])].astype(np.float64)
            yy = y[idx]
            np.fill_diagonal(sub, np.inf)
            p = np.argmin(sub, axis=1)
            iu = np.triu_indices(b, 1)
            q20 = np.percentile(sub[iu], 20)
            eq = yy[p] == yy
            k = sub[np.arange(b), p] < q20
            for i in range(b):
                has += int(np.any((yy == yy[i]) & (np.arange(b) != i)))
            same += int(eq.sum())
            kept += int(k.sum())
            keptSame += int((eq & k).sum())
            total += b
        print("| %d | %.3f | %.3f | %.3f | %.3f |" % (b, has / total, same / total, kept / total,
                                                   keptSame / max(kept, 1)))


if __name__ == "__main__":
    main()
