# gen-matrix's Nix library, build fix: make PyTorch's build report the version of the source it builds.
#
# nixpkgs sets PYTORCH_BUILD_VERSION, which setup.py turns into TORCH_BUILD_VERSION for
# CMake, from its own release. Built from another source, the library then calls itself
# the old version and its headers fail their own check ("static assertion failed:
# std::string requires TORCH_FEATURE_VERSION >= TORCH_VERSION_2_10_0").
#
# Newer nixpkgs sets PYTORCH_BUILD_VERSION inside `env`, older nixpkgs as a top-level
# attribute; mkDerivation refuses a name set in both places ("The `env` attribute set
# cannot contain any attributes passed to derivation"), so it is set where the pin has it.
# version.txt is what CMake reads when setup.py is not the caller.
{
  torch = { version, ... }: finalAttrs: old:
    (if old ? env && old.env ? PYTORCH_BUILD_VERSION
     then { env = old.env // { PYTORCH_BUILD_VERSION = version; }; }
     else { PYTORCH_BUILD_VERSION = version; })
    // {
      postPatch = (old.postPatch or "") + ''
        echo ${version} > version.txt
      '';
    };
}
