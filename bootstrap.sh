#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 setscope developers
#
# One command from a fresh Debian 12 machine (as root, or a user with sudo):
#   ./bootstrap.sh run    install what is missing, build, start the GUI on the demo
#   ./bootstrap.sh test   install what is missing, build, run the whole test suite
#   ./bootstrap.sh build  install what is missing and build
#   ./bootstrap.sh asan   the same with AddressSanitizer + UBSan in build-asan, run the whole suite
#   ./bootstrap.sh tsan   ThreadSanitizer in build-tsan (core only), run the job, training,
#                         layout, pairwise and fetch tests
# (docs/RELIABILITY.md "Sanitizers": what each runs, how long, the suppressions).
# Extra arguments after the command go to CMake (e.g. -DCMAKE_PREFIX_PATH=/opt/libtorch
# for a CUDA-enabled LibTorch). BUILD_DIR (default: build, build-asan, build-tsan) selects
# the build folder.
set -euo pipefail

cd "$(dirname "$0")"
cmd="${1:-run}"
shift || true
# The sanitizer builds: the options are handled in cmake/SetscopeSanitizers.cmake. TSan builds
# only core and the test folders it runs (no GUI, no benchmarks); ASan builds everything but
# the benchmarks, which no test runs.
tsan_tests='^(job_|train_|layout_|ot_pairwise$|fetch_|dist_|cli_distributed$)'
case "$cmd" in
  asan)
    BUILD_DIR="${BUILD_DIR:-build-asan}"
    config=(-DSETSCOPE_SANITIZE="address;undefined" -DSETSCOPE_BUILD_BENCH=OFF)
    ;;
  tsan)
    BUILD_DIR="${BUILD_DIR:-build-tsan}"
    config=(-DSETSCOPE_SANITIZE=thread -DSETSCOPE_BUILD_BENCH=OFF -DSETSCOPE_BUILD_GUI=OFF
            "-DSETSCOPE_TEST_DIRS_REGEX=^(core/(job|train|layout|ot|fetch|dist)|cli$)")
    ;;
  *)
    BUILD_DIR="${BUILD_DIR:-build}"
    config=()
    ;;
esac

packages=(
  build-essential cmake ninja-build ccache pkg-config file dpkg-dev
  qt6-base-dev qt6-base-dev-tools libqt6opengl6-dev libgl-dev libegl-dev
  libtorch-dev libgloo-dev libopenblas0-pthread libeigen3-dev libfaiss-dev
  libimgui-dev libsqlite3-dev libfasttext-dev libmatio-dev libcli11-dev nlohmann-json3-dev
  libxxhash-dev zlib1g-dev libzip-dev libarchive-dev libfftw3-dev
  dataset-fashion-mnist rdkit-data
  xvfb xauth libgl1-mesa-dri libglx-mesa0
)
case "$cmd" in
  asan) packages+=(libasan8 libubsan1) ;;  # GCC 12's runtimes (normally there with g++)
  tsan) packages+=(libtsan2) ;;
esac

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "bootstrap: installing ${#missing[@]} missing Debian packages: ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "bootstrap: run as root (or install sudo)" >&2; exit 1; }
    sudo="sudo"
  fi
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

jobs="$(nproc)"
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release "${config[@]}" "$@"
if [ "$cmd" = tsan ]; then
  # Only the executables of the tests TSan runs (CTest test NAME or NAME.function -> tst_NAME).
  targets=$(cd "$BUILD_DIR" && ctest -N -R "$tsan_tests" | sed -nE 's/^ *Test +#[0-9]+: ([^ ]+)$/\1/p' \
            | sed -E 's/\.[A-Za-z]+$//' | sort -u | sed 's/^/tst_/')
  # shellcheck disable=SC2086
  cmake --build "$BUILD_DIR" -j "$jobs" --target $targets
else
  cmake --build "$BUILD_DIR" -j "$jobs"
fi

case "$cmd" in
  build)
    ;;
  run)
    if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ] && [ -z "${QT_QPA_PLATFORM:-}" ]; then
      echo "bootstrap: no display here (DISPLAY is not set), so the GUI cannot open."
      echo "The same job runs headless:"
      echo "  $BUILD_DIR/app/cli/setscope-cli train --dataset fashion-mnist --model mlp --loss triplet --epochs 3"
      echo "or with a virtual display:"
      echo "  xvfb-run -a $BUILD_DIR/app/gui/setscope --train"
      exit 0
    fi
    exec "$BUILD_DIR/app/gui/setscope" --train
    ;;
  test)
    cd "$BUILD_DIR"
    exec ctest --output-on-failure -j "$jobs" --timeout 900
    ;;
  asan)
    # Every test's own limit is already multiplied for the sanitizer (x3); --timeout is for
    # the few without one.
    cd "$BUILD_DIR"
    exec ctest --output-on-failure -j "$jobs" --timeout 2700
    ;;
  tsan)
    cd "$BUILD_DIR"
    exec ctest --output-on-failure -j "$jobs" --timeout 4500 -R "$tsan_tests"
    ;;
  *)
    echo "usage: $0 run|test|build|asan|tsan [cmake arguments]" >&2
    exit 2
    ;;
esac
