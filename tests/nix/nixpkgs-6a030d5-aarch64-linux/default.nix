# The fake nixpkgs (../nixpkgs) impersonating nixpkgs 6a030d5 (see ../nixpkgs/revisions.nix),
# evaluated as on a aarch64-linux host.
args: import ../nixpkgs (args // { revision = "6a030d5"; system = "aarch64-linux"; })
