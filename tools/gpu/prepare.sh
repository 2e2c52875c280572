#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 setscope developers
#
# Prepares the GPU kit (docs/BENCHMARKS.md "GPU"; README "GPU"): everything a machine that has a
# CUDA LibTorch (PyTorch's, e.g. `python3 -c 'import torch'` works) but no package registry needs
# to build setscope's CLI and tests and run them there, in ONE ignored folder that travels with the
# working tree:
#
#   .gpu-kit/debs/      Debian 12 packages (apt-get download, never installed): the headers,
#                       CMake / pkg-config files and shared libraries the core, the CLI and the
#                       tests link besides LibTorch (FAISS, OpenBLAS, matio + HDF5, fastText,
#                       SQLite, FFTW, libzip, libarchive, xxHash, Eigen, CLI11, nlohmann-json,
#                       Gloo's headers, Qt 6 Core / Test, pkgconf) and their library dependencies
#                       that a base system lacks
#   .gpu-kit/data/      the dataset pack the benchmark trains on (setscope-cli export --format
#                       pack) and its pairwise EMD matrix (the cache file `train` reads)
#   .gpu-kit/probe.sh   ../shared/device/probe.sh, when there is one beside the checkout
#   .gpu-kit/MANIFEST   what is in the kit, with versions, sizes and checksums
#
# and prints what travels: the working tree (tracked and untracked-not-ignored files) plus the
# kit, which must stay under the device's 64 MiB. tools/gpu/build-and-run.sh uses the kit there.
#
#   tools/gpu/prepare.sh                 (Debian 12, amd64; root only for `apt-get update`)
#
# Environment:
#   KIT=DIR             the kit folder (default: .gpu-kit in the repository root)
#   SETSCOPE_CLI=PATH   the setscope-cli that writes the pack (default: build/app/cli/setscope-cli)
#   PACK_SPEC=SPEC      the dataset to pack (default: debian-descriptions:balanced=25,tf=1; its
#                       sources are fetched when missing: setscope-cli fetch debian-descriptions
#                       glove-100d, from the Debian and npm registries)
#   APT_UPDATE=1        run `apt-get update` first (needs root)
#   NO_PACK=1           packages only
set -euo pipefail

cd "$(dirname "$0")/../.."
root=$(pwd)
KIT=${KIT:-$root/.gpu-kit}
SETSCOPE_CLI=${SETSCOPE_CLI:-$root/build/app/cli/setscope-cli}
PACK_SPEC=${PACK_SPEC:-debian-descriptions:balanced=25,tf=1}
LIMIT=$((64 * 1024 * 1024))

say() { printf '%s prepare: %s\n' "$(date +%H:%M:%S)" "$*"; }

. /etc/os-release
if [ "${ID:-}" != debian ] || [ "${VERSION_ID:-}" != 12 ] || [ "$(dpkg --print-architecture)" != amd64 ]; then
  echo "prepare: this kit is made of Debian 12 amd64 packages; run it on Debian 12 amd64 (this is ${PRETTY_NAME:-unknown})" >&2
  exit 2
fi
if [ "${APT_UPDATE:-0}" = 1 ]; then
  say "apt-get update"
  apt-get update -qq
fi

