#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 setscope developers
# Training throughput of data-parallel ranks on this machine (docs/DISTRIBUTED.md "Measured"):
# WSSET (recipe ours) with the attention encoder on debian-descriptions, batches of 64, no
# evaluation. Each configuration runs FIRST and LAST steps; the difference of the two runs'
# training times (the last epoch row's seconds) over LAST - FIRST steps is the step time, so
# start-up and the first steps' warm-up drop out. Both runs see the same batches (same seed).
#   bench/dist/throughput.sh [build-dir] [FIRST] [LAST]
set -euo pipefail
build=${1:-build}; first=${2:-2}; last=${3:-14}
cli="$build/app/cli/setscope-cli"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo '{"evaluate_each_epoch": false}' > "$tmp/noeval.json"
seconds() { # steps, then env and flags
  local steps=$1; shift
  env "$@" "$cli" train --dataset debian-descriptions --recipe ours --model selfattn --config "$tmp/noeval.json" \
      --no-baseline --epochs 1 --seed 1 --max-steps "$steps" ${FLAGS} 2>"$tmp/err" | tee "$tmp/out" >/dev/null
  grep -o '([0-9.]*s)' "$tmp/out" | tail -1 | tr -d '()s'
}
measure() { # label, env, flags
  local label=$1 envs=$2; FLAGS=$3
  local a b; a=$(seconds "$first" $envs); b=$(seconds "$last" $envs)
  local ar; ar=$(grep -o 'allreduce-seconds [0-9.]*' "$tmp/out" | tail -1 | cut -d' ' -f2 || true)
  python3 -c "import sys; a,b,n=float('$a'),float('$b'),$last-$first; t=(b-a)/n; print(f'%-38s %6.3f s/step  %6.1f sets/s%s' % ('$label', t, 64/t, '' if not '$ar' else f'  (all-reduce + waiting for the other rank: {float(\"$ar\")/$last*1000:.0f} ms/step)'))"
}
echo "debian-descriptions, ours + selfattn, batch 64, steps $first..$last; load $(cut -d' ' -f1-3 /proc/loadavg)"
measure "1 rank x 2 threads, whole batch"   "OPENBLAS_NUM_THREADS=2" "--threads 2 --batch-shards 1"
measure "1 rank x 2 threads, 2 parts"       "OPENBLAS_NUM_THREADS=2" "--threads 2 --batch-shards 2"
measure "1 rank x 1 thread, 2 parts"        "OPENBLAS_NUM_THREADS=1" "--threads 1 --batch-shards 2"
measure "2 ranks x 1 thread (--nproc 2)"    "X=1"                     "--nproc 2"
