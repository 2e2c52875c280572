#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 setscope developers
"""t-SNE benchmark of issue 10: setscope-cli tsne against scikit-learn's TSNE, in one run.

Input: Fashion-MNIST from Debian's dataset-fashion-mnist (70 000 images, train then test),
pixels / 255, reduced to 50-d by scikit-learn's PCA (randomised SVD, seed 0) and saved as
.npy, so both tools get the same vectors.

1. 5 000 points (the first 5 000 images): setscope-cli tsne and
   sklearn.manifold.TSNE(perplexity=30, method='barnes_hut', n_jobs=2, init='pca',
   learning_rate='auto', n_iter=1000); wall time of each (setscope: the whole process,
   start-up and reading the .npy included, and its t-SNE alone; scikit-learn:
   fit_transform), the ratios, and the 10-NN accuracy (5-fold CV, KNeighborsClassifier) of
   each 2-D map.
2. All 70 000 points with setscope only (scikit-learn did not finish in 25 min), time and
   10-NN accuracy; and --warm-bench: the affinities recomputed and warm-start iterations
   timed on the finished 70 000-point map.

  /usr/bin/python3 bench/layout/tsne_vs_sklearn.py --build build [--threads 2] [--skip-sklearn]

Needs Debian's python3-sklearn, python3-numpy and dataset-fashion-mnist. Run it on an
otherwise idle machine: both tools use 2 threads. Besides wall times it prints CPU seconds
(user + system) and the cores each run obtained, which do not depend on the share of a
shared machine a run got.
"""
import argparse
import gzip
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

try:
    from sklearn.decomposition import PCA
    from sklearn.manifold import TSNE
    from sklearn.model_selection import cross_val_score, StratifiedKFold
    from sklearn.neighbors import KNeighborsClassifier
except ImportError as e:  # pragma: no cover
    sys.exit(f"tsne_vs_sklearn: {e}; install Debian's python3-sklearn")

DATA = "/usr/share/datasets/fashion-mnist"


def read_idx(path):
    with gzip.open(path, "rb") as f:
        raw = f.read()
    ndim = raw[3]
    shape = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim).reshape(shape)


def load_fashion_mnist():
    x = np.concatenate([read_idx(f"{DATA}/train-images-idx3-ubyte.gz"), read_idx(f"{DATA}/t10k-images-idx3-ubyte.gz")])
    y = np.concatenate([read_idx(f"{DATA}/train-labels-idx1-ubyte.gz"), read_idx(f"{DATA}/t10k-labels-idx1-ubyte.gz")])
    return x.reshape(len(x), -1).astype(np.float32) / 255.0, y.astype(np.int64)


def knn_accuracy(map2d, labels):
    """10-NN accuracy of a 2-D map, 5-fold stratified CV (shuffled, seed 0)."""
    cv = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
    return float(np.mean(cross_val_score(KNeighborsClassifier(n_neighbors=10), map2d, labels, cv=cv)))