# What the build links (the -dev packages: headers, CMake and pkg-config files, static FAISS)
# and runs (the shared libraries). Only the shared libraries' dependencies are followed: the
# -dev packages' own dependencies are other -dev packages (for static links) the build does not use.
dev_packages=(
  libfaiss-dev libeigen3-dev libsqlite3-dev zlib1g-dev nlohmann-json3-dev libcli11-dev libxxhash-dev
  libfasttext-dev libzip-dev libarchive-dev libmatio-dev libfftw3-dev libgloo-dev
  qt6-base-dev qt6-base-dev-tools qmake6
)
runtime_roots=(
  libopenblas0-pthread libsqlite3-0 libxxhash0 libfasttext0 libzip4 libarchive13 libmatio11
  libfftw3-single3 libqt6core6 libqt6test6 pkgconf
)
# What any glibc system that runs PyTorch's Python has, with the same sonames on Debian 12 and
# Ubuntu 22.04 / 24.04: glibc, the GCC runtime, compression, OpenSSL, and what util-linux, apt and
# systemd's libraries bring. Everything else a shared library above needs travels (GnuTLS,
# Kerberos, SASL, LDAP, ICU, GLib, ...: their sonames differ between distributions or they are
# not in a minimal image), so the set is self-consistent.
base_packages=" libc6 libgcc-s1 libstdc++6 libgomp1 zlib1g libzstd1 liblzma5 libbz2-1.0 libcrypt1
  libselinux1 libpcre2-8-0 libacl1 libattr1 libcap2 libgmp10 libffi8 libmd0 libtinfo6 liblz4-1
  libsystemd0 libudev1 libgcrypt20 libgpg-error0 libblkid1 libmount1 libuuid1 libaudit1 libcap-ng0
  libssl3 debconf perl-base dpkg libc-bin gcc-12-base tzdata shared-mime-info "

base_packages=" $(echo $base_packages) "  # one space between names, for the matching below

# The runtime closure (Depends only; for a virtual package the first provider apt lists).
closure() {
  apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
    --no-replaces --no-enhances "$@" 2>/dev/null | awk '/^[a-z0-9]/ {print $1}' | sort -u
}
mapfile -t runtime < <(closure "${runtime_roots[@]}")
packages=()
for p in "${dev_packages[@]}" "${runtime[@]}"; do
  case "$base_packages" in *" $p "*) continue ;; esac
  # virtual or not installable for amd64 (apt-cache prints them too)
  apt-cache show --no-all-versions "$p" >/dev/null 2>&1 || continue
  packages+=("$p")
done
mapfile -t packages < <(printf '%s\n' "${packages[@]}" | sort -u)

mkdir -p "$KIT/debs" "$KIT/data"
say "downloading ${#packages[@]} packages into $KIT/debs (apt-get download)"
# Keep what is already there at the current version; drop what no longer belongs.
wanted=()
for p in "${packages[@]}"; do
  v=$(apt-cache policy "$p" | awk '/Candidate:/ {print $2}')
  [ -n "$v" ] && [ "$v" != "(none)" ] || { echo "prepare: no candidate version of $p" >&2; exit 1; }
  # apt-get download names the file NAME_VERSION_ARCH.deb, an epoch's ':' written as %3a
  f=$(printf '%s_%s_' "$p" "$(echo "$v" | sed 's/:/%3a/')")
  wanted+=("$f")
  if ! ls "$KIT/debs/${f}"*.deb >/dev/null 2>&1; then
    (cd "$KIT/debs" && apt-get download -qq "$p=$v" 2>&1) | { grep -v 'Download is performed unsandboxed' || true; }
    ls "$KIT/debs/${f}"*.deb >/dev/null 2>&1 || { echo "prepare: apt-get download $p=$v failed" >&2; exit 1; }
  fi
