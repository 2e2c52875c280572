#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 setscope developers
#
# Runs the fuzz targets with clang 14's libFuzzer, AddressSanitizer and UBSan (Debian:
# clang-14, libclang-rt-14-dev):
#
#   tests/fuzz/run.sh [SECONDS [TARGET...]]      (default: 600 s, every target)
#
# Each target is built into build-fuzz/ from the reader's own sources (no LibTorch, no Qt),
# starts from its checked-in seeds (tests/fuzz/corpus/TARGET) and regression inputs
# (tests/fuzz/regressions/TARGET), keeps what it learns in build-fuzz/corpus/TARGET, and
# writes a crashing or leaking input to tests/fuzz/regressions/TARGET/: commit it with the
# fix, and the fuzz_corpus test replays it in every normal build from then on.
set -eu
cd "$(dirname "$0")/../.."
seconds="${1:-600}"
[ $# -gt 0 ] && shift
targets="${*:-mat_claims}"
CXX="${CXX_FUZZ:-clang++-14}"
out=build-fuzz
mkdir -p "$out"

sources_mat_claims="core/data/MatV5Check.cpp"
function_mat_claims="setscope::fuzz::matClaims"
libs_mat_claims="-lz"

for t in $targets; do
  eval "src=\$sources_$t; fn=\$function_$t; libs=\$libs_$t"
  echo "== $t: building"
  "$CXX" -std=c++20 -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined \
    -fno-sanitize-recover=undefined -I. -Iplugins/sdk/include -DSETSCOPE_FUZZ_TARGET="$fn" \
    tests/fuzz/libfuzzer/Main.cpp tests/fuzz/targets/FuzzTargets.cpp $src $libs -o "$out/fuzz_$t"
  mkdir -p "$out/corpus/$t" "tests/fuzz/regressions/$t"
  echo "== $t: fuzzing for $seconds s"
  "$out/fuzz_$t" -max_total_time="$seconds" -rss_limit_mb=1024 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="tests/fuzz/regressions/$t/" "$out/corpus/$t" "tests/fuzz/corpus/$t" "tests/fuzz/regressions/$t"
done
