# gen-matrix's Nix library: how it refuses a variant the package set cannot build (a
# CUDA release, a Python or a package the pin lacks).
#
# A throw, which builtins.tryEval catches as it catches nixpkgs' own refusals, so that
# `gen-matrix eval` goes on with the other recipes of its one nix-instantiate process; a
# missing attribute would end that process. The message is traced first, marked, so that
# eval reads it from that process instead of evaluating the recipe once more alone for it
# (tryEval does not give the message).
message: builtins.trace "gen-matrix-refusal: ${message}" (throw message)
