# The fake nixpkgs (../nixpkgs) impersonating nixpkgs 6a030d5 (see ../nixpkgs/revisions.nix),
# evaluated as on a x86_64-linux host.
args: import ../nixpkgs (args // { revision = "6a030d5"; system = "x86_64-linux"; })
