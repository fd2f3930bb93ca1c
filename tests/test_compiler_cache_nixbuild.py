"""build.compiler_cache: ccache through a real, sandboxed nix-build.

A stand-in for torch is built twice by nix-build, as two variants that differ only in the GPU
architecture: 8 CPU units, which compile the same for every variant, and 3 GPU-side units, which
carry the architecture as a compile definition. Every compile goes through a compiler wrapper
made as nixpkgs' ccache.links makes it (makeWrapper ccache $out/bin/cc --run extraConfig
--add-flags <the compiler>), with the extraConfig nix/fixes/compiler-cache-ccache.nix gives
ccacheWrapper, read from the fix by evaluating its overlay; the build runs the fix's own
preConfigure first, and passes -frandom-seed from its output path, as nixpkgs'
reproducible-builds.sh setup hook does. The cache folder reaches the sandbox only through
extra-sandbox-paths, as the fix tells a builder to give it.

Each torch compiles into the folder of its group under the cache (the fix's preConfigure,
from passthru.compilerCacheGroup): the groups are those of real torches of
test_compiler_cache_order's matrix, sm80 and sm90 of one pin, sm75 of another, and a build of
the other group must take nothing of the first's.

Each test builds in a Nix store of its own (`--store local?root=DIR`, no daemon), with
sandbox-fallback off, so that a build that could not be sandboxed fails instead of running
unsandboxed. The fix's cache folder, /nix/var/cache/ccache inside the sandbox, is a folder of
the test's outside it (`extra-sandbox-paths = /nix/var/cache/ccache=DIR`): the machine's
/nix/var/cache is never written (Nix itself locks its build users in /nix/var/nix/userpool).
The compiler and ccache are the machine's, given to the sandbox as paths of their own (/usr,
/bin, /lib, /lib64 and the ccache binary), not built by Nix.

Nix 2.8 builds every sandboxed derivation in /build, so two variants' units have the same paths
there with or without CCACHE_BASEDIR; one test moves the second build's folder
(sandbox-build-dir) to show what the setting keeps.

With the real nvcc (marked `toolchain`), the stand-in also compiles a real .cu unit three ways:
as nixpkgs' CUDA setup hook has nvcc do it (-ccbin the CUDA set's own compiler), with the wrapped
compiler as nvcc's host compiler, and with ccache in front of nvcc as a CMake compiler launcher.
The CUDA toolkit is given to the sandbox at a path of the test's own (/cuda), as a store path.

What this cannot prove: nixpkgs' own cc-wrapper and stdenv around the wrapper (the test package
set builds nothing), torch's CMake, and two builds under different build users sharing the
folder (both run as the first free one; the test checks the group permissions that would allow
it).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import time
from pathlib import Path

import pytest

from conftest import REPO, needs_posix
from test_compiler_cache import CCACHE, hits, outcomes, stats
from test_toolchain_fatbin import NVCC

pytestmark = [needs_posix("nix-build and its sandbox run on Linux"), pytest.mark.usefixtures("sandboxed")]

NIX_BUILD = shutil.which("nix-build")
NIX_INSTANTIATE = shutil.which("nix-instantiate")
FIX_FILE = REPO / "nix" / "fixes" / "compiler-cache-ccache.nix"
COMPILER = shutil.which("cc") or shutil.which("gcc")
# The machine's toolchain inside the sandbox: where an FHS system keeps the compiler, its
# assembler and linker, libc and its headers.
HOST_PATHS = [path for path in ("/usr", "/bin", "/lib", "/lib64") if os.path.exists(path)]
CPU_UNITS, GPU_UNITS = 8, 3
CXX = shutil.which("c++") or shutil.which("g++")
SANDBOX_CUDA = "/cuda"
# How an nvcc unit can meet ccache: through nvcc's host compiler as nixpkgs' CUDA setup hook
# names it (the CUDA set's own, which the fix does not wrap), through a host compiler that is the
# wrapped one, or with ccache in front of nvcc, as a CMake compiler launcher puts it.
NVCC_WAYS = ("hook", "host", "launcher")
KERNEL = ('extern "C" __global__ void scale(float *x, float a) { x[threadIdx.x] *= a; }\n'
          "int host_side(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; return s; }\n")


def _groups() -> tuple[str, str, str]:
    """The compiler cache groups of three real torches of test_compiler_cache_order's matrix,
    sm80 and sm90 built with the pin `newer`, sm75 with `older`, all three with the same Python,
    CUDA release and CPU flags: (the group of sm80 and sm90, sm90's, sm75's)."""
    from test_compiler_cache_order import CACHED

    def group(sm: str) -> str:
        return next(v.compiler_cache_group for v in CACHED.variants
                    if not v.is_companion and v.sm and v.sm.name == sm and v.python.name == "3.13"
                    and v.isa.name == "avx2")
    return group("sm80"), group("sm90"), group("sm75")


GROUP, SAME_GROUP, OTHER_PIN = _groups()

# What nix/fixes/compiler-cache-ccache.nix gives ccacheWrapper and torch: the overlay evaluated
# with a ccacheWrapper.override and an overrideCC that return their arguments.
FIX_VALUES = """\
{ fixFile, group }:
let
  fix = import fixFile;
  final = { overrideCC = stdenv: cc: cc; ccacheWrapper.override = args: args; };
  extension = builtins.head (fix.overlay final { pythonPackagesExtensions = [ ]; }).pythonPackagesExtensions;
  torch = (extension { } { torch.override = f: f { stdenv.cc = null; cudaPackages.backendStdenv.cc = null; }; }).torch;
