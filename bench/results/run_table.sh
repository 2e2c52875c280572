#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 setscope developers
#
# The rows of docs/RESULTS.md "Issue 9" for one dataset: exact EMD-kNN and every recipe of
# seed 001 Table 3 / Table 9, each from a real setscope-cli run with the same seed, epochs
# and threads. Logs go to OUT/<row>.log; the last "epoch" line of each is the run's model
# (the best validation epoch when the run has a validation split).
#
#   bench/results/run_table.sh CLI DATASET EPOCHS OUT [extra train flags...]
set -eu
CLI=$1; DATASET=$2; EPOCHS=$3; OUT=$4; shift 4
mkdir -p "$OUT"
run() { # name, then setscope-cli arguments
  name=$1; shift
  echo "== $name: $CLI $*" | tee "$OUT/$name.log"
  start=$(date +%s)
  "$CLI" "$@" >>"$OUT/$name.log" 2>&1 || echo "FAILED ($?)" >>"$OUT/$name.log"
  echo "wall $(( $(date +%s) - start )) s" >>"$OUT/$name.log"
}
COMMON="--dataset $DATASET --epochs $EPOCHS --threads 2 --seed 1 --no-baseline"
run emd-knn emd-knn --dataset "$DATASET" --k 10 --test-queries 100000 --threads 2
for recipe in ours ours+ps ours+pd ours+pm sset approx-emd cont; do
  run "$recipe" train $COMMON --recipe "$recipe" --model selfattn "$@"
done
run exemplar train $COMMON --recipe exemplar --model deepsets "$@"
run deepsets+tl train $COMMON --recipe tl --model deepsets "$@"
run ours+tl train $COMMON --recipe tl --model selfattn "$@"
run ours+int train $COMMON --recipe int --model selfattn "$@"
run ours+int-10pct train $COMMON --recipe int --model selfattn --label-fraction 0.1 "$@"
