# gen-matrix's Nix library: the compiler environment of a heavy build, torch's or a
# companion's, exported in preConfigure. One place for both, so that a companion compiles
# as its torch does.
#
# The CPU instruction set's compiler flags go into CFLAGS and CXXFLAGS.
#
# The compile jobs are decided on the builder. Nix gives a build $NIX_BUILD_CORES (the
# builder's `cores` setting), and nixpkgs' torch runs `export MAX_JOBS=$NIX_BUILD_CORES`
# before compiling. Each job of PyTorch's CUDA kernels can take several GB, so on a builder
# with many cores and little memory the build is killed for memory hours in. This caps
# NIX_BUILD_CORES by the memory the builder has free when the build starts. Nothing about
# the builder goes into the derivation: a different builder or cap builds the same store
# path.
#
#   cpuFlags      the compiler flags of the variant's instruction set
#   jobMemoryGib  GiB of memory one compile job is allowed (gen-matrix's knowledge, by
#                 whether the build compiles CUDA)
{ lib }:

{ cpuFlags, jobMemoryGib }:

lib.optionalString (cpuFlags != [ ]) ''
  export CXXFLAGS="$CXXFLAGS ${lib.concatStringsSep " " cpuFlags}"
  export CFLAGS="$CFLAGS ${lib.concatStringsSep " " cpuFlags}"
'' + ''
  genMatrixMemoryKib=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo 2>/dev/null || true)
  if [ -z "$genMatrixMemoryKib" ] && command -v sysctl >/dev/null; then
    genMatrixMemoryKib=$(( $(sysctl -n hw.memsize 2>/dev/null || echo 0) / 1024 ))
  fi
  if [ "''${genMatrixMemoryKib:-0}" -gt 0 ]; then
    genMatrixJobs=$(( genMatrixMemoryKib / (${toString jobMemoryGib} * 1024 * 1024) ))
    if [ "$genMatrixJobs" -lt 1 ]; then genMatrixJobs=1; fi
    if [ "''${NIX_BUILD_CORES:-0}" -eq 0 ] || [ "$genMatrixJobs" -lt "$NIX_BUILD_CORES" ]; then
      echo "gen-matrix: $genMatrixJobs compile jobs (${toString jobMemoryGib} GiB each of $(( genMatrixMemoryKib / 1048576 )) GiB free; builder cores: ''${NIX_BUILD_CORES:-all})"
      export NIX_BUILD_CORES=$genMatrixJobs
    fi
  fi
''
