#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 setscope developers
#
# Builds setscope's CLI and tests against a CUDA LibTorch on a machine without a package
# registry, with the kit tools/gpu/prepare.sh made (.gpu-kit), then runs the tests labelled
# `cuda` and the benchmark, and writes what it saw under $OUT (docs/BENCHMARKS.md "GPU").
# One command, from the repository root, the kit folder travelling with the tree:
#
#   tools/gpu/build-and-run.sh
#
# Phases (each stamped with the seconds since the start; a phase that fails is reported and the
# next one still runs where it can, so one run shows as much as possible):
#   facts      the machine: OS, compilers, CMake, Python's torch, nvidia-smi, nvcc, and probe.sh
#              (PROBE, else .gpu-kit/probe.sh, else ../shared/device/probe.sh), in the background
#   unpack     dpkg -x of every .gpu-kit/debs/*.deb into a private prefix ($WORK/prefix; never
#              into /), then tools/gpu/relocate_prefix.py; skipped when the prefix was made from
#              this kit (its MANIFEST) by an earlier run
#   configure  CLI + tests (-DSETSCOPE_BUILD_GUI=OFF, no benchmarks) against LibTorch (Torch_DIR:
#              SETSCOPE_TORCH_DIR, else python3's torch.utils.cmake_prefix_path) and the prefix
#   build      ninja -k 0 on every core: setscope-cli and the `cuda` tests first, then, after the
#              tests and the benchmark, everything else (so one run lists every compile error)
#   check      tools/gpu/check_prefix.py: the kit's packages came from the prefix
#   tests      ctest -L cuda
#   bench      steps per second of `train --recipe ours --model selfattn` (the paper's encoder,
#              --preset paper --lr 1e-4 as docs/RESULTS.md) on the packed
#              debian-descriptions:balanced=25,tf=1, EMDs from the carried pairwise matrix: on
#              the GPU and, for the ratio, on this machine's CPU
#   long       only with LONG_RUN_SECONDS=N: ours, sset and approx-emd, N seconds each on the
#              GPU (interrupted then), their epoch lines (kNN accuracy) and the best one
#   build-all  the rest of the build (what the tests and the benchmark did not need)
#
# Files under $OUT (plain files, at most 8): summary.txt (phases, times, figures), facts.txt
# (machine, probe.sh), configure.log, build.log, check.txt, tests.log, bench.txt, long.txt.
#
# Environment (all optional):
#   OUT                 where the files go (default: ./gpu-out)
#   SETSCOPE_KIT        the kit (default: .gpu-kit)
#   WORK                scratch: prefix, build, caches (default: .gpu-work in the repository root,
#                       ignored by git: the device keeps ignored folders of the tree between calls
#                       of one session, so a second try rebuilds only what changed)
#   FRESH=1             empty WORK first (a build from nothing)
#   SETSCOPE_TORCH_DIR  the folder of TorchConfig.cmake (CPU proof on Debian:
#                       /usr/lib/x86_64-linux-gnu/cmake/Torch)
#   JOBS                build jobs and --threads (default: nproc)
#   DEADLINE            seconds the whole run may take (default 460); phases shorten or skip to
#                       end by then, the full build last
#   BENCH_DEVICE        cuda (default when a GPU is visible) or cpu
#   BENCH_STEPS         GPU steps timed after the first epoch (default 200); CPU_BENCH_STEPS (40)
#   LONG_RUN_SECONDS    0 (default): no long runs; each long run ends by the deadline too
#   SKIP_TESTS=1, SKIP_BENCH=1  leave those phases out (a second call that adds long runs)
#   STRICT_PREFIX=1     the check phase fails the run when a kit package came from the machine
#   CCACHE=ON           use ccache when installed (off by default: a fresh machine has no cache)
set -uo pipefail

