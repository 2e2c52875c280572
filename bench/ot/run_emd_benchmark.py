#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 setscope developers
"""EMD benchmark of issue 3: setscope against POT (ot.emd2, network simplex) and pyemd
(FastEMD), on the same document pairs, in one run.

Workload (like WMD's): 5 000 random 300-d "word" vectors grouped in 100 clusters;
737 documents (BBCSport's size) of 20-150 distinct words (mean ~90) drawn mostly from
1-3 topic clusters, weights = Zipf term frequencies normalised to 1 (float64).

Per pair, each tool's time includes building its cost matrix from the word vectors;
everything single-threaded (OMP/OpenBLAS threads = 1). Prints per-pair median times, the
ratios, and the largest relative disagreement with POT. Then times setscope's full
pairwise matrix of the 737 documents on 1 and 2 threads.

  python3 bench/ot/run_emd_benchmark.py --build build [--pairs 300] [--repeat 5] [--no-matrix]

Needs Debian's python3-pot, python3-pyemd, python3-numpy (bootstrap does not install
them: benchmarks are not part of the test suite). Run it on an otherwise idle machine.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import numpy as np  # noqa: E402

try:
    import ot  # noqa: E402
    import pyemd  # noqa: E402
except ImportError as e:  # pragma: no cover
    sys.exit(f"run_emd_benchmark: {e}; install Debian's python3-pot and python3-pyemd")


def make_workload(seed=0, vocab=5000, dim=300, clusters=100, docs=737):
    rng = np.random.default_rng(seed)
    centres = rng.normal(0.0, 1.0, (clusters, dim))
    assign = rng.integers(0, clusters, vocab)
    vectors = (centres[assign] + 0.5 * rng.normal(0.0, 1.0, (vocab, dim))).astype(np.float32)
    out = []
    for _ in range(docs):
        n = int(np.clip(rng.normal(90, 30), 20, 150))
        topics = rng.choice(clusters, size=rng.integers(1, 4), replace=False)
        pool = np.flatnonzero(np.isin(assign, topics))
        k1 = min(len(pool), int(n * 0.7))
        topical = rng.choice(pool, size=k1, replace=False)
        rest = np.setdiff1d(np.arange(vocab), topical)
        words = np.concatenate([topical, rng.choice(rest, size=n - k1, replace=False)])
        tf = np.minimum(rng.zipf(2.0, size=n), 20).astype(np.float64)
        out.append((words.tolist(), (tf / tf.sum()).tolist()))
    return vectors, out


def time_best(fn, repeat):
    best = float("inf")
    value = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - t0)
    return best, value


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build", help="CMake build folder holding bench/ot/bench_emd")
    ap.add_argument("--pairs", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-matrix", action="store_true")
    ap.add_argument("--json", help="write all numbers to this file")
    args = ap.parse_args()
    exe = os.path.join(args.build, "bench", "ot", "bench_emd")
    if not os.access(exe, os.X_OK):
        sys.exit(f"run_emd_benchmark: {exe} not found; build the target bench_emd first")

    vectors, docs = make_workload()
    rng = np.random.default_rng(1)
    pairs = [(int(rng.integers(0, len(docs))), int(rng.integers(0, len(docs)))) for _ in range(args.pairs)]
    pairs = [(i, j) if i != j else (i, (j + 1) % len(docs)) for i, j in pairs]
    work = tempfile.mkdtemp(prefix="setscope-emd-bench-")
    np.save(os.path.join(work, "vocab.npy"), vectors)
    with open(os.path.join(work, "docs.json"), "w") as f:
        json.dump([{"words": w, "weights": x} for w, x in docs], f)
    with open(os.path.join(work, "pairs.json"), "w") as f:
        json.dump(pairs, f)
    sizes = [len(w) for w, _ in docs]
    print(f"workload: {len(docs)} documents, {min(sizes)}-{max(sizes)} words (mean {np.mean(sizes):.1f}), "
          f"{vectors.shape[0]} x {vectors.shape[1]} word vectors; {len(pairs)} pairs; best of {args.repeat}")

    # setscope (C++), single thread.
    out = os.path.join(work, "setscope.json")
    subprocess.run([exe, "pairs", work, out, "--repeat", str(args.repeat)], check=True)
    with open(out) as f:
        ours = json.load(f)

    # POT: ot.dist (euclidean) + ot.emd2 on the same float32 vectors, float64 weights.
    from scipy.spatial.distance import cdist

    pot_t, pot_v, pot_exact_v, pyemd_t, pyemd_v = [], [], [], [], []
    for i, j in pairs:
        xa = vectors[docs[i][0]].astype(np.float64)
        xb = vectors[docs[j][0]].astype(np.float64)
        a = np.asarray(docs[i][1])
        b = np.asarray(docs[j][1])
        t, v = time_best(lambda: ot.emd2(a, b, ot.dist(xa, xb, metric="euclidean")), args.repeat)
        pot_t.append(t)
        pot_v.append(float(v))
        # Not timed: POT's solver on a cost matrix without cancellation (scipy's cdist
        # computes differences directly). ot.dist expands |x|² + |y|² - 2x·y, which leaves
        # up to ~1e-6 where two documents share a word (distance exactly 0).
        pot_exact_v.append(float(ot.emd2(a, b, cdist(xa, xb))))

        # pyemd: histograms over the union of both documents' words, and that union's
        # distance matrix (how gensim's WMD calls it).
        def run_pyemd():
            union = sorted(set(docs[i][0]) | set(docs[j][0]))
            pos = {w: k for k, w in enumerate(union)}
            h1 = np.zeros(len(union))
            h2 = np.zeros(len(union))
            for w, x in zip(*docs[i]):
                h1[pos[w]] = x
            for w, x in zip(*docs[j]):
                h2[pos[w]] = x
            u = vectors[union].astype(np.float64)
            return pyemd.emd(h1, h2, ot.dist(u, u, metric="euclidean"))

        t, v = time_best(run_pyemd, args.repeat)
        pyemd_t.append(t)
        pyemd_v.append(float(v))

    ours_t = [r["seconds"] for r in ours]
    ours_v = [r["emd"] for r in ours]
    rel = lambda x, ref: abs(x - ref) / abs(ref) if ref else abs(x)  # noqa: E731
    dis_ours = max(rel(x, r) for x, r in zip(ours_v, pot_v))
    dis_ours_exact = max(rel(x, r) for x, r in zip(ours_v, pot_exact_v))
    dis_pyemd = max(rel(x, r) for x, r in zip(pyemd_v, pot_v))
    med = lambda v: float(np.median(v)) * 1e3  # noqa: E731
    result = {
        "pairs": len(pairs),
        "median_ms": {"setscope": med(ours_t), "pot": med(pot_t), "pyemd": med(pyemd_t)},
        "ratio_pot_over_setscope": med(pot_t) / med(ours_t),
        "ratio_pyemd_over_setscope": med(pyemd_t) / med(ours_t),
        "max_rel_disagreement_with_pot": {"setscope": dis_ours, "pyemd": dis_pyemd},
        "max_rel_disagreement_with_pot_on_exact_costs": {"setscope": dis_ours_exact},
        "median_pivots": float(np.median([r["pivots"] for r in ours])),
    }
    print()
    print("| tool | median per pair (ms) | POT time / tool time | max rel. disagreement with POT |")
    print("|---|---|---|---|")
    print(f"| setscope (C++ network simplex) | {med(ours_t):.3f} | {med(pot_t) / med(ours_t):.2f}x | {dis_ours:.2e} |")
    print(f"| POT {ot.__version__} ot.dist + ot.emd2 | {med(pot_t):.3f} | 1.00x | 0 |")
    print(f"| pyemd (FastEMD) | {med(pyemd_t):.3f} | {med(pot_t) / med(pyemd_t):.2f}x | {dis_pyemd:.2e} |")
    print()
    print(f"setscope vs POT's solver on an exact (scipy cdist) cost matrix: max rel. disagreement {dis_ours_exact:.2e}")

    if not args.no_matrix:
        out = os.path.join(work, "matrix.json")
        subprocess.run([exe, "matrix", work, out, "--threads", "1", "--threads", "2"], check=True)
        with open(out) as f:
            m = json.load(f)
        result["matrix_seconds"] = m
        result["matrix_speedup_2_threads"] = m["1"] / m["2"]
        n = len(docs)
        print()
        print(f"pairwise EMD matrix of {n} documents ({n * (n - 1) // 2} pairs): "
              f"1 thread {m['1']:.1f} s, 2 threads {m['2']:.1f} s, speed-up {m['1'] / m['2']:.2f}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
