#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 setscope developers
# Optimizer steps per hour of WSSET (recipe ours) on 2 cores, and where a step's time goes
# (docs/BENCHMARKS.md "Issue 28: the step profile and steps per hour"; target: >= 4 000 steps
# in an hour with the preset a user gets by default).
#
#   bench/nn/steps_per_hour.sh [build-dir] [FIRST] [LAST] [DATASET]
#
# Each configuration trains FIRST and LAST steps without evaluation (the same batches, seed 1);
# the difference of the two runs' training times over LAST - FIRST steps is the step time, so
# start-up and the first steps' warm-up drop out. The phase split is the LAST run's sum of
# each phase (the epoch rows' *-seconds values) over its steps. Then one run of LAST steps
# with the evaluation after every epoch, as a user's run has it, gives the wall time per
# step with evaluation. The reference is ../shared/bench/encoder_reference.py (Debian's
# PyTorch, python3-torch): the paper's encoder trained as the public code does, every set
# padded to the longest of the dataset, batches of 64; its sets per second against
# setscope's paper preset (also batches of 64) is the ratio printed last.
set -euo pipefail
build=${1:-build}; first=${2:-4}; last=${3:-40}; dataset=${4:-debian-descriptions:balanced=25,tf=1}
cli="$build/app/cli/setscope-cli"
here=$(cd "$(dirname "$0")" && pwd)
reference=${REFERENCE:-$here/../../../shared/bench/encoder_reference.py}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo '{"evaluate_each_epoch": false}' > "$tmp/noeval.json"
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}

"$cli" emd-matrix --dataset "$dataset" --out "$tmp/m.npy" >/dev/null 2>&1 # cached: the batches read their EMDs

run() { # steps, config (or ""), flags...
  local steps=$1 config=$2; shift 2
  "$cli" train --dataset "$dataset" --recipe ours --no-baseline --epochs 1000 --seed 1 --threads 2 \
      --max-steps "$steps" ${config:+--config "$config"} "$@" >"$tmp/out" 2>"$tmp/err"
}
seconds() { grep -o '([0-9.]*s)' "$tmp/out" | tail -1 | tr -d '()s'; }
phase() { grep '^epoch' "$tmp/out" | grep -v best | grep -o "$1-seconds [0-9.e+-]*" | awk '{s += $2} END {print s + 0}'; }

measure() { # label, flags...
  local label=$1; shift
  run "$first" "$tmp/noeval.json" "$@"; local a; a=$(seconds)
  run "$last" "$tmp/noeval.json" "$@"; local b; b=$(seconds)
  local model; model=$(grep -o 'a dataset of sets: [^(]*' "$tmp/err" | head -1 || true)
  local steps forward backward loss collate optimizer
  steps=$(phase step); forward=$(phase forward); backward=$(phase backward); loss=$(phase loss)
  collate=$(phase collate); optimizer=$(phase optimizer)
  run "$last" "" "$@"; local withEval; withEval=$(seconds)
  local batch; batch=$(grep -o 'random batches of [0-9]*' "$tmp/err" | head -1 | awk '{print $4}')
  python3 - "$label" "$a" "$b" "$withEval" "$steps" "$forward" "$backward" "$loss" "$collate" "$optimizer" "$batch" "$model" <<'PY'
import sys
label, a, b, we, st, fw, bw, lo, co, op, batch, model = sys.argv[1], *map(float, sys.argv[2:11]), int(sys.argv[11] or 0), sys.argv[12]
first, last = int(__import__('os').environ['FIRST']), int(__import__('os').environ['LAST'])
t = (b - a) / (last - first)
share = lambda x: f"{100 * x / st:4.1f} %" if st > 0 else "-"
print(f"{label}: {t:.3f} s/step, {3600 / t:,.0f} steps/hour without evaluation, "
      f"{3600 * last / we:,.0f} with an evaluation per epoch ({we:.1f} s for {last} steps); batch {batch}, "
      f"{batch / t:.1f} sets/s {('[' + model.strip() + ']') if model else ''}")
print(f"    profile of {last} steps: forward {share(fw)}, backward {share(bw)}, loss (mining, EMD weights) {share(lo)}, "
      f"collate {share(co)}, optimizer {share(op)}, other {share(st - fw - bw - lo - co - op)}")
with open(__import__('os').environ['RATES'], 'a') as f:
    f.write(f"{label}\t{batch / t}\n")
PY
}
export FIRST=$first LAST=$last RATES=$tmp/rates
echo "$dataset, recipe ours, steps $first..$last, 2 threads; load $(cut -d' ' -f1-3 /proc/loadavg); $(git -C "$here" rev-parse --short HEAD 2>/dev/null || true)"
measure "default (set dataset: selfattn, preset cpu)"
measure "paper preset (selfattn 5 layers, 7 heads, ff 1000, batch 64)" --preset paper
measure "paper encoder at batch 32" --preset cpu --layers 5 --heads 7 --ff 1000 --rho 512,256

# The padded reference on the same set sizes.
"$cli" info "$dataset" --sizes "$tmp/sizes.txt" >/dev/null 2>&1 || true
if [ -s "$tmp/sizes.txt" ] && [ -f "$reference" ] && /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  dim=$(grep -o 'dim [0-9]*' "$tmp/err" | head -1 | awk '{print $2}')
  pad=$(( (dim + 6) / 7 * 7 ))
  ref=$(/usr/bin/python3 "$reference" --sizes-file "$tmp/sizes.txt" --dim "$pad" --batches 3 --threads 2)
  echo "reference (padded, unmasked, python3-torch): $ref"
  python3 - "$ref" "$RATES" <<'PY'
import json, sys
ref = json.loads(sys.argv[1])["sets_per_s"]
rates = dict(l.rstrip("\n").split("\t") for l in open(sys.argv[2]))
for label, r in rates.items():
    print(f"setscope {label}: {float(r) / ref:.2f}x the reference's sets/s")
PY
else
  echo "reference skipped: needs the set sizes (setscope-cli info --sizes), $reference and python3-torch"
fi
