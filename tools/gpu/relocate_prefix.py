#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 setscope developers
"""Makes Debian packages unpacked with `dpkg -x DEB PREFIX` usable from PREFIX.

tools/gpu/build-and-run.sh runs it after unpacking the kit (tools/gpu/prepare.sh). dpkg -x
copies the files only: the maintainer scripts that would make alternatives symlinks do not run,
and the packages' CMake and pkg-config files name /usr. So, inside PREFIX only:

  - every absolute /usr/... or /lib/... path in a CMake or pkg-config file that PREFIX holds is
    made PREFIX/usr/... (a path PREFIX does not hold, e.g. the system's libGL, is left alone);
  - absolute symlinks are pointed inside PREFIX when their target is there; a dangling
    library symlink (zlib1g-dev's libz.so -> /lib/.../libz.so.1.2.13, another version on the
    machine) is pointed at the system's library of the same soname (ldconfig -p);
  - the BLAS / LAPACK alternatives (libblas.so.3, liblapack.so.3 and their .so) are made
    symlinks to OpenBLAS's (what update-alternatives does on Debian);
  - matio.pc names libmatio only: its -lhdf5 and HDF5 include folder come from libhdf5-dev,
    which the kit does not carry (libmatio.so finds its own libhdf5_serial.so.103 at run time).

Prints what it changed. Usage: relocate_prefix.py PREFIX
"""
import os
import re
import subprocess
import sys


def system_library(soname):
    """The system's path of a library with this soname (ldconfig -p), or None."""
    try:
        out = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, check=False).stdout
    except OSError:
        out = ""
    for line in out.splitlines():
        m = re.match(r"\s*(\S+) \(([^)]*)\) => (\S+)", line)
        if m and m.group(1) == soname and "x86-64" in m.group(2):
            return m.group(3)
    for d in ("/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64", "/lib64"):
        p = os.path.join(d, soname)
        if os.path.exists(p):
            return p
    return None


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    prefix = os.path.abspath(sys.argv[1])
    changes = []

    # Symlinks first (the path rewriting below asks what exists inside the prefix).
    for dirpath, dirnames, filenames in os.walk(prefix):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            if not os.path.islink(p):
                continue
            target = os.readlink(p)
            if not target.startswith("/"):
                continue
            inside = prefix + target
            if os.path.lexists(inside):
                os.remove(p)
                os.symlink(os.path.relpath(inside, dirpath), p)
                changes.append(f"link {os.path.relpath(p, prefix)} -> {os.path.relpath(inside, prefix)} (inside)")
            elif not os.path.exists(target) and ".so" in name:
                m = re.match(r"(lib.+\.so)", name)
                # the soname: the target's name cut after its first version number
                t = re.match(r"(lib.+\.so\.\d+)", os.path.basename(target))
                lib = system_library(t.group(1)) if t else None
                if lib:
                    os.remove(p)
                    os.symlink(lib, p)
                    changes.append(f"link {os.path.relpath(p, prefix)} -> {lib} (the system's {t.group(1)})")
                else:
                    changes.append(f"link {os.path.relpath(p, prefix)} -> {target} dangles (no {m.group(1) if m else name} here)")

    # BLAS / LAPACK: the alternatives Debian's postinst would make.
    arch = os.path.join(prefix, "usr/lib/x86_64-linux-gnu")
    openblas = os.path.join(arch, "openblas-pthread")
    if os.path.isdir(openblas):
        for lib in ("libblas", "liblapack"):
            real = os.path.join(openblas, lib + ".so.3")
            if not os.path.exists(real):
                continue
            for link in (lib + ".so.3", lib + ".so"):
                p = os.path.join(arch, link)
                if os.path.lexists(p):
                    os.remove(p)
                os.symlink(os.path.relpath(real, arch), p)
                changes.append(f"link usr/lib/x86_64-linux-gnu/{link} -> openblas-pthread/{lib}.so.3 (alternative)")

    # Absolute paths in CMake and pkg-config files.
    # an absolute path: at the start of a value (after = ; " space ( or -L / -I), not inside
    # another path or after ${...}
    path_re = re.compile(r"(?:(?<=-[LI])|(?<![A-Za-z0-9_.${}/-]))(/(?:usr|lib)/[A-Za-z0-9_.+/-]*)")
    for dirpath, _, filenames in os.walk(prefix):
        for name in filenames:
            if not (name.endswith(".cmake") or name.endswith(".pc")):
                continue
            p = os.path.join(dirpath, name)
            if os.path.islink(p):
                continue
            with open(p, encoding="utf-8", errors="surrogateescape") as f:
                text = f.read()
            rewritten = []

            def swap(m):
                path = m.group(1)
                if path in ("/usr", "/usr/"):
                    return m.group(0)
                if os.path.lexists(prefix + path.rstrip("/")):
                    rewritten.append(path)
                    return prefix + path
                return m.group(0)

            new = path_re.sub(swap, text)
            # prefix=/usr in pkg-config files
            if name.endswith(".pc"):
                new = re.sub(r"^(prefix=)/usr\s*$", lambda m: m.group(1) + prefix + "/usr", new, flags=re.M)
            if name == "matio.pc":
                new = re.sub(r"^Libs:.*$", "Libs: -L${libdir} -lmatio", new, flags=re.M)
                new = re.sub(r"^Cflags:.*$", "Cflags: -I${includedir}", new, flags=re.M)
            if new != text:
                with open(p, "w", encoding="utf-8", errors="surrogateescape") as f:
                    f.write(new)
                what = f"{len(set(rewritten))} paths" if rewritten else "prefix"
                changes.append(f"file {os.path.relpath(p, prefix)}: {what} made {prefix}/...")

    for c in changes:
        print("relocate:", c)
    print(f"relocate: {len(changes)} changes in {prefix}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
