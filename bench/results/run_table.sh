#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 setscope developers
#
# The rows of docs/RESULTS.md "Issue 9" for one dataset: exact EMD-kNN, Chamfer-kNN and every
# method of seed 001 Table 3 / Table 9, each from a real setscope-cli run with the same seed,
# epochs and threads. Logs go to OUT/<row>.log (the exact command is the first line of each);
# every "epoch" line of a log is a point of the learning curve, and the last one is the run's
# model (the best validation epoch when the run has a validation split).
# bench/results/summarize.py turns the logs into the tables.
#
#   bench/results/run_table.sh CLI DATASET EPOCHS OUT [extra train flags...]
#
# ROWS (environment, space-separated) runs only those rows, e.g. ROWS="emd-knn ours".
# The pairwise EMD matrix of the dataset is computed first (all cores, cached and resumable),
# so that training reads every batch's EMDs from it instead of solving them per batch.
set -eu
CLI=$1; DATASET=$2; EPOCHS=$3; OUT=$4; shift 4
mkdir -p "$OUT"
ROWS=${ROWS:-"emd-knn chamfer-knn ours ours+ps approx-emd cont exemplar sset ours+pd ours+pm deepsets+tl ours+tl ours+int ours+int-10pct"}
want() { case " $ROWS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
run() { # name, then setscope-cli arguments
  name=$1; shift
  want "$name" || return 0
  echo "== $name: $CLI $*" | tee "$OUT/$name.log"
  start=$(date +%s)
  "$CLI" "$@" >>"$OUT/$name.log" 2>&1 || echo "FAILED ($?)" >>"$OUT/$name.log"
  echo "wall $(( $(date +%s) - start )) s, load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/$name.log"
}
echo "== emd-matrix: $CLI emd-matrix --dataset $DATASET" | tee "$OUT/emd-matrix.log"
"$CLI" emd-matrix --dataset "$DATASET" --out "$OUT/emd-matrix.npy" >>"$OUT/emd-matrix.log" 2>&1
rm -f "$OUT/emd-matrix.npy" # the cache keeps the matrix; the .npy copy is not needed

COMMON="--dataset $DATASET --epochs $EPOCHS --threads 2 --seed 1 --no-baseline"
run emd-knn emd-knn --dataset "$DATASET" --k 10 --test-queries 100000 --threads 2
run chamfer-knn emd-knn --dataset "$DATASET" --k 10 --test-queries 100000 --threads 2 --distance chamfer
for recipe in ours ours+ps approx-emd cont; do
  run "$recipe" train $COMMON --recipe "$recipe" --model selfattn "$@"
done
run exemplar train $COMMON --recipe exemplar --model deepsets "$@"
for recipe in sset ours+pd ours+pm; do
  run "$recipe" train $COMMON --recipe "$recipe" --model selfattn "$@"
done
run deepsets+tl train $COMMON --recipe tl --model deepsets "$@"
run ours+tl train $COMMON --recipe tl --model selfattn "$@"
# Transfer: pre-training for EPOCHS, fine-tuning (ρ re-initialised) for half as many.
FT=$(( EPOCHS / 2 > 0 ? EPOCHS / 2 : 1 ))
run ours+int train $COMMON --recipe int --model selfattn --finetune-epochs $FT "$@"
run ours+int-10pct train $COMMON --recipe int --model selfattn --finetune-epochs $FT --label-fraction 0.1 "$@"