done
for f in "$KIT/debs"/*.deb; do
  b=$(basename "$f")
  keep=0
  for w in "${wanted[@]}"; do
    case "$b" in "$w"*) keep=1 ;; esac
  done
  [ $keep = 1 ] || { say "removing $b (no longer in the kit)"; rm -f "$f"; }
done

# The dataset pack and its pairwise EMD matrix.
if [ "${NO_PACK:-0}" != 1 ]; then
  [ -x "$SETSCOPE_CLI" ] || { echo "prepare: $SETSCOPE_CLI is not built (./bootstrap.sh build, or set SETSCOPE_CLI)" >&2; exit 1; }
  pack="$KIT/data/$(echo "$PACK_SPEC" | tr -c 'A-Za-z0-9._\n-' '-').setpack"
  if [ ! -f "$pack" ]; then
    for src in $(echo "$PACK_SPEC" | sed 's/[:?].*//') glove-100d; do
      if ! "$SETSCOPE_CLI" datasets 2>/dev/null | grep -E "^ *$src " | grep -vq "not fetched"; then
        say "fetching $src (setscope-cli fetch)"
        "$SETSCOPE_CLI" fetch "$src"
      fi
    done
    say "packing $PACK_SPEC"
    "$SETSCOPE_CLI" export --dataset "$PACK_SPEC" --format pack --out "$pack"
  fi
  if ! ls "$KIT/data/cache/setscope/"pairwise-*.f32 >/dev/null 2>&1; then
    # Through this user's cache: the pack has the content hash of the dataset it was made from,
    # so a matrix solved earlier for that dataset is the pack's (the cache key is the content
    # hash and the options), and one solved now stays there for the next kit.
    say "the pack's pairwise EMD matrix (setscope-cli emd-matrix: this user's cache, else solved on all cores)"
    rm -rf "$KIT/data/cache"
    mkdir -p "$KIT/data/cache/setscope"
    tmp=$(mktemp -d)
    "$SETSCOPE_CLI" emd-matrix --dataset "$pack" --out "$tmp/emd-matrix.npy" 2> "$tmp/log" || { cat "$tmp/log" >&2; exit 1; }
    tail -n 3 "$tmp/log" | sed 's/^/  /'
    cached=$(sed -n 's/.*; cache \(.*\.f32\)$/\1/p' "$tmp/log" | head -1)
    [ -f "$cached" ] || { echo "prepare: emd-matrix named no cache file ($tmp/log)" >&2; exit 1; }
    cp "$cached" "$KIT/data/cache/setscope/"
    rm -rf "$tmp"
  fi
fi

probe="$root/../shared/device/probe.sh"
if [ -f "$probe" ]; then
  cp "$probe" "$KIT/probe.sh"
  chmod +x "$KIT/probe.sh"
fi

{
  echo "# setscope GPU kit, made $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(. /etc/os-release; echo "$PRETTY_NAME") by tools/gpu/prepare.sh"
  echo "# packages: name version bytes"
  for f in "$KIT/debs"/*.deb; do
    printf '%s %s %s\n' "$(dpkg-deb -f "$f" Package)" "$(dpkg-deb -f "$f" Version)" "$(stat -c %s "$f")"
  done
  echo "# files: sha256 bytes path"
  (cd "$KIT" && find data -type f -print0 | sort -z | xargs -0 -r sha256sum | while read -r sum path; do
     printf '%s %s %s\n' "$sum" "$(stat -c %s "$path")" "$path"; done)
  [ -f "$KIT/probe.sh" ] && echo "probe.sh $(sha256sum < "$KIT/probe.sh" | cut -d' ' -f1)"
  [ "${NO_PACK:-0}" != 1 ] && echo "pack: $PACK_SPEC"
} > "$KIT/MANIFEST"

# What travels: the working tree as the device tool sends it (tracked and untracked files git
# does not ignore; no .git) plus the kit. Bytes, not disk blocks.
tree_bytes=$(git ls-files -z --cached --others --exclude-standard | xargs -0 -r stat -L -c %s 2>/dev/null |
             awk '{s += $1} END {print s + 0}')
kit_bytes=$(find "$KIT" -type f -print0 | xargs -0 -r stat -c %s | awk '{s += $1} END {print s + 0}')
debs_bytes=$(find "$KIT/debs" -type f -print0 | xargs -0 -r stat -c %s | awk '{s += $1} END {print s + 0}')
total=$((tree_bytes + kit_bytes))
mib() { awk -v b="$1" 'BEGIN {printf "%.2f MiB", b / 1048576}'; }
say "working tree $(mib "$tree_bytes"), kit $(mib "$kit_bytes") ($(ls "$KIT/debs" | wc -l) packages $(mib "$debs_bytes"), data and probe $(mib $((kit_bytes - debs_bytes))))"
say "travels: $(mib "$total") of the device's 64 MiB"
if [ "$total" -ge "$LIMIT" ]; then
  echo "prepare: what would travel ($(mib "$total")) is over the device's 64 MiB" >&2
  exit 1
fi
rel=${KIT#"$root"/}
say "ready: carry '$rel' (device run: tools/gpu/build-and-run.sh; see its header)"