in {
  inherit (fix) cacheDir;
  extraConfig = torch.stdenv.extraConfig;
  cudaExtraConfig = torch.cudaPackages.backendStdenv.extraConfig;
  inherit (fix.torch { } { } { passthru.compilerCacheGroup = group; }) preConfigure passthru;
}
"""

BUILD = """\
{ fixFile, group, arch, src, ccache, compiler, cxx ? "", nvcc ? "", variant ? "" }:
let
  inherit (import ./fix-values.nix { inherit fixFile group; }) extraConfig preConfigure;
  system = builtins.currentSystem;
  # nixpkgs' ccache.links: a cc that runs extraConfig, then ccache with the compiler.
  links = derivation {
    name = "ccache-links"; inherit system extraConfig ccache compiler cxx;
    builder = "/bin/sh";
    args = [ "-c" ''
      set -e; PATH=/usr/bin:/bin
      mkdir -p $out/bin
      { echo '#!/bin/bash -e'; printf '%s\\n' "$extraConfig"; printf 'exec %s %s "$@"\\n' "$ccache" "$compiler"; } > $out/bin/cc
      { echo '#!/bin/bash -e'; printf '%s\\n' "$extraConfig"; printf 'exec %s %s "$@"\\n' "$ccache" "$cxx"; } > $out/bin/c++
      chmod +x $out/bin/cc $out/bin/c++
      echo "wrapped $compiler"
    '' ];
  };
