# gen-matrix's Nix library: the derivation `flox build NAME` builds and `flox publish`
# publishes.
#
# A derivation's meta does not change its store path, and the catalog indexes a store
# path once: a new description alone would never reach it. The wrapper therefore writes
# the metadata revision (which gen-matrix raises when only the metadata changed) into
# $out/.metadata-rev. It is a folder of links to the heavy build, so a metadata change
# rebuilds this alone, in seconds, and never the build under it (`.unwrapped`).
#
# Its passthru is the heavy build's, so python.withPackages takes it as the Python
# package it links to (pythonModule, requiredPythonModules), and consumers read
# gpuArch, cpuISA and the rest from it, and find the heavy build's other outputs.
{ pkgs }:

{ unwrapped, meta, extraPassthru ? { } }:

pkgs.stdenvNoCC.mkDerivation (finalAttrs: {
  pname = meta.pname;
  inherit (unwrapped) version;

  buildCommand = ''
    mkdir -p $out
    for entry in ${unwrapped}/*; do
      ln -s "$entry" "$out/"
    done
    echo ${toString meta.revision} > $out/.metadata-rev
  '';

  # The heavy build's other outputs (torch's dev, lib and cxxdev), for consumers that
  # compile against them.
  passthru = unwrapped.passthru
    // builtins.listToAttrs (map (output: { name = output; value = unwrapped.${output}; })
      (builtins.filter (output: output != "out") (unwrapped.outputs or [ "out" ])))
    // { inherit unwrapped; } // extraPassthru // {
    # A Python with this package, for `gen-matrix smoke`: it also proves that
    # python.withPackages sees the wrapper as the package it wraps.
    pythonEnv = unwrapped.passthru.pythonModule.withPackages (_: [ finalAttrs.finalPackage ]);
  };

  meta = (unwrapped.meta or { }) // {
    inherit (meta) description longDescription platforms;
  };
})
