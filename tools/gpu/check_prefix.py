#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 setscope developers
"""Checks that a build used the kit's private prefix, not the machine's copies of the same
packages (tools/gpu/build-and-run.sh, after building).

  check_prefix.py BUILD PREFIX DEBS_DIR [--strict]

Three independent looks, each against the names of the packages in DEBS_DIR:
  1. headers: every header the compiler read (ninja -t deps) that lies outside PREFIX, the
     source tree, the build folder and LibTorch's folders is looked up with `dpkg -S`; one that
     belongs to a package of the kit was read from the machine, not from the prefix;
  2. link lines: every library path in the link line of setscope-cli (build.ninja), likewise;
  3. run time: `ldd` of setscope-cli in this environment (LD_LIBRARY_PATH as the tests run):
     a library whose file name the prefix also holds must resolve into the prefix.
Prints a report; with --strict exits 1 when any look finds a package of the kit outside the
prefix.
"""
import os
import re
import subprocess
import sys


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, check=False, **kw)


def owners(paths):
    """path -> owning package name (dpkg -S), for the paths dpkg knows."""
    out = {}
    paths = sorted(paths)
    for i in range(0, len(paths), 200):
        chunk = paths[i:i + 200]
        r = run(["dpkg", "-S"] + chunk)
        for line in r.stdout.splitlines():
            m = re.match(r"([^:]+)(?::[a-z0-9]+)?: (/.*)$", line)
            if m:
                for pkg in m.group(1).split(", "):
                    out.setdefault(m.group(2), pkg.split(":")[0])
        # dpkg -S resolves no symlinked folders (usrmerge: /lib -> usr/lib); try the other spelling
    for p in paths:
        if p not in out:
            alt = p[4:] if p.startswith("/usr/lib/") else ("/usr" + p if p.startswith("/lib/") else None)
            if alt:
                r = run(["dpkg", "-S", alt])
                m = re.match(r"([^:]+)(?::[a-z0-9]+)?: ", r.stdout)
                if m:
                    out[p] = m.group(1).split(", ")[0].split(":")[0]
    return out


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    strict = "--strict" in sys.argv
    if len(args) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    build, prefix, debs = (os.path.realpath(a) for a in args)
    source = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))
    kit = set()
    for f in os.listdir(debs):
        if f.endswith(".deb"):
            kit.add(f.split("_")[0])
    have_dpkg = run(["dpkg", "--version"]).returncode == 0
    problems = []

    # LibTorch's folders: where TorchConfig says its headers are (Torch_DIR in the cache).
    torch_roots = []
    cache = open(os.path.join(build, "CMakeCache.txt"), encoding="utf-8", errors="replace").read()
    m = re.search(r"^Torch_DIR:PATH=(.*)$", cache, re.M)
    if m:
        d = os.path.realpath(m.group(1))
        # .../site-packages/torch/share/cmake/Torch -> .../site-packages/torch;
        # /usr/lib/x86_64-linux-gnu/cmake/Torch (Debian) -> its headers under /usr/include/{torch,ATen,c10,...}
        torch_roots.append(os.path.realpath(os.path.join(d, "..", "..", "..")))
    print(f"check: prefix {prefix}; {len(kit)} packages in the kit; LibTorch at {', '.join(torch_roots) or '?'}")

    # 1. headers
    deps = run(["ninja", "-C", build, "-t", "deps"]).stdout
    headers = set()
    for line in deps.splitlines():
        if line.startswith("    "):
            p = line.strip()
            p = os.path.realpath(p if os.path.isabs(p) else os.path.join(build, p))
            headers.add(p)
    outside = sorted(h for h in headers
                     if not h.startswith(prefix + "/") and not h.startswith(source + "/")
                     and not h.startswith(build + "/") and not any(h.startswith(t + "/") for t in torch_roots))
    print(f"check: {len(headers)} headers read; {len(outside)} outside the prefix, the tree and LibTorch's folder")
    by_pkg = {}
    if have_dpkg and outside:
        own = owners(outside)
        for h in outside:
            by_pkg.setdefault(own.get(h, "(no package)"), []).append(h)
    elif outside:
        by_pkg["(dpkg not available)"] = outside
    for pkg in sorted(by_pkg):
        hs = by_pkg[pkg]
        flag = pkg in kit
        print(f"  {'KIT PACKAGE OUTSIDE THE PREFIX: ' if flag else ''}{pkg}: {len(hs)} headers, e.g. {hs[0]}")
        if flag:
            problems.append(f"headers of {pkg} read from the machine ({hs[0]} ...)")

    # 2. link line of setscope-cli
    ninja = open(os.path.join(build, "build.ninja"), encoding="utf-8", errors="replace").read()
    m = re.search(r"build app/cli/setscope-cli:.*?\n((?:  .*\n)+)", ninja)
    libs = []
    if m:
        lm = re.search(r"LINK_LIBRARIES = (.*)", m.group(1))
        if lm:
            for tok in re.split(r"\s+", lm.group(1)):
                for piece in tok.split(","):
                    piece = piece.strip('"')
                    if piece.startswith("/") and (".so" in piece or piece.endswith(".a")):
                        libs.append(os.path.realpath(piece) if not piece.startswith(prefix) else piece)
    lib_outside = sorted(set(l for l in libs if not l.startswith(prefix + "/") and not l.startswith(build + "/")
                             and not any(l.startswith(t + "/") for t in torch_roots)))
    print(f"check: setscope-cli links {len(libs)} libraries by path; {len(lib_outside)} outside the prefix and LibTorch's folder")
    if have_dpkg and lib_outside:
        own = owners(lib_outside)
        for l in lib_outside:
            pkg = own.get(l, "(no package)")
            flag = pkg in kit
            print(f"  {'KIT PACKAGE OUTSIDE THE PREFIX: ' if flag else ''}{l} ({pkg})")
            if flag:
                problems.append(f"{l} ({pkg}) linked from the machine")
    else:
        for l in lib_outside:
            print(f"  {l}")

    # 3. run time
    cli = os.path.join(build, "app/cli/setscope-cli")
    prefix_names = set()
    for dirpath, _, filenames in os.walk(prefix):
        for f in filenames:
            if ".so" in f:
                prefix_names.add(f)
        for f in os.listdir(dirpath):
            if ".so" in f and os.path.islink(os.path.join(dirpath, f)):
                prefix_names.add(f)
    ldd = run(["ldd", cli]).stdout if os.path.exists(cli) else ""
    resolved = 0
    for line in ldd.splitlines():
        mm = re.match(r"\s*(\S+) => (\S+)", line)
        if not mm:
            continue
        name, path = mm.group(1), mm.group(2)
        if name in prefix_names:
            resolved += 1
            if not os.path.realpath(path).startswith(prefix + "/") and not path.startswith(prefix + "/"):
                problems.append(f"{name} resolves to {path} at run time, not to the prefix's")
                print(f"  KIT LIBRARY OUTSIDE THE PREFIX AT RUN TIME: {name} => {path}")
        if path == "not":
            problems.append(f"{name} not found at run time")
            print(f"  NOT FOUND: {name}")
    loaded = sum(1 for l in ldd.splitlines() if "=>" in l)
    print(f"check: at run time setscope-cli loads {loaded} libraries; {resolved} of them have a file of the same "
          f"name in the prefix" + ("" if problems else ", and all of those come from the prefix"))

    if problems:
        print(f"check: {len(problems)} problems:")
        for p in problems:
            print("  -", p)
        return 1 if strict else 0
    print("check: the build used the prefix for every package of the kit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
