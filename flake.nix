{
  description = "gen-matrix: expand a declarative matrix of custom PyTorch builds into Flox recipes, docs and CI";

  # The pin is this revision. There is no flake.lock beside it: the lock was never made, since
  # it takes a fetch of nixpkgs; Nix writes one on the first `nix build` or `nix run` of a
  # checkout, and `nix run github:gen-matrix/gen-matrix/TAG` locks this same revision.
  # At this revision nixpkgs has the Python packages pyproject.toml asks for, except filelock
  # (3.29.7 there), which package.nix takes from PyPI.
  inputs.nixpkgs.url = "github:NixOS/nixpkgs/00147e045f271a7f45750036af4f8083ecdeaf44";

  outputs = { self, nixpkgs }:
    let
      systems = [ "x86_64-linux" "aarch64-linux" "x86_64-darwin" "aarch64-darwin" ];
      forEachSystem = f: nixpkgs.lib.genAttrs systems (system: f system nixpkgs.legacyPackages.${system});
    in
    {
      packages = forEachSystem (_: pkgs: { default = pkgs.callPackage ./package.nix { }; });
      apps = forEachSystem (system: _: {
        default = {
          type = "app";
          program = nixpkgs.lib.getExe self.packages.${system}.default;
        };
      });
    };
}
