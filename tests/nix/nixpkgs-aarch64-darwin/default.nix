# The fake nixpkgs (../nixpkgs, default revision fe5e41d) evaluated for a aarch64-darwin host,
# for recipes whose checks depend on the host (Jetson capabilities, Darwin/MPS).
# Per-revision variants: ../nixpkgs-<rev>-aarch64-darwin.
args: import ../nixpkgs (args // { system = "aarch64-darwin"; })
