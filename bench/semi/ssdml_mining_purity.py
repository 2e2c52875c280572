#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 setscope developers
"""How much class signal seed 004's mined triplets carry, measured with the hidden labels.

An independent NumPy reference of the mining (dense inverse, no setscope code): a partition of
the N_L labelled Fashion-MNIST train items (10 per class) plus N_p random other train items,
the kNN graph (k = 10) on the l2-normalised raw pixels, W* = (1 - γ)(I - γQ)^-1 W0 symmetrised,
each node's neighbourhood sorted by W, first half positives, second half negatives
(docs/SSDML.md). Prints, for each graph normalisation and γ, the share of positives and of
negatives that have the anchor's true class. Mining is useful only when the first share is
clearly above the second; "distance rank" is the same split by feature distance alone.

    /usr/bin/python3 bench/semi/ssdml_mining_purity.py [--unlabelled 2000] [--seed 1]
"""
import argparse
import gzip

import numpy as np
from sklearn.neighbors import NearestNeighbors

DATA = "/usr/share/datasets/fashion-mnist/"


def load():
    x = np.frombuffer(gzip.open(DATA + "train-images-idx3-ubyte.gz").read()[16:], np.uint8)
    y = np.frombuffer(gzip.open(DATA + "train-labels-idx1-ubyte.gz").read()[8:], np.uint8)
    return x.reshape(-1, 784).astype(np.float64) / 255.0, y.astype(int)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--unlabelled", type=int, default=2000)
    ap.add_argument("--per-class", type=int, default=10)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    x, y = load()
    rng = np.random.default_rng(a.seed)
    lab = np.concatenate([rng.choice(np.where(y == c)[0], a.per_class, replace=False) for c in range(10)])
    unl = rng.choice(np.setdiff1d(np.arange(len(y)), lab), a.unlabelled, replace=False)
    idx = np.concatenate([lab, unl])
    n, nl, k = len(idx), len(lab), a.k
    z = x[idx] / np.linalg.norm(x[idx], axis=1, keepdims=True)
    nbr = NearestNeighbors(n_neighbors=k + 1).fit(z).kneighbors(z)[1][:, 1:]
    truth = y[idx]

    q_row = np.zeros((n, n))
    adj = np.zeros((n, n))
    for i in range(n):
        q_row[i, nbr[i]] = 1.0 / k
        adj[i, nbr[i]] = 1.0
    adj = np.maximum(adj, adj.T)
    deg = adj.sum(1)
    q_sym = adj / np.sqrt(deg[:, None] * deg[None, :])
    w0 = np.eye(n)
    w0[:nl, :nl] = np.where(y[lab][:, None] == y[lab][None, :], 1.0, -1.0)

    def shares(order_of):
        pos, neg = [], []
        for s in range(n):
            o = order_of(s)
            pos += list(truth[o[: k // 2]] == truth[s])
            neg += list(truth[o[k - k // 2:]] == truth[s])
        return np.mean(pos), np.mean(neg)

    print(f"partition: {nl} labelled + {a.unlabelled} unlabelled, k = {k}, raw pixels, seed {a.seed}")
    print(f"{'mining':34s} {'positives':>9s} {'negatives':>9s} {'gap':>7s}")
    p, m = shares(lambda s: nbr[s])
    print(f"{'distance rank (no propagation)':34s} {p:9.3f} {m:9.3f} {p - m:+7.3f}")
    for name, q in (("row (seed 004)", q_row), ("symmetric (Zhou et al.)", q_sym)):
        for gamma in (0.99, 0.9, 0.5):
            ws = (1 - gamma) * np.linalg.solve(np.eye(n) - gamma * q, w0)
            w = 0.5 * (ws + ws.T)
            p, m = shares(lambda s: nbr[s][np.argsort(-w[s, nbr[s]], kind="stable")])
            print(f"{name + f', γ = {gamma}':34s} {p:9.3f} {m:9.3f} {p - m:+7.3f}")


if __name__ == "__main__":
    main()