cd "$(dirname "$0")/../.."
root=$(pwd)
T0=$(date +%s)
OUT=${OUT:-$root/gpu-out}
KIT=${SETSCOPE_KIT:-$root/.gpu-kit}
WORK=${WORK:-$root/.gpu-work}
FRESH=${FRESH:-0}
JOBS=${JOBS:-$(nproc)}
DEADLINE=${DEADLINE:-460}
BENCH_STEPS=${BENCH_STEPS:-200}
CPU_BENCH_STEPS=${CPU_BENCH_STEPS:-40}
LONG_RUN_SECONDS=${LONG_RUN_SECONDS:-0}
STRICT_PREFIX=${STRICT_PREFIX:-0}
mkdir -p "$OUT"
summary=$OUT/summary.txt
: > "$summary"
PREFIX=$WORK/prefix
BUILD=$WORK/build
status=0

elapsed() { echo $(( $(date +%s) - T0 )); }
left() { echo $(( DEADLINE - $(elapsed) )); }
note() { echo "$*" | tee -a "$summary"; }
phase() { note "== [$(printf '%4d' "$(elapsed)") s, $(date -u +%H:%M:%S) UTC] $*"; }
fail() { note "   FAILED: $*"; status=1; }
# Runs "$@" with at most $1 seconds (at least 5), output appended to file $2.
bounded() {
  local secs=$1 log=$2; shift 2
  [ "$secs" -lt 5 ] && secs=5
  timeout --kill-after=10 "$secs" "$@" >> "$log" 2>&1
}

phase "setscope GPU kit: build and run (tools/gpu/build-and-run.sh), commit $(git rev-parse --short HEAD 2>/dev/null || cat .git-commit 2>/dev/null || echo '?')"
note "   OUT=$OUT KIT=$KIT WORK=$WORK JOBS=$JOBS DEADLINE=$DEADLINE s"
[ -d "$KIT/debs" ] || { note "   no kit at $KIT (run tools/gpu/prepare.sh where there is a registry, and carry the folder)"; exit 2; }
[ "$FRESH" = 1 ] && rm -rf "$WORK"
mkdir -p "$WORK"
rm -rf "$WORK/cache" "$WORK/data"

# ---------------------------------------------------------------------------------------------
phase "facts"
facts=$OUT/facts.txt
{
  echo "== date: $(date -u)"
  echo "== os: $(. /etc/os-release 2>/dev/null; echo "${PRETTY_NAME:-?}"), kernel $(uname -r), $(uname -m)"
  echo "== cores: $(nproc); memory: $(free -g 2>/dev/null | awk '/Mem:/ {print $2 " GiB, " $7 " GiB available"}')"
  echo "== disk (WORK): $(df -h "$WORK" 2>/dev/null | tail -1)"
  for t in c++ g++ gcc cc clang++ ld ld.gold cmake ninja make python3 nvcc pkg-config dpkg; do
    p=$(command -v "$t" 2>/dev/null) && echo "== $t: $p: $("$t" --version 2>&1 | head -1)" || echo "== $t: (none)"
  done
  echo "== glibc: $(ldd --version 2>&1 | head -1)"
  echo "== python3 torch:"
  python3 - <<'PY' 2>&1
try:
    import os, torch, torch.utils
    print("  torch", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available(),
          "devices", torch.cuda.device_count())
    if torch.cuda.is_available():
        print("  device 0:", torch.cuda.get_device_name(0), torch.cuda.get_device_capability(0))
    print("  cmake_prefix_path", torch.utils.cmake_prefix_path)
    print("  cxx11 abi", torch._C._GLIBCXX_USE_CXX11_ABI)
    inc = os.path.join(os.path.dirname(torch.__file__), "include")
    print("  gloo headers in the wheel:", os.path.exists(os.path.join(inc, "gloo", "config.h")))
    print("  nccl:", torch.cuda.nccl.version() if torch.cuda.is_available() else "-")
except Exception as e:
    print("  no torch:", e)
PY
  echo "== nvidia-smi:"; nvidia-smi --query-gpu=name,memory.total,driver_version,compute_cap --format=csv 2>&1 | head -5
} > "$facts" 2>&1
probe=${PROBE:-}
[ -z "$probe" ] && [ -f "$KIT/probe.sh" ] && probe=$KIT/probe.sh
[ -z "$probe" ] && [ -f "$root/../shared/device/probe.sh" ] && probe=$root/../shared/device/probe.sh
probe_out=$WORK/probe.txt
probe_pid=
if [ -n "$probe" ]; then
  (cd "$root" && timeout 120 bash "$probe" > "$probe_out" 2>&1) &
  probe_pid=$!
  note "   probe.sh ($probe) runs in the background"
