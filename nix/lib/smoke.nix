# gen-matrix's Nix library: a variant's smoke test as a derivation, for a Nix CI's checks
# (flake.nix). It runs `gen-matrix smoke NAME --builder` on the build's Python, as the
# workflow's build job does after `flox build`, here in the sandbox: there is no GPU there,
# and a builder whose CPU lacks the variant's instruction set reads what it can from the files.
#
#   pkgs        a package set, for the check's shell
#   genMatrix   gen-matrix itself
#   source      the matrix's repository: its matrix.yaml says what each name promises
{ pkgs, genMatrix, source }:

name: build:
pkgs.runCommand "smoke-${name}" { nativeBuildInputs = [ genMatrix ]; } ''
  gen-matrix smoke ${pkgs.lib.escapeShellArgs [ name "--root" "${source}" "--builder"
    "--python" "${build.pythonEnv}/bin/python" "--result" "${build}" ]}
  touch "$out"
''
