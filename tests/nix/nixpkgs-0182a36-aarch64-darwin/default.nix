# The fake nixpkgs (../nixpkgs) impersonating nixpkgs 0182a36 (see ../nixpkgs/revisions.nix),
# evaluated as on a aarch64-darwin host.
args: import ../nixpkgs (args // { revision = "0182a36"; system = "aarch64-darwin"; })
