# The fake nixpkgs (../nixpkgs) evaluated for a aarch64-linux host, for recipes whose
# checks depend on the host (Jetson capabilities, Darwin/MPS).
args: import ../nixpkgs (args // { system = "aarch64-linux"; })
