# The fake nixpkgs (../nixpkgs) impersonating nixpkgs 0182a36 (see ../nixpkgs/revisions.nix),
# evaluated as on a x86_64-linux host.
args: import ../nixpkgs (args // { revision = "0182a36"; system = "x86_64-linux"; })
