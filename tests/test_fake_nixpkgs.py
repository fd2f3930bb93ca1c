"""The fake nixpkgs must be as strict as the real one, or the recipe tests prove nothing."""

from __future__ import annotations

import pytest

from conftest import FAKE_FOR_SYSTEM, FAKE_NIXPKGS, NixError, needs_nix, nix_eval

pytestmark = needs_nix

UNFREE = "{ allowUnfree = true; cudaSupport = true; }"


def pkgs(config: str = UNFREE, cuda: str = "12_8", system: str = "x86_64-linux") -> str:
    return (f"(import {FAKE_FOR_SYSTEM[system]} {{ config = {config}; "
            f"overlays = [ (final: prev: {{ cudaPackages = final.cudaPackages_{cuda}; }}) ]; }})")


def capabilities(*caps: str) -> str:
    listed = " ".join(f'"{c}"' for c in caps)
    return f"{{ allowUnfree = true; cudaSupport = true; cudaCapabilities = [ {listed} ]; }}"


def fails(expression: str, message: str) -> None:
    with pytest.raises(NixError) as error:
        nix_eval(expression)
    assert message in str(error.value)


def test_override_with_an_undeclared_argument_fails():
    fails(f"({pkgs()}.python313Packages.torch.override {{ noSuchArg = 1; }}).pname",
          "unexpected argument 'noSuchArg'")
    fails(f"({pkgs()}.python313Packages.torchvision.override {{ cudaSupport = true; }}).pname",
          "unexpected argument 'cudaSupport'")
    fails(f"({pkgs()}.blas.override {{ nope = 1; }}).pname", "unexpected argument 'nope'")


def test_override_survives_override_attrs():
    torch = f"{pkgs()}.python313Packages.torch"
    expression = (f'let t = (({torch}.override {{ gpuTargets = [ "8.6" ]; }}).overrideAttrs (o: {{ pname = "x"; }}))'
                  f'.override {{ gpuTargets = [ "9.0" ]; }}; in [ t.pname t.TORCH_CUDA_ARCH_LIST ]')
    assert nix_eval(expression) == ["x", "9.0"]


@pytest.mark.parametrize("caps, cuda, system, message", [
    (["6.1"], "13_0", "x86_64-linux", "not supported by CUDA 13.0"),
    (["12.0"], "12_6", "x86_64-linux", "not supported by CUDA 12.6"),
    (["9.1"], "12_8", "x86_64-linux", "Unrecognized CUDA capabilities"),
    (["8.7"], "12_8", "x86_64-linux", "require an aarch64-linux host"),
    (["8.7", "9.0"], "12_8", "aarch64-linux", "cannot be mixed"),
])
def test_cuda_capabilities_are_checked_like_nixpkgs(caps, cuda, system, message):
    fails(f"{pkgs(capabilities(*caps), cuda, system)}.python313Packages.torch.TORCH_CUDA_ARCH_LIST", message)


def test_good_capabilities_pass():
    assert nix_eval(f"{pkgs(capabilities('6.1'), '12_8')}.python313Packages.torch.TORCH_CUDA_ARCH_LIST") == "6.1"
    assert nix_eval(f"{pkgs(capabilities('8.7'), '12_8', 'aarch64-linux')}"
                    ".python313Packages.torch.TORCH_CUDA_ARCH_LIST") == "8.7"


def test_cuda_needs_allow_unfree():
    fails(f"{pkgs('{ cudaSupport = true; }')}.python313Packages.torch.TORCH_CUDA_ARCH_LIST",
          "refusing to evaluate")


def test_companions_follow_torch_cuda_capabilities_not_gpu_targets():
    ps = f"{pkgs()}.python313Packages"
    only_targets = '(ps.torch.override { gpuTargets = [ "6.1" ]; })'
    with_passthru = (f'({only_targets}.overrideAttrs (old: {{ passthru = old.passthru // '
                     f'{{ cudaCapabilities = [ "6.1" ]; }}; }}))')
    expression = (f"let ps = {ps}; in [ (ps.torchvision.override {{ torch = {only_targets}; }}).TORCH_CUDA_ARCH_LIST "
                  f"(ps.torchvision.override {{ torch = {with_passthru}; }}).TORCH_CUDA_ARCH_LIST "
                  f"(ps.torchaudio.override {{ torch = {with_passthru}; }}).TORCH_CUDA_ARCH_LIST ]")
    assert nix_eval(expression) == ["7.5;8.0;8.6;8.9;9.0;10.0;12.0", "6.1", "6.1"]


def test_the_old_pytorch_attribute_errors():
    fails(f"(import {FAKE_NIXPKGS} {{ }}).python3Packages.pytorch.pname", "'pytorch' has been renamed")