def run_setscope(cli, inp, out, threads, extra=()):
    cmd = [cli, "tsne", "--input", inp, "--pca", "0", "--perplexity", "30", "--iterations", "1000",
           "--threads", str(threads), "--json", "--out", out, *extra]
    print("$ " + " ".join(cmd), flush=True)
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    res = subprocess.run(cmd, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    info = json.loads(res.stdout)
    info["cpu_seconds"] = cpu
    return wall, info, np.load(out)


def load_average():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--small", type=int, default=5000)
    ap.add_argument("--warm-iterations", type=int, default=20)
    ap.add_argument("--skip-sklearn", action="store_true", help="setscope only (no ratio)")
    ap.add_argument("--skip-full", action="store_true", help="no 70 000-point run")
    args = ap.parse_args()
    cli = os.path.join(args.build, "app/cli/setscope-cli")
    if not os.access(cli, os.X_OK):
        sys.exit(f"tsne_vs_sklearn: {cli} not found; build the setscope-cli target")

    x, labels = load_fashion_mnist()
    t0 = time.perf_counter()
    x50 = PCA(n_components=50, svd_solver="randomized", random_state=0).fit_transform(x).astype(np.float32)
    print(f"Fashion-MNIST {x.shape[0]} x {x.shape[1]} -> PCA 50-d in {time.perf_counter() - t0:.1f} s; "
          f"load {load_average()}", flush=True)
    results = {}
    with tempfile.TemporaryDirectory(prefix="tsne-bench-") as tmp:
        small = os.path.join(tmp, "fmnist50_small.npy")
        full = os.path.join(tmp, "fmnist50.npy")
        n = args.small
        np.save(small, x50[:n])
        np.save(full, x50)

        # --- 5 000 points: both tools -----------------------------------------------------
        wall, info, y_set = run_setscope(cli, small, os.path.join(tmp, "small_map.npy"), args.threads)
        acc_set = knn_accuracy(y_set, labels[:n])
        print(f"setscope {n}: wall {wall:.2f} s (affinities {info['seconds']['affinities']:.2f} s, "
              f"iterations {info['seconds']['iterations']:.2f} s), CPU {info['cpu_seconds']:.1f} s "
              f"({info['cpu_seconds'] / wall:.2f} cores), 10-NN accuracy {acc_set:.4f}; load {load_average()}",
              flush=True)
        results["setscope_small"] = {"wall": wall, "info": info, "knn10": acc_set}
        if not args.skip_sklearn:
            tsne = TSNE(n_components=2, perplexity=30, method="barnes_hut", n_jobs=args.threads, init="pca",
                        learning_rate="auto", n_iter=1000, random_state=0)
            c0 = time.process_time()
            t0 = time.perf_counter()
            y_sk = tsne.fit_transform(x50[:n])
            wall_sk = time.perf_counter() - t0
            cpu_sk = time.process_time() - c0
            acc_sk = knn_accuracy(y_sk, labels[:n])
            cpu_set = info["cpu_seconds"]
            print(f"sklearn  {n}: wall {wall_sk:.2f} s, CPU {cpu_sk:.1f} s ({cpu_sk / wall_sk:.2f} cores), "
                  f"10-NN accuracy {acc_sk:.4f}; load {load_average()}")
            own = info["seconds"]["total"]
            print(f"ratio sklearn / setscope: wall {wall_sk / wall:.1f}x (setscope's whole process, start-up "
                  f"included), {wall_sk / own:.1f}x (setscope's t-SNE alone: PCA + affinities + iterations, "
                  f"{own:.2f} s, as fit_transform is timed), CPU seconds {cpu_sk / cpu_set:.1f}x; "
                  f"accuracy setscope - sklearn: {acc_set - acc_sk:+.4f}", flush=True)
            results["sklearn_small"] = {"wall": wall_sk, "cpu": cpu_sk, "knn10": acc_sk, "ratio": wall_sk / wall,
                                        "cpu_ratio": cpu_sk / cpu_set}

        # --- 70 000 points: setscope only, then warm-start iterations ------------------------
        if not args.skip_full:
            wall, info, y_full = run_setscope(cli, full, os.path.join(tmp, "full_map.npy"), args.threads,
                                              ["--warm-bench", str(args.warm_iterations)])
            acc_full = knn_accuracy(y_full, labels)
            warm = info["warm"]
            print(f"setscope {len(x50)}: wall {wall:.2f} s (t-SNE {info['seconds']['total']:.2f} s: affinities "
                  f"{info['seconds']['affinities']:.2f} s, iterations {info['seconds']['iterations']:.2f} s), "
                  f"CPU {info['cpu_seconds']:.1f} s ({info['cpu_seconds'] / wall:.2f} cores), "
                  f"10-NN accuracy {acc_full:.4f}; load {load_average()}")
            print(f"warm start at {len(x50)}: {warm['seconds_per_iteration'] * 1e3:.1f} ms per iteration "
                  f"({warm['iterations']} iterations), affinities recomputed in {warm['affinity_seconds']:.2f} s")
            results["setscope_full"] = {"wall": wall, "info": info, "knn10": acc_full}
    print(json.dumps(results))


if __name__ == "__main__":
    main()
