# What each revision the test package set impersonates holds, as it evaluates:
# tests/test_pin_facts.py compares it with the knowledge table's `pins:` rows, so that the
# stand-in and the table cannot drift apart.
let
  revisions = import ./nixpkgs/revisions.nix;
  factsOf = short: revision:
    let
      pkgs = import ./nixpkgs { revision = short; system = "x86_64-linux"; };
      names = builtins.attrNames pkgs;
      versioned = builtins.filter (n: builtins.match "cudaPackages_[0-9]+_[0-9]+" n != null) names;
      aliases = builtins.filter (n: builtins.match "cudaPackages(_[0-9]+)?" n != null) names;
      pythons = builtins.filter (n: builtins.match "python3[0-9]+Packages" n != null) names;
      release = set: pkgs.${set}.cudaMajorMinorVersion;
    in
    {
      inherit (revision) rev;
      torch = pkgs.python3Packages.torch.version;
      torchvision = pkgs.python3Packages.torchvision.version;
      torchaudio = pkgs.python3Packages.torchaudio.version;
      cuda = builtins.listToAttrs (map (set: { name = release set; value = pkgs.${set}.cudaVersion; }) versioned);
      capabilities = builtins.listToAttrs (map (set: {
        name = release set;
        value = pkgs.${set}.flags.defaultCapabilities;
      }) versioned);
      cuda_aliases = builtins.listToAttrs (map (set: { name = set; value = release set; }) aliases);
      python = map (set: pkgs.${set}.python.pythonVersion) pythons;
      python_default = pkgs.python3.pythonVersion;
      rocm = pkgs.rocmPackages.clr.version;
    };
in
builtins.mapAttrs factsOf revisions