in derivation {
  name = "stand-in-torch-${group}-${arch}${variant}"; inherit system arch src preConfigure extraConfig ccache nvcc cxx;
  cc = "${links}/bin/cc";
  builder = "/bin/bash";
  args = [ "-c" ''
    set -e; PATH=/usr/bin:/bin
    eval "$preConfigure"
    cp -r "$src" source; chmod -R u+w source; cd source
    # reproducible-builds.sh: a seed from the output path, other in every variant
    outbase=''${out##*/}; seed=''${outbase:0:10}
    export CCACHE_LOGFILE=$NIX_BUILD_TOP/ccache.log
    for unit in cpu*.c gpu*.c; do
      echo "compiling $unit"
      case $unit in gpu*) defs="-DARCH=\\"$arch\\"";; *) defs=;; esac
      "$cc" -O2 -frandom-seed=$seed -I"$PWD/include" $defs -c "$PWD/$unit" -o "$PWD/''${unit%.c}.o"
    done
    # nvcc's units, each with a log of its own, one per way nvcc can meet ccache
    gencode="arch=compute_''${arch#sm},code=sm_''${arch#sm}"
    for unit in ''${nvcc:+cu-*.cu}; do
      echo "compiling $unit"
      export CCACHE_LOGFILE=$NIX_BUILD_TOP/$unit.log
      case $unit in
        # nixpkgs' setup-cuda-hook.sh: -ccbin the CUDA set's own compiler, which the fix leaves
        # unwrapped; its cc-wrapper adds the seed
        cu-hook*) "$nvcc" -ccbin "$cxx" -Xcompiler -frandom-seed=$seed -O2 -gencode $gencode -c "$PWD/$unit" -o "$PWD/$unit.o";;
        # -ccbin the wrapped compiler (CUDAHOSTCXX set to torch's stdenv's c++)
        cu-host*) "$nvcc" -ccbin "${links}/bin/c++" -Xcompiler -frandom-seed=$seed -O2 -gencode $gencode -c "$PWD/$unit" -o "$PWD/$unit.o";;
        # ccache in front of nvcc, as CMAKE_CUDA_COMPILER_LAUNCHER puts it, with the fix's settings
        cu-launcher*) (eval "$extraConfig"; "$ccache" "$nvcc" -ccbin "$cxx" -O2 -gencode $gencode -c "$PWD/$unit" -o "$PWD/$unit.o");;
      esac
    done
    export CCACHE_LOGFILE=$NIX_BUILD_TOP/ccache.log
    mkdir $out; cp *.o $NIX_BUILD_TOP/*.log $out/
    # the last command a builtin, not a program bash ends by exec: Nix 2.8 here reported such a
    # builder killed by signal 9 in 13 of 32 builds (NixOS/nix#2176 has the same on short builds)
    echo "installed in $out"
  '' ];
}
"""

PROBE = """\
{ ccache, compiler }:
derivation {
  name = "probe"; system = builtins.currentSystem; builder = "/bin/sh"; inherit ccache compiler;
  args = [ "-c" "PATH=/usr/bin:/bin; $ccache --version >/dev/null && echo 'int main(void) { return 0; }' > t.c && $compiler -c t.c && echo compiled && echo ok > $out" ];
}
"""


def has_group(name: str) -> bool:
    try:
        import grp  # POSIX only
        grp.getgrnam(name)
    except (ImportError, KeyError):
        return False
    return True


def nix_build(root: Path, expression: Path, sandbox_paths: list[str], *args: str,
              build_dir: str = "/build") -> subprocess.CompletedProcess:
    return subprocess.run(
        [NIX_BUILD, "--store", f"local?root={root}", "--no-out-link",
         "--option", "substituters", "", "--option", "sandbox", "true",
         "--option", "sandbox-fallback", "false", "--option", "sandbox-build-dir", build_dir,
         "--option", "sandbox-paths", " ".join(HOST_PATHS + [f"/ccache-bin/ccache={Path(CCACHE).resolve()}"]),
         "--option", "extra-sandbox-paths", " ".join(sandbox_paths),
         str(expression), "--argstr", "ccache", "/ccache-bin/ccache",
         "--argstr", "compiler", str(Path(COMPILER).resolve()), *args],
        capture_output=True, text=True)


@pytest.fixture(scope="module")
def sandboxed(tmp_path_factory) -> None:
    """Skips unless nix-build builds here in a sandbox that runs the compiler and ccache."""
    if not (NIX_BUILD and NIX_INSTANTIATE):
        pytest.skip("nix-build not found: install Nix (apt-get install nix-bin)")
    if not (CCACHE and COMPILER):
        pytest.skip("needs ccache (the test extra installs it) and a C compiler")
    if not str(Path(COMPILER).resolve()).startswith("/usr/"):
        pytest.skip(f"the C compiler {COMPILER} is not under /usr, the paths this test gives the sandbox")
    if not (hasattr(os, "geteuid") and os.geteuid() == 0 and has_group("nixbld")):
        pytest.skip("needs root and the group nixbld: the cache folder is root:nixbld, as the fix asks")
    folder = tmp_path_factory.mktemp("probe")
    (folder / "probe.nix").write_text(PROBE)
    done = nix_build(folder / "store", folder / "probe.nix", [])
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        pytest.skip(f"nix-build cannot build in a sandbox with the machine's compiler and ccache here: {last}")


class Project:
    """The stand-in, its cache folder (owned by the build users' group, as the fix says) and a
    store of its own."""

    def __init__(self, folder: Path, cuda: bool = False):
        self.folder, self.cuda = folder, cuda
        (folder / "fix-values.nix").write_text(FIX_VALUES)
        (folder / "build.nix").write_text(BUILD)
        self.fix = self.values(GROUP)
        src = folder / "src"
        (src / "include").mkdir(parents=True)
        (src / "include" / "common.h").write_text("int common(int x);\n")
        for i in range(CPU_UNITS):
            (src / f"cpu{i}.c").write_text(f'#include "common.h"\nint cpu{i}(int n) {{ int s = 0; '
                                           f"for (int i = 0; i < n; i++) s += common(i) * {i}; return s; }}\n")
        for i in range(GPU_UNITS):  # the architecture they are compiled for, as -gencode is
            (src / f"gpu{i}.c").write_text(f"#include <string.h>\nunsigned long gpu{i}(void) "
                                           f"{{ return strlen(ARCH) + {i}; }}\n")
        for way in NVCC_WAYS if cuda else ():  # a kernel whose code is the same for every SM
            (src / f"cu-{way}.cu").write_text(KERNEL)
        self.cache = folder / "ccache"
        self.cache.mkdir()
        shutil.chown(self.cache, "root", "nixbld")
        self.cache.chmod(0o770)
        self.units = sorted(path.name for path in src.glob("*.c"))

    def values(self, group: str) -> dict:
        """What the fix gives ccacheWrapper, and a torch of `group`."""
        values = subprocess.run(
            [NIX_INSTANTIATE, "--eval", "--strict", "--json", "--expr",
             f"import {self.folder / 'fix-values.nix'} {{ fixFile = {FIX_FILE.resolve()}; group = \"{group}\"; }}"],
            capture_output=True, text=True, check=True)
        return json.loads(values.stdout)

    def build(self, arch: str, given: bool = True, build_dir: str = "/build",
              group: str = GROUP, variant: str = "") -> subprocess.CompletedProcess:
        paths = [f"{self.fix['cacheDir']}={self.cache}"] if given else []
        cuda: list[str] = []
        if self.cuda:  # the CUDA toolkit at a path of the test's own, as a store path would be
            paths.append(f"{SANDBOX_CUDA}={NVCC.resolve().parent.parent}")
            cuda = ["--argstr", "nvcc", f"{SANDBOX_CUDA}/bin/nvcc", "--argstr", "cxx", str(Path(CXX).resolve())]
        started = time.monotonic()
        done = nix_build(self.folder / "store", self.folder / "build.nix", paths,
                         "--arg", "fixFile", str(FIX_FILE.resolve()), "--argstr", "arch", arch,
                         "--argstr", "group", group, "--argstr", "variant", variant,
                         "--arg", "src", str(self.folder / "src"), *cuda, build_dir=build_dir)
        done.seconds = time.monotonic() - started
        return done

    def log(self, done: subprocess.CompletedProcess) -> Path:
        """ccache's log of the build, from the output in the test's store."""
        assert done.returncode == 0, done.stderr
        return self.folder / "store" / done.stdout.strip().lstrip("/") / "ccache.log"

    def nvcc_outcomes(self, done: subprocess.CompletedProcess) -> dict[str, list[str]]:
        """Each way's ccache results, one per compile ccache saw while nvcc built its unit
        (hit, miss, or the reason it was not cacheable); no log, no compile went through ccache."""
        output = self.log(done).parent
        found = {}
        for way in NVCC_WAYS:
            log = output / f"cu-{way}.cu.log"
            results: dict[str, set[str]] = {}
            for line in (log.read_text().splitlines() if log.exists() else []):
                match = re.match(r"^\[\S+ (\d+)\s*\] Result: (\S+)", line)
                if match:
                    results.setdefault(match[1], set()).add(match[2])
            found[way] = sorted(
                "hit" if {"direct_cache_hit", "preprocessed_cache_hit"} & values
                else "miss" if "cache_miss" in values else "/".join(sorted(values))
                for values in results.values())
        return found


def test_the_fix_gives_both_compilers_of_torch_the_same_settings(tmp_path):
    fix = Project(tmp_path).fix
    assert fix["extraConfig"] == fix["cudaExtraConfig"]
    # the folder is torch's, of its group: what the workflow reads is where the build writes
    # (the tests below build with it)
    assert "CCACHE_DIR" not in fix["extraConfig"]
    assert fix["passthru"]["compilerCacheDir"] == f"{fix['cacheDir']}/{GROUP}"


def test_a_second_variant_built_by_nix_build_takes_its_cpu_units_from_the_cache(tmp_path):
    project = Project(tmp_path)
    one = project.build("sm80")
    assert outcomes(project.log(one)) == {unit: "miss" for unit in project.units}
    # counted as differences: zeroing them here would leave files of root's in the folder,
    # which the build users then may not write
    cold = stats(project.cache / GROUP, tmp_path)

    assert SAME_GROUP == GROUP  # sm80 and sm90 of one pin, Python, CUDA release and CPU flags
    two = project.build("sm90", group=SAME_GROUP)
    # the CPU units from the cache although the seed differs (random_seed sloppiness); the
    # GPU-side units compiled again for the other architecture
    assert outcomes(project.log(two)) == {unit: "hit" if unit.startswith("cpu") else "miss" for unit in project.units}
    total = stats(project.cache / GROUP, tmp_path)
    warm = {key: value - cold.get(key, 0) for key, value in total.items()}
    assert (hits(warm), warm["cache_miss"]) == (CPU_UNITS, GPU_UNITS)
    # CCACHE_UMASK=007: what a build user wrote, another of the group nixbld may read and write
    written = [path for path in project.cache.rglob("*") if path.is_file() and path.stat().st_uid != 0]
    assert written
    assert all(stat.S_IMODE(path.stat().st_mode) & 0o067 == 0o060 for path in written)
    # the group's folder, made by the first build's user, is the group nixbld's too
    import grp  # POSIX only
    folder = (project.cache / GROUP).stat()
    assert folder.st_uid != 0 and folder.st_gid == grp.getgrnam("nixbld").gr_gid
    assert stat.S_IMODE(folder.st_mode) & 0o077 == 0o070
    print(f"\nnix-build, first variant {one.seconds:.2f}s: {hits(cold)} hits, {cold['cache_miss']} misses; "
          f"second {two.seconds:.2f}s: {hits(warm)} hits, {warm['cache_miss']} misses")


def test_a_torch_of_another_group_takes_no_entry_of_the_first(tmp_path):
    """The same units, compiler and flags, but a torch of another pin: it compiles everything
    again, in a folder of its own, and the first group's entries stay as they were."""
    project = Project(tmp_path)
    assert OTHER_PIN != GROUP
    first = project.build("sm80")
    assert outcomes(project.log(first)) == {unit: "miss" for unit in project.units}
    entries = sorted(path.relative_to(project.cache) for path in (project.cache / GROUP).rglob("*")
                     if path.is_file() and path.name != "stats")
    assert entries
    other = project.build("sm80", group=OTHER_PIN)
    assert outcomes(project.log(other)) == {unit: "miss" for unit in project.units}
    assert sorted(path.name for path in project.cache.iterdir()) == sorted([GROUP, OTHER_PIN])
    assert sorted(path.relative_to(project.cache) for path in (project.cache / GROUP).rglob("*")
                  if path.is_file() and path.name != "stats") == entries
    # and the first group still finds its own
    again = project.build("sm90", group=SAME_GROUP)
    assert outcomes(project.log(again)) == {unit: "hit" if unit.startswith("cpu") else "miss"
                                            for unit in project.units}


def test_where_the_build_folder_differs_the_cpu_units_still_hit(tmp_path):
    """Nix 2.8 builds every sandboxed derivation in /build, so there the paths of two variants'
    units are the same anyway. The folder is a setting (sandbox-build-dir), and a build outside
    the sandbox has a folder of its own name: CCACHE_BASEDIR="$NIX_BUILD_TOP" is what keeps the
    hits where it differs."""
    project = Project(tmp_path)
    assert project.build("sm80").returncode == 0
    two = project.build("sm90", build_dir="/build-sm90")
    assert outcomes(project.log(two)) == {unit: "hit" if unit.startswith("cpu") else "miss" for unit in project.units}


@pytest.mark.parametrize("case", ["not given to the sandbox", "not writable by the build users"])
def test_without_the_cache_folder_the_build_stops_with_the_fixs_message(tmp_path, case):
    project = Project(tmp_path)
    if case == "not writable by the build users":
        shutil.chown(project.cache, "root", "root")
        project.cache.chmod(0o755)
    done = project.build("sm80", given=case != "not given to the sandbox")
    assert done.returncode != 0
    message = f"gen-matrix: build.compiler_cache is ccache, but {project.fix['cacheDir']} is not a folder this build may write."
    assert message in done.stderr
    assert f"extra-sandbox-paths = {project.fix['cacheDir']}" in done.stderr
    assert not list(project.cache.iterdir())
    assert "compiling " not in done.stderr  # stopped before the build compiled anything


@pytest.mark.toolchain
@pytest.mark.skipif(NVCC is None, reason="no nvcc on PATH, in CUDA_HOME or /usr/local/cuda: a CUDA toolkit compiles "
                                         "the stand-in's .cu units")
@pytest.mark.skipif(CXX is None, reason="needs a C++ compiler, nvcc's host compiler")
def test_nvcc_units_under_the_fix_with_the_real_nvcc(tmp_path):
    """The stand-in with a real .cu unit for each way nvcc can meet ccache, built by the real nvcc
    in the sandbox for sm_80, for sm_90, and for sm_80 again as a variant that differs in
    something nvcc does not see (another Python: another output path and seed). The kernel's code
    is the same for every SM; what decides a hit is nvcc's command line."""
    project = Project(tmp_path, cuda=True)
    first, second, third = (project.build("sm80"), project.build("sm90"), project.build("sm80", variant="-py2"))
    for done in (first, second, third):
        assert outcomes(project.log(done)), done.stderr
    cpu, gpu = [f"cpu{i}.c" for i in range(CPU_UNITS)], [f"gpu{i}.c" for i in range(GPU_UNITS)]
    assert outcomes(project.log(second)) == {**{unit: "hit" for unit in cpu}, **{unit: "miss" for unit in gpu}}
    assert outcomes(project.log(third)) == {unit: "hit" for unit in cpu + gpu}
    ways = [project.nvcc_outcomes(done) for done in (first, second, third)]
    # As nixpkgs builds torch with the fix: nvcc runs the CUDA set's own compiler, and ccache
    # never sees a .cu unit, not even one compiled the same way before.
    assert [way["hook"] for way in ways] == [[], [], []]
    # The wrapped compiler under nvcc: its preprocessing calls are not cacheable, and the host
    # compile misses every time, the same SM's included, since nvcc hands it a file of a random
    # temporary name that embeds the device code.
    for way in ways:
        assert way["host"].count("miss") == 1 and "hit" not in way["host"], way["host"]
        assert set(way["host"]) == {"miss", "called_for_preprocessing"}, way["host"]
    # ccache in front of nvcc: -gencode is part of the command line it hashes, so the second SM
    # misses although the kernel's code does not depend on it; the same SM hits.
    assert [way["launcher"] for way in ways] == [["miss"], ["miss"], ["hit"]]


def test_a_group_folder_the_build_users_cannot_write_stops_the_build_with_its_name(tmp_path):
    """A folder of root's left by a copy by hand (the cache restored without its owner)."""
    project = Project(tmp_path)
    (project.cache / GROUP).mkdir(mode=0o755)
    done = project.build("sm80")
    assert done.returncode != 0
    assert (f"gen-matrix: build.compiler_cache is ccache, but {project.fix['cacheDir']}/{GROUP}, this torch's "
            "folder in the cache, is not writable by this build.") in done.stderr
    assert "compiling " not in done.stderr
    assert list((project.cache / GROUP).iterdir()) == []
