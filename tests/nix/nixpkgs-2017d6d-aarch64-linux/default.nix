# The fake nixpkgs (../nixpkgs) impersonating nixpkgs 2017d6d (see ../nixpkgs/revisions.nix),
# evaluated as on a aarch64-linux host.
args: import ../nixpkgs (args // { revision = "2017d6d"; system = "aarch64-linux"; })