else
  echo "(no probe.sh: set PROBE or put it in the kit)" > "$probe_out"
fi
grep -E "^== (os|cores|c\+\+|cmake|ninja|nvcc|glibc)" "$facts" | sed 's/^/   /' | tee -a "$summary" >/dev/null
sed -n '/python3 torch/,/nvidia-smi/p' "$facts" | sed 's/^/   /' >> "$summary"

# ---------------------------------------------------------------------------------------------
if [ -f "$PREFIX/.kit-manifest" ] && [ -f "$KIT/MANIFEST" ] && cmp -s "$PREFIX/.kit-manifest" "$KIT/MANIFEST"; then
  phase "unpack: skipped, $PREFIX was made from this kit by an earlier run (FRESH=1 remakes it)"
else
  phase "unpack: $(ls "$KIT/debs"/*.deb | wc -l) packages into $PREFIX (dpkg -x)"
  rm -rf "$PREFIX"
  mkdir -p "$PREFIX"
  for deb in "$KIT"/debs/*.deb; do
    dpkg -x "$deb" "$PREFIX" || fail "dpkg -x $(basename "$deb")"
  done
  if python3 tools/gpu/relocate_prefix.py "$PREFIX" > "$WORK/relocate.log" 2>&1; then
    [ -f "$KIT/MANIFEST" ] && cp "$KIT/MANIFEST" "$PREFIX/.kit-manifest"
  else
    fail "relocate_prefix.py (see check.txt)"
  fi
  note "   $(tail -1 "$WORK/relocate.log")"
fi

libdirs=$PREFIX/usr/lib/x86_64-linux-gnu:$PREFIX/lib/x86_64-linux-gnu:$PREFIX/usr/lib/x86_64-linux-gnu/openblas-pthread
# LibTorch's own CUDA libraries (pip's nvidia-* packages beside torch): the linker follows the
# shared libraries' dependencies through these.
nvlibs=$(python3 - <<'PY' 2>/dev/null
import glob, os
try:
    import torch
    site = os.path.dirname(os.path.dirname(torch.__file__))
    dirs = [os.path.join(os.path.dirname(torch.__file__), "lib")] + sorted(glob.glob(os.path.join(site, "nvidia", "*", "lib")))
    dirs += sorted(glob.glob(os.path.join(site, "nvidia", "cu*", "lib")))
    print(":".join(d for d in dirs if os.path.isdir(d)))
except Exception:
    pass
PY
)
export LD_LIBRARY_PATH=$libdirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PKG_CONFIG_LIBDIR=$PREFIX/usr/lib/x86_64-linux-gnu/pkgconfig:$PREFIX/usr/share/pkgconfig
export PKG_CONFIG_PATH=
export XDG_CACHE_HOME=$WORK/cache
export SETSCOPE_DATA_DIR=$WORK/data
mkdir -p "$XDG_CACHE_HOME" "$SETSCOPE_DATA_DIR"
[ -d "$KIT/data/cache/setscope" ] && cp -r "$KIT/data/cache/setscope" "$XDG_CACHE_HOME/"
for d in /usr/local/cuda/bin /usr/local/cuda-13/bin; do [ -d "$d" ] && PATH=$PATH:$d; done
export PATH

# ---------------------------------------------------------------------------------------------
phase "configure"
torch_dir=${SETSCOPE_TORCH_DIR:-}
if [ -z "$torch_dir" ]; then
  tp=$(python3 -c 'import torch.utils; print(torch.utils.cmake_prefix_path)' 2>/dev/null)
  [ -n "$tp" ] && torch_dir=$tp/Torch
fi
note "   Torch_DIR=${torch_dir:-(not found: python3 cannot import torch; set SETSCOPE_TORCH_DIR)}"
linkflags="-Wl,-rpath-link,$libdirs${nvlibs:+:$nvlibs}"
cuda_args=()
[ -d /usr/local/cuda ] && cuda_args+=(-DCUDAToolkit_ROOT=/usr/local/cuda)
export TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-9.0}
configure_log=$OUT/configure.log
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DSETSCOPE_BUILD_GUI=OFF -DSETSCOPE_BUILD_BENCH=OFF -DSETSCOPE_USE_CCACHE="${CCACHE:-OFF}" \
  -DCMAKE_PREFIX_PATH="$PREFIX/usr" -DTorch_DIR="$torch_dir" \
  -DPKG_CONFIG_EXECUTABLE="$PREFIX/usr/bin/pkgconf" \
  -DCMAKE_POLICY_VERSION_MINIMUM=3.5 \
  -DCMAKE_EXE_LINKER_FLAGS="$linkflags" -DCMAKE_SHARED_LINKER_FLAGS="$linkflags" \
  "${cuda_args[@]}" > "$configure_log" 2>&1
configured=$?
grep -E "setscope:|Found Torch|CUDA|Gloo|NCCL|Warning|Error" "$configure_log" | head -40 | sed 's/^/   /' >> "$summary"
[ $configured = 0 ] || fail "cmake configure (exit $configured; configure.log)"

# ---------------------------------------------------------------------------------------------
build_log=$OUT/build.log
: > "$build_log"
cuda_targets=""
if [ $configured = 0 ]; then
  cuda_targets=$(cd "$BUILD" && ctest -N -L cuda 2>/dev/null | sed -nE 's/^ *Test +#[0-9]+: ([^ .]+).*$/tst_\1/p' | sort -u | tr '\n' ' ')
  phase "build: setscope-cli and the cuda tests ($cuda_targets), ninja -k 0 -j $JOBS"
  echo "== ninja -k 0 setscope-cli $cuda_targets" >> "$build_log"
  # shellcheck disable=SC2086
  bounded $(( $(left) - 150 )) "$build_log" ninja -C "$BUILD" -k 0 -j "$JOBS" setscope-cli $cuda_targets
  built=$?
  [ $built = 0 ] || fail "build of setscope-cli and the cuda tests (exit $built; build.log: $(grep -c 'FAILED:' "$build_log") failed steps)"
  note "   $(grep -cE '^\[[0-9]+/[0-9]+\]' "$build_log") steps"
fi
cli=$BUILD/app/cli/setscope-cli

# ---------------------------------------------------------------------------------------------
phase "check: the kit's packages from the prefix"
check=$OUT/check.txt
{
  cat "$WORK/relocate.log"
  echo
  if [ -f "$BUILD/build.ninja" ]; then
    python3 tools/gpu/check_prefix.py "$BUILD" "$PREFIX" "$KIT/debs" $([ "$STRICT_PREFIX" = 1 ] && echo --strict)
  else
    echo "no build to check"
  fi
} > "$check" 2>&1
checked=$?
grep -E "^check:" "$check" | sed 's/^/   /' >> "$summary"
[ $checked = 0 ] || fail "a package of the kit came from the machine (check.txt)"

# ---------------------------------------------------------------------------------------------
phase "tests: ctest -L cuda"
tests_log=$OUT/tests.log
: > "$tests_log"
if [ "${SKIP_TESTS:-0}" = 1 ]; then
  echo "skipped (SKIP_TESTS=1)" | tee -a "$tests_log" >> "$summary"
elif [ -x "$cli" ] && [ -n "$cuda_targets" ]; then
  bounded $(( $(left) - 120 )) "$tests_log" ctest --test-dir "$BUILD" -L cuda --output-on-failure --timeout 300 -j 1
  r=$?
  tail -n 12 "$tests_log" | grep -E "tests passed|tests failed|Not Run|Skipped|\*\*\*|Failed|Passed" | sed 's/^/   /' >> "$summary"
  [ $r = 0 ] || fail "ctest -L cuda (exit $r; tests.log)"
else
  echo "not run: setscope-cli or the cuda tests were not built" | tee -a "$tests_log" >> "$summary"
fi

# ---------------------------------------------------------------------------------------------
bench=$OUT/bench.txt
: > "$bench"
pack=$(ls "$KIT"/data/*.setpack 2>/dev/null | head -1)
gpu=cpu
if [ -x "$cli" ] && "$cli" train --dataset "synthetic:points=4" --device cuda --max-steps 1 --epochs 1 --no-baseline \
     > /dev/null 2>&1; then
  gpu=cuda
fi
BENCH_DEVICE=${BENCH_DEVICE:-$gpu}
# One timed run: prints "<steps> <seconds> <steps of epoch 1> <step seconds>" of the epochs after
# the first (warm-up: CUDA and cuBLAS initialisation, the first allocations), from the epoch
# lines "epoch N  step S  ...  step-seconds X ...  (T s)", T the run's wall time at the epoch's
# end (evaluation included), X the time its steps took (docs/METRICS.md). The line of the model
# kept at the end ("[best (epoch N)]") is no epoch of training and is left out.
bench_run() { # device steps threads label
  local device=$1 steps=$2 threads=$3 label=$4 log=$WORK/bench-$4.log
  echo "== $label: setscope-cli train --dataset PACK --recipe ours --model selfattn --preset paper --lr 1e-4 --epochs 1000 --max-steps $steps --seed 1 --no-baseline --threads $threads --device $device" >> "$bench"
  : > "$log"  # WORK outlives a call: never parse an earlier call's epochs
  local t0; t0=$(date +%s.%N)
  bounded $(( $(left) - 30 )) "$log" "$cli" train --dataset "$pack" --recipe ours --model selfattn --preset paper --lr 1e-4 \
    --epochs 1000 --max-steps "$steps" --seed 1 --no-baseline --threads "$threads" --device "$device"
  local r=$? t1; t1=$(date +%s.%N)
  grep -E "^epoch|peak memory|device|final|dataset|emd|EMD|cache" "$log" | head -60 >> "$bench"
  echo "exit $r, wall $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b - a}') s" >> "$bench"
  # the time in brackets is the run's wall time at the end of that epoch
  awk '/^epoch [0-9]+ +step/ && !/\[best/ { n++; step = $4; s = $NF; gsub(/[()s]/, "", s); x = 0;
         for (i = 1; i < NF; i++) if ($i == "step-seconds") x = $(i + 1);
         if (n == 1) { first = step; t1 = s } else { last = step; tl = s; train += x } }
       END { if (n >= 2) printf "%d %.3f %d %.3f\n", last - first, tl - t1, first, train; else print "0 0 0 0" }' "$log"
}
if [ "${SKIP_BENCH:-0}" = 1 ]; then
  phase "bench: skipped (SKIP_BENCH=1)"
elif [ -x "$cli" ] && [ -n "$pack" ]; then
  phase "bench: ours + selfattn on $(basename "$pack"), $BENCH_DEVICE (about $BENCH_STEPS steps after epoch 1) and cpu (about $CPU_BENCH_STEPS)"
  read -r gs gsec gfirst gtrain < <(bench_run "$BENCH_DEVICE" $(( BENCH_STEPS + 20 )) "$JOBS" "$BENCH_DEVICE")
  if [ "$BENCH_DEVICE" = cpu ]; then
    cs=$gs csec=$gsec ctrain=$gtrain  # no GPU: the one run is the CPU's
  else
    read -r cs csec _ ctrain < <(bench_run cpu $(( CPU_BENCH_STEPS + 20 )) "$JOBS" cpu-here)
  fi
  {
    echo
    echo "== figures (steps per second over the epochs after the first: each epoch's wall time, its evaluation included, and its steps' own time, step-seconds)"
    awk -v gs="$gs" -v gsec="$gsec" -v cs="$cs" -v csec="$csec" -v dev="$BENCH_DEVICE" -v per="$gfirst" -v jobs="$JOBS" \
        -v gtrain="$gtrain" -v ctrain="$ctrain" 'BEGIN {
      g = (gsec > 0) ? gs / gsec : 0; c = (csec > 0) ? cs / csec : 0;
      printf "%s: %d steps in %.2f s: %.2f steps/s; steps alone %.2f s: %.2f steps/s\n", dev, gs, gsec, g, gtrain, (gtrain > 0) ? gs / gtrain : 0;
      if (dev != "cpu") {
        printf "cpu (%d threads, this machine): %d steps in %.2f s: %.2f steps/s; steps alone %.2f s: %.2f steps/s\n", jobs, cs, csec, c, ctrain, (ctrain > 0) ? cs / ctrain : 0;
        if (g > 0 && c > 0) printf "ratio %s / cpu: %.1f; steps alone: %.1f\n", dev, g / c, (gtrain > 0 && ctrain > 0) ? (gs / gtrain) / (cs / ctrain) : 0;
      }
      if (per > 0 && g > 0) printf "steps per epoch: %d; 1000 epochs (%d steps) at the %s rate: %.0f s (%.1f min)\n", per, 1000 * per, dev, 1000 * per / g, 1000 * per / g / 60;
    }'
  } | tee -a "$bench" | sed 's/^/   /' >> "$summary"
else
  phase "bench: skipped (no setscope-cli or no pack in the kit)"
fi

# ---------------------------------------------------------------------------------------------
if [ "$LONG_RUN_SECONDS" -gt 0 ] 2>/dev/null && [ -x "$cli" ] && [ -n "$pack" ]; then
  long=$OUT/long.txt
  : > "$long"
  phase "long runs: ours, sset, approx-emd, $LONG_RUN_SECONDS s each on $BENCH_DEVICE"
  for recipe in ours sset approx-emd; do
    log=$WORK/long-$recipe.log
    secs=$LONG_RUN_SECONDS
    [ "$secs" -gt $(( $(left) - 40 )) ] && secs=$(( $(left) - 40 ))
    [ "$secs" -lt 10 ] && { note "   $recipe: no time left before the deadline"; continue; }
    echo "== $recipe: setscope-cli train --dataset PACK --recipe $recipe --model selfattn --preset paper --lr 1e-4 --epochs 1000 --seed 1 --no-baseline --threads $JOBS --device $BENCH_DEVICE (interrupted after $secs s)" >> "$long"
    timeout --signal=INT --kill-after=20 "$secs" "$cli" train --dataset "$pack" --recipe "$recipe" --model selfattn \
      --preset paper --lr 1e-4 --epochs 1000 --seed 1 --no-baseline --threads "$JOBS" --device "$BENCH_DEVICE" > "$log" 2>&1
    grep -E "^epoch" "$log" >> "$long"
    last=$(grep -E "^epoch" "$log" | tail -1)
    best=$(grep -E "^epoch" "$log" | awk '{ for (i = 1; i < NF; i++) if ($i == "kNN") if ($(i+1) > b) { b = $(i+1); line = $0 } } END { print line }')
    note "   $recipe: $(grep -cE '^epoch' "$log") epochs; last: ${last:-none}"
    note "   $recipe: best test kNN: ${best:-none}"
  done
fi

# ---------------------------------------------------------------------------------------------
if [ $configured = 0 ]; then
  phase "build-all: the rest, ninja -k 0 -j $JOBS ($(left) s left)"
  echo "== ninja -k 0 (all)" >> "$build_log"
  bounded $(( $(left) - 10 )) "$build_log" ninja -C "$BUILD" -k 0 -j "$JOBS"
  r=$?
  failed=$(grep -c '^FAILED:' "$build_log")
  if [ $r = 124 ] || [ $r = 137 ]; then
    note "   stopped at the deadline: $(tail -1 "$build_log" | cut -c1-120)"
  fi
  [ $r = 0 ] || fail "build (exit $r): $failed failed steps; their first errors:"
  grep -A3 '^FAILED:' "$build_log" | grep -E 'error' | sort -u | head -20 | sed 's/^/     /' >> "$summary"
fi

# ---------------------------------------------------------------------------------------------
if [ -n "$probe_pid" ]; then
  wait "$probe_pid" 2>/dev/null
fi
{ echo; echo "== probe.sh ($probe)"; cat "$probe_out"; } >> "$facts"
# Keep every file within the device's 16 MiB: the head and the tail of a longer log.
for f in "$OUT"/*; do
  if [ "$(stat -c %s "$f")" -gt $((15 * 1024 * 1024)) ]; then
    { head -c $((7 * 1024 * 1024)) "$f"; printf '\n... (cut) ...\n'; tail -c $((7 * 1024 * 1024)) "$f"; } > "$f.cut" && mv "$f.cut" "$f"
  fi
done
phase "done (status $status)"
exit $status
