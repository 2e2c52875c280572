#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 setscope developers
#
# Runs the fuzz targets with clang 14's libFuzzer, AddressSanitizer and UBSan (Debian:
# clang-14, libclang-rt-14-dev):
#
#   tests/fuzz/run.sh [SECONDS [TARGET...]]      (default: 600 s, every target;
#                                                 0 s: build, then replay the seeds once)
#
# Each target is built into build-fuzz/ from the reader's own sources and Debian's libraries
# (no Qt; LibTorch for the checkpoint target only), one target at a time (never two fuzzers
# at once), starts from its checked-in seeds (tests/fuzz/corpus/TARGET) and regression inputs
# (tests/fuzz/regressions/TARGET), keeps what it learns in build-fuzz/corpus/TARGET, and
# writes a crashing, leaking, hanging, memory-hungry or UBSan-reporting input to
# tests/fuzz/regressions/TARGET/: commit it with the fix, and the fuzz_corpus test replays it in
# every normal build from then on.
#
# Limits (every target; rss_TARGET / timeout_TARGET override them): -rss_limit_mb=1024 (and
# libFuzzer's -malloc_limit_mb, the same) and -timeout=10 s per input (30 s for the two archive
# targets, below). The inputs of issue 29 §1
# -- a 1.7 KB archive whose check ran without end, a 61 KB one that took 10 GB -- would each have
# been a finding under them. A target with a dictionary (tests/fuzz/dict/, dict_TARGET) gets it
# (-dict=): the pickle opcodes for the archive targets.
#
# At the end (also when a target stops at a finding) a table gives per target the seconds, the
# executions, the coverage (edges and features), the corpus, the peak RSS and the finding; it is
# appended to build-fuzz/report.txt with the date, the commit and the load, and each target's
# whole output is in build-fuzz/logs/TARGET.log.
set -eu
cd "$(dirname "$0")/../.."
seconds="${1:-600}"
rss_limit_mb="${RSS_LIMIT_MB:-1024}"
timeout_s="${TIMEOUT_S:-10}"
[ $# -gt 0 ] && shift
all="mat_claims idx npy csv corpus_tsv word_vectors tudataset sdf mesh_off mesh_ply mesh_obj mesh_stl mesh_xyz
     pairwise_cache plugin_info fetch_lists fetch_archives project_file checkpoint torch_archive pack"
targets="${*:-$all}"
CXX="${CXX_FUZZ:-clang++-14}"
out=build-fuzz
mkdir -p "$out/include/setscope/sdk"

# Per target: the sources beside the target's own file (tests/fuzz/targets/...), the
# function, the libraries. The generated stop-word list is made here (CMake makes it in a
# normal build).
sources_mat_claims="tests/fuzz/targets/MatTargets.cpp core/data/MatV5Check.cpp"
function_mat_claims="setscope::fuzz::matClaims"
libs_mat_claims="-lz"

data="tests/fuzz/targets/DataTargets.cpp core/data/IdxLoader.cpp core/data/VectorLoaders.cpp core/data/Csv.cpp
      core/data/DatasetPack.cpp core/data/Dataset.cpp core/util/Hash.cpp core/util/Memory.cpp core/util/AtomicFile.cpp core/util/Faults.cpp"
sources_idx="$data"; function_idx="setscope::fuzz::idx"; libs_idx="-lz -lxxhash"
sources_npy="$data"; function_npy="setscope::fuzz::npy"; libs_npy="-lz -lxxhash"
sources_csv="$data"; function_csv="setscope::fuzz::csv"; libs_csv="-lz -lxxhash"
sources_pack="$data"; function_pack="setscope::fuzz::pack"; libs_pack="-lz -lxxhash"

text="tests/fuzz/targets/TextTargets.cpp core/data/text/Corpus.cpp core/data/text/Tokenizer.cpp
      core/data/text/WordVectors.cpp core/util/Hash.cpp core/util/Paths.cpp $out/StopWordsEn.cpp"
sources_corpus_tsv="$text"; function_corpus_tsv="setscope::fuzz::corpusTsv"; libs_corpus_tsv="-lxxhash -lfasttext"
sources_word_vectors="$text"; function_word_vectors="setscope::fuzz::wordVectors"; libs_word_vectors="-lxxhash -lfasttext"

graph="tests/fuzz/targets/GraphTargets.cpp core/data/graph/Graph.cpp core/data/graph/TextLines.cpp
       core/data/graph/TuDataset.cpp core/data/graph/Sdf.cpp core/data/Dataset.cpp core/util/Hash.cpp
       core/util/SpecOptions.cpp core/util/Memory.cpp core/util/AtomicFile.cpp core/util/Faults.cpp"
sources_tudataset="$graph"; function_tudataset="setscope::fuzz::tuDataset"; libs_tudataset="-lxxhash"
sources_sdf="$graph"; function_sdf="setscope::fuzz::sdf"; libs_sdf="-lxxhash"

mesh="tests/fuzz/targets/MeshTargets.cpp core/data/mesh/MeshReaders.cpp core/data/mesh/OffReader.cpp
      core/data/mesh/PlyReader.cpp core/data/mesh/ObjReader.cpp core/data/mesh/StlReader.cpp"
for m in off ply obj stl xyz; do
  eval "sources_mesh_$m=\"\$mesh\"; libs_mesh_$m=''"
done
function_mesh_off="setscope::fuzz::meshOff"; function_mesh_ply="setscope::fuzz::meshPly"
function_mesh_obj="setscope::fuzz::meshObj"; function_mesh_stl="setscope::fuzz::meshStl"
function_mesh_xyz="setscope::fuzz::meshXyz"

sources_pairwise_cache="tests/fuzz/targets/PairwiseTargets.cpp core/ot/PairwiseMatrix.cpp core/ot/Emd.cpp
  core/ot/Chamfer.cpp core/ot/CostMatrix.cpp core/ot/PointSet.cpp core/data/Dataset.cpp core/job/Job.cpp
  core/util/Hash.cpp core/util/Paths.cpp core/util/Memory.cpp core/util/AtomicFile.cpp core/util/Faults.cpp"
function_pairwise_cache="setscope::fuzz::pairwiseCache"; libs_pairwise_cache="-lxxhash -lpthread"

sources_plugin_info="tests/fuzz/targets/PluginTargets.cpp core/plugin/PluginInfo.cpp"
function_plugin_info="setscope::fuzz::pluginInfo"; libs_plugin_info=""

fetch="tests/fuzz/targets/FetchTargets.cpp core/fetch/Fetchers.cpp core/fetch/FetchContext.cpp core/fetch/Subprocess.cpp
       core/fetch/corpora/CorpusWriter.cpp core/fetch/corpora/LineReader.cpp core/fetch/corpora/WordnetGlosses.cpp
       core/fetch/corpora/BrownCorpus.cpp core/fetch/corpora/DebianDescriptions.cpp core/data/IdxLoader.cpp
       core/job/Job.cpp core/util/Hash.cpp core/util/Memory.cpp core/util/AtomicFile.cpp core/util/Faults.cpp"
libs_fetch="-lz -lzip -larchive -lxxhash -lpthread"
sources_fetch_lists="$fetch"; function_fetch_lists="setscope::fuzz::fetchLists"; libs_fetch_lists="$libs_fetch"
sources_fetch_archives="$fetch"; function_fetch_archives="setscope::fuzz::fetchArchives"; libs_fetch_archives="$libs_fetch"

sources_project_file="tests/fuzz/targets/ProjectTargets.cpp core/project/ProjectStore.cpp"
function_project_file="setscope::fuzz::projectFile"; libs_project_file="-lsqlite3 -lpthread"

# LibTorch from Debian (not instrumented: ASan sees only setscope's side of the calls).
archive="core/train/ArchiveCheck.cpp core/util/InputBudget.cpp core/util/Memory.cpp"
sources_checkpoint="tests/fuzz/targets/CheckpointTargets.cpp core/train/CheckedLoad.cpp $archive"
function_checkpoint="setscope::fuzz::checkpoint"; libs_checkpoint="-ltorch -ltorch_cpu -lc10 -lpthread -lzip -lz"
# The archive check alone, without LibTorch.
sources_torch_archive="tests/fuzz/targets/ArchiveTargets.cpp $archive"
function_torch_archive="setscope::fuzz::torchArchive"; libs_torch_archive="-lzip -lz"
dict_torch_archive="tests/fuzz/dict/torch_archive.dict"; dict_checkpoint="$dict_torch_archive"
# A refused input may legitimately cost the archive check its full budget (a 16 MiB pickle
# refused at its 262 144th value: 0.25 s in a normal build, about 2 s of CPU here under ASan,
# and torch_archive checks each input three times); on the shared 2-core machine that was 15 s
# of wall time. 30 s still makes an input that never ends (issue 29 §1) a finding.
timeout_torch_archive=30; timeout_checkpoint=30
torch_includes="-I/usr/include/torch/csrc/api/include"
# C++17: LibTorch 1.13's ATen/core/List.h instantiates std::vector<IValue> while IValue is
# incomplete, which libstdc++ 12's constexpr vector refuses under clang in C++20 (gcc builds
# setscope with <torch/torch.h> precompiled, where it is complete).
cxxflags_checkpoint="-std=c++17"
# Debian's LibTorch 1.13 leaks ~1.4 KB (its zip reader's state) for every archive it refuses
# (tests/fuzz/regressions/checkpoint/libtorch-zip-reader-leak); not setscope's to fix, so
# LeakSanitizer is off for this target (libFuzzer's per-input check and ASan's at exit) and
# the fuzzer looks for everything else.
fuzzflags_checkpoint="-detect_leaks=0"
asan_checkpoint="detect_leaks=0"

# What CMake generates in a normal build.
sed -e "s/@SETSCOPE_SDK_TORCH_VERSION@/$(sed -n 's/^#define TORCH_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)/\2/p' \
      /usr/include/torch/csrc/api/include/torch/version.h | paste -sd.)/" \
    -e 's/@SETSCOPE_SDK_TORCH_VERSION_[A-Z]*@/0/' plugins/sdk/TorchVersion.h.in > "$out/include/setscope/sdk/TorchVersion.h.new"
cmp -s "$out/include/setscope/sdk/TorchVersion.h.new" "$out/include/setscope/sdk/TorchVersion.h" \
  || mv "$out/include/setscope/sdk/TorchVersion.h.new" "$out/include/setscope/sdk/TorchVersion.h"
{
  echo '// Generated by tests/fuzz/run.sh from resources/text/stopwords-en.txt.'
  echo '#include <string_view>'
  echo 'namespace setscope::data { extern const std::string_view kStopWordsEnText;'
  printf 'const std::string_view kStopWordsEnText = R"sw('
  cat resources/text/stopwords-en.txt
  echo ')sw"; }'
} > "$out/StopWordsEn.cpp.new"
cmp -s "$out/StopWordsEn.cpp.new" "$out/StopWordsEn.cpp" || mv "$out/StopWordsEn.cpp.new" "$out/StopWordsEn.cpp"

version=$(sed -n 's/^project(setscope VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
flags="-std=c++20 -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -DSETSCOPE_VERSION=\"$version\""
includes="-I. -Iplugins/sdk/include -I$out/include -I/usr/include/eigen3 $torch_includes"
# Compiles one source into $out/obj/ unless its object is newer than it and than every file
# it included (the compiler's -MMD list). Objects are shared by the targets; only Main.cpp
# differs between them.
stale() {
  [ -f "$1" ] && [ -f "$1.d" ] || return 0
  for dep in $(sed -e 's/\\$//' -e 's/^[^:]*://' "$1.d"); do
    [ "$dep" -nt "$1" ] && return 0
  done
  return 1
}
object() {
  o="$out/obj/$(echo "$1" | tr / _).o"
  if stale "$o"; then
    mkdir -p "$out/obj"
    echo "   compiling $1" >&2
    $CXX $flags $includes ${cxxflags_extra:-} -MMD -MF "$o.d" -c "$1" -o "$o" || return 1
  fi
  echo "$o"
}

mkdir -p "$out/logs"
report="$out/report.txt"
summary=""
row() { summary="$summary$(printf '%-16s %6s %12s %8s %8s %10s %9s  %s' "$@")
"; }
row target seconds executions edges features corpus "peak RSS" finding

for t in $targets; do
  eval "src=\${sources_$t:-}; fn=\${function_$t:-}; libs=\${libs_$t:-}; cxxflags_extra=\${cxxflags_$t:-}; fuzzflags=\${fuzzflags_$t:-}; asan=\${asan_$t:-}"
  eval "dict=\${dict_$t:-}; rss=\${rss_$t:-$rss_limit_mb}; tmo=\${timeout_$t:-$timeout_s}"
  [ -n "$fn" ] || { echo "unknown target $t (targets: $all)" >&2; exit 2; }
  bin="$out/fuzz_$t"
  echo "== $t: building"
  objs=""
  for f in tests/fuzz/targets/FuzzTargets.cpp $src; do
    objs="$objs $(object "$f")" || exit 1
  done
  $CXX $flags $includes -DSETSCOPE_FUZZ_TARGET="$fn" tests/fuzz/libfuzzer/Main.cpp $objs $libs -o "$bin"
  mkdir -p "$out/corpus/$t" "tests/fuzz/regressions/$t"
  limits="-rss_limit_mb=$rss -malloc_limit_mb=$rss -timeout=$tmo"
  [ -n "$dict" ] && limits="$limits -dict=$dict"
  log="$out/logs/$t.log"
  if [ "$seconds" = 0 ]; then
    # 0 s: no fuzzing, only every seed and regression input once (a quick check of a build).
    echo "== $t: replaying the seeds and regression inputs ($limits)"
    rc=0
    ASAN_OPTIONS="${asan:-${ASAN_OPTIONS:-}}" "$bin" -runs=0 $limits $fuzzflags -artifact_prefix="$out/" \
      "tests/fuzz/corpus/$t" "tests/fuzz/regressions/$t" > "$log" 2>&1 || rc=$?
    tail -n 3 "$log"
    [ "$rc" = 0 ] || { echo "== $t: the replay failed (exit $rc), see $log" >&2; cat "$log" >&2; exit 1; }
    continue
  fi
  echo "== $t: fuzzing for $seconds s ($limits)"
  start=$(date +%s)
  rc=0
  ASAN_OPTIONS="${asan:-${ASAN_OPTIONS:-}}" "$bin" -max_total_time="$seconds" $limits -print_final_stats=1 $fuzzflags \
    -artifact_prefix="tests/fuzz/regressions/$t/" "$out/corpus/$t" "tests/fuzz/corpus/$t" "tests/fuzz/regressions/$t" \
    > "$log" 2>&1 || rc=$?
  took=$(( $(date +%s) - start ))
  tail -n 12 "$log"
  # libFuzzer's own figures: the last status line (cov, ft, corp) and the final stats.
  status=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  [ -n "$execs" ] || execs=$(echo "$status" | sed -n 's/^#\([0-9]*\).*/\1/p')
  peak=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -n 1)
  [ -n "$peak" ] || peak=$(echo "$status" | sed -n 's/.*rss: *\([0-9]*\)Mb.*/\1/p')
  cov=$(echo "$status" | sed -n 's/.*cov: *\([0-9]*\).*/\1/p')
  ft=$(echo "$status" | sed -n 's/.*ft: *\([0-9]*\).*/\1/p')
  corp=$(echo "$status" | sed -n 's/.*corp: *\([0-9]*\/[0-9A-Za-z]*\).*/\1/p')
  finding=none
  if [ "$rc" != 0 ]; then
    finding=$(grep -m1 -oE 'ERROR: libFuzzer: [a-z-]+|ERROR: AddressSanitizer: [a-z-]+|runtime error|ERROR: LeakSanitizer' "$log" || echo "exit $rc")
    artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
    [ -n "$artifact" ] && finding="$finding ($artifact)"
  fi
  row "$t" "$took" "${execs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "${peak:-?} MB" "$finding"
done

if [ "$seconds" != 0 ]; then
  echo
  echo "== per target (limits: rss ${rss_limit_mb} MB, ${timeout_s} s per input unless the target sets its own)"
  printf '%s' "$summary"
  {
    echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $seconds s per target, load $(cut -d' ' -f1-3 /proc/loadavg)"
    printf '%s' "$summary"
  } >> "$report"
fi
