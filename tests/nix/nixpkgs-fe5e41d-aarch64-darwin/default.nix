# The fake nixpkgs (../nixpkgs) impersonating nixpkgs fe5e41d (see ../nixpkgs/revisions.nix),
# evaluated as on a aarch64-darwin host.
args: import ../nixpkgs (args // { revision = "fe5e41d"; system = "aarch64-darwin"; })
