"""The fake nixpkgs must be as strict as the real one, or the recipe tests prove nothing.

See tests/nix/README.md for what it mimics and where each fact comes from.
"""

from __future__ import annotations

import pytest

from conftest import FAKE_FOR_SYSTEM, FAKE_NIXPKGS, REPO, NixError, needs_nix, nix_eval

pytestmark = needs_nix

UNFREE = "{ allowUnfree = true; cudaSupport = true; }"
FAKES = REPO / "tests" / "nix"
REVISIONS = ["fe5e41d", "0182a36", "6a030d5", "2017d6d"]


def fake(revision: str | None = None, system: str = "x86_64-linux") -> str:
    if revision is None:
        return str(FAKE_FOR_SYSTEM[system])
    return str(FAKES / f"nixpkgs-{revision}-{system}")


def pkgs(config: str = UNFREE, cuda: str = "12_8", system: str = "x86_64-linux",
         revision: str | None = None) -> str:
    return (f"(import {fake(revision, system)} {{ config = {config}; "
            f"overlays = [ (final: prev: {{ cudaPackages = final.cudaPackages_{cuda}; }}) ]; }})")


def capabilities(*caps: str) -> str:
    listed = " ".join(f'"{c}"' for c in caps)
    # allowBroken: torch of these pins marks CUDA 13 broken, which would be reported first.
    return f"{{ allowUnfree = true; allowBroken = true; cudaSupport = true; cudaCapabilities = [ {listed} ]; }}"


def fails(expression: str, message: str) -> None:
    with pytest.raises(NixError) as error:
        nix_eval(expression)
    assert message in str(error.value)


def arch_list(torch: str) -> str:
    """TORCH_CUDA_ARCH_LIST as nixpkgs' torch exports it in preConfigure (it is no attribute)."""
    return (f'(let m = builtins.match ".*export TORCH_CUDA_ARCH_LIST=\\"([^\\"]*)\\".*" ({torch}).preConfigure;'
            f' in if m == null then null else builtins.head m)')


def test_override_with_an_undeclared_argument_fails():
    fails(f"({pkgs()}.python313Packages.torch.override {{ noSuchArg = 1; }}).pname",
          "unexpected argument 'noSuchArg'")
    # numpy and setuptools are not torch arguments in nixpkgs
    fails(f"({pkgs()}.python313Packages.torch.override {{ numpy = null; }}).pname",
          "unexpected argument 'numpy'")
    fails(f"({pkgs()}.python313Packages.torchvision.override {{ cudaSupport = true; }}).pname",
          "unexpected argument 'cudaSupport'")
    fails(f"({pkgs()}.blas.override {{ nope = 1; }}).pname", "unexpected argument 'nope'")


def test_override_survives_override_attrs():
    torch = f"{pkgs()}.python313Packages.torch"
    expression = (f'let t = (({torch}.override {{ gpuTargets = [ "8.6" ]; }}).overrideAttrs (o: {{ pname = "x"; }}))'
                  f'.override {{ gpuTargets = [ "9.0" ]; }}; in [ t.pname {arch_list("t")} ]')
    assert nix_eval(expression) == ["x", "9.0"]


@pytest.mark.parametrize("caps, cuda, system, message", [
    (["6.1"], "13_0", "x86_64-linux", "not supported by CUDA 13.0"),
    (["12.0"], "12_6", "x86_64-linux", "not supported by CUDA 12.6"),
    (["9.1"], "12_8", "x86_64-linux", "Unrecognized CUDA capabilities"),
    (["8.7"], "12_8", "x86_64-linux", "require an aarch64-linux host"),
    (["8.7", "9.0"], "12_8", "aarch64-linux", "cannot be mixed"),
])
def test_cuda_capabilities_are_checked_like_nixpkgs(caps, cuda, system, message):
    fails(f"{pkgs(capabilities(*caps), cuda, system)}.python313Packages.torch.cudaCapabilities", message)
    fails(f"{pkgs(capabilities(*caps), cuda, system)}.python313Packages.torch.drvPath", message)


def test_good_capabilities_pass():
    assert nix_eval(f"{arch_list(pkgs(capabilities('6.1'), '12_8') + '.python313Packages.torch')}") == "6.1"
    assert nix_eval(f"{pkgs(capabilities('8.7'), '12_8', 'aarch64-linux')}"
                    ".python313Packages.torch.cudaCapabilities") == ["8.7"]


def test_cuda_needs_allow_unfree():
    fails(f"{pkgs('{ cudaSupport = true; }')}.python313Packages.torch.drvPath",
          "has an unfree license (‘CUDA EULA’), refusing to evaluate")


def test_companions_follow_torch_cuda_capabilities_not_gpu_targets():
    ps = f"{pkgs()}.python313Packages"
    only_targets = '(ps.torch.override { gpuTargets = [ "6.1" ]; })'
    with_passthru = (f'({only_targets}.overrideAttrs (old: {{ passthru = old.passthru // '
                     f'{{ cudaCapabilities = [ "6.1" ]; }}; }}))')
    expression = (f"let ps = {ps}; in [ (ps.torchvision.override {{ torch = {only_targets}; }}).TORCH_CUDA_ARCH_LIST "
                  f"(ps.torchvision.override {{ torch = {with_passthru}; }}).TORCH_CUDA_ARCH_LIST "
                  f"(ps.torchaudio.override {{ torch = {with_passthru}; }}).TORCH_CUDA_ARCH_LIST ]")
    # nixpkgs' torch lists "10.0" twice in supportedTorchCudaCapabilities, hence "10.0;10.0".
    assert nix_eval(expression) == ["7.5;8.0;8.6;8.9;9.0;10.0;10.0;12.0", "6.1", "6.1"]


def test_the_old_pytorch_attribute_errors():
    fails(f"(import {FAKE_NIXPKGS} {{ }}).python3Packages.pytorch.pname", "'pytorch' has been renamed")


@pytest.mark.parametrize("revision, version", [
    ("fe5e41d", "2.8.0"), ("0182a36", "2.9.1"), ("6a030d5", "2.9.1"), ("2017d6d", "2.9.1")])
def test_each_revision_builds_real_derivations(revision, version):
    torch = f"{pkgs(revision=revision)}.python313Packages.torch"
    path, outputs, torch_version = nix_eval(f"let t = {torch}; in [ t.drvPath t.outputs t.version ]")
    assert path.startswith("/nix/store/") and path.endswith(f"-python3.13-torch-{version}.drv")
    assert outputs[:4] == ["out", "dev", "lib", "cxxdev"]
    assert torch_version == version


def test_meta_and_passthru_do_not_change_the_derivation():
    torch = f"{pkgs()}.python313Packages.torch"
    assert nix_eval(
        f"let t = {torch}; in ["
        f" ((t.overrideAttrs (o: {{ meta = o.meta // {{ description = \"x\"; }}; }})).drvPath == t.drvPath)"
        f" ((t.overrideAttrs (o: {{ passthru = o.passthru // {{ gpuArch = \"9.0\"; }}; }})).drvPath == t.drvPath)"
        f" ((t.overrideAttrs (o: {{ preBuild = o.preBuild + \"true\"; }})).drvPath != t.drvPath) ]"
    ) == [True, True, True]


@pytest.mark.parametrize("revision", REVISIONS)
def test_cuda_13_torch_is_broken_at_every_pin(revision):
    torch = f"{pkgs(cuda='13_0', revision=revision)}.python313Packages.torch"
    fails(f"{torch}.drvPath", "is marked as broken, refusing to evaluate")
    allowed = "{ allowUnfree = true; allowBroken = true; cudaSupport = true; }"
    assert nix_eval(f"{pkgs(allowed, '13_0', revision=revision)}.python313Packages.torch.drvPath").endswith(".drv")


@pytest.mark.parametrize("revision, top_level, in_env", [
    ("fe5e41d", "USE_VULKAN", "PYTORCH_BUILD_VERSION"),
    ("0182a36", "USE_VULKAN", "PYTORCH_BUILD_VERSION"),
    ("2017d6d", "PYTORCH_BUILD_VERSION", None),
])
def test_env_overlap_is_refused_like_make_derivation(revision, top_level, in_env):
    torch = f"{pkgs(revision=revision)}.python313Packages.torch"
    message = "The `env` attribute set cannot contain any attributes passed to derivation"
    fails(f'({torch}.overrideAttrs {{ {top_level} = "1"; }}).drvPath', message)
    if in_env:
        fails(f'({torch}.overrideAttrs (o: {{ env = o.env // {{ {in_env} = "1"; }}; }})).drvPath', message)


def test_with_packages_keeps_python_modules_only():
    ps = f"{pkgs()}.python313Packages"
    assert nix_eval(
        f"let ps = {ps}; env = ps.python.withPackages (p: [ p.torch {pkgs()}.cmake ]); in"
        f" [ (builtins.elem ps.torch env.paths) (builtins.any (p: p.pname or \"\" == \"cmake\") env.paths) ]"
    ) == [True, False]


@pytest.mark.parametrize("system", ["x86_64-linux", "aarch64-linux", "aarch64-darwin"])
def test_cpu_torch_on_every_system(system):
    for revision in REVISIONS:
        config = "{ }"
        assert nix_eval(f"{pkgs(config, system=system, revision=revision)}"
                        ".python313Packages.torch.drvPath").endswith(".drv")
    assert nix_eval(f"{pkgs('{ }', system='aarch64-darwin')}.python313Packages.torch.USE_MKLDNN") == "0"


def test_fe5e41d_torch_is_the_2_8_0_text():
    """LunNova/nixpkgs@01728bad (torch 2.8.0): openssl and fetchpatch in the header, the
    nvtx3 patch under CUDA, the setuptools and openssl substitutions, no checkout_nccl."""
    torch = f"{pkgs(revision='fe5e41d')}.python313Packages.torch"
    post_patch, patches, version = nix_eval(
        f"let t = {torch}.override {{ openssl = null; fetchpatch = {pkgs()}.fetchpatch; }};"
        f" in [ {torch}.postPatch (map (p: baseNameOf (toString p)) {torch}.patches) t.version ]")
    assert version == "2.8.0"
    assert '"setuptools>=62.3.0,<80.0" "setuptools"' in post_patch
    assert "torch/_inductor/codecache.py" in post_patch and "-openssl-3.5.4-bin/bin/openssl" in post_patch
    assert "checkout_nccl" not in post_patch and post_patch.rstrip().endswith("rm cmake/Modules/FindCUDAToolkit.cmake")
    assert "torch/_inductor/config.py" not in post_patch  # 2.9.1 only (targetPackages)
    # local files by name, a fetchpatch by its store name (hash-name)
    assert [p.split("-", 1)[1] if len(p.split("-", 1)[0]) == 32 else p for p in patches] == [
        "clang19-template-warning.patch", "cmake-build-preserve-PYTHONPATH", "gcc-14-arm-compat.path",
        "fix-cmake-cuda-toolkit.patch", "nvtx3-hpp-path-fix.patch", "pytorch-pr-108847.patch"]
    fails(f"({torch}.override {{ targetPackages = null; }}).pname", "unexpected argument 'targetPackages'")


@pytest.mark.parametrize("revision, torchvision, torchaudio", [
    ("fe5e41d", "0.23.0", "2.8.0"), ("0182a36", "0.24.0", "2.9.0"),
    ("6a030d5", "0.24.0", "2.9.0"), ("2017d6d", "0.24.0", "2.9.0")])
def test_companions_of_each_pin_take_torch_alone(revision, torchvision, torchaudio):
    """At the four pins torchvision and torchaudio take no package that takes the scope's
    torch (torchaudio depends on torchcodec from 2.11 on, after every pin here)."""
    ps = f"{pkgs(revision=revision)}.python313Packages"
    versions, audio_args = nix_eval(
        f"let ps = {ps}; in [ [ ps.torchvision.version ps.torchaudio.version ]"
        f" (builtins.attrNames ({pkgs(revision=revision)}.lib.functionArgs ps.torchaudio.override)) ]")
    assert versions == [torchvision, torchaudio]
    assert "torchcodec" not in audio_args


def test_override_scope_reaches_every_package_that_takes_torch():
    ps = f"{pkgs()}.python313Packages"
    assert nix_eval(
        f"let ps = {ps}; t = ps.torch.override {{ gpuTargets = [ \"9.0\" ]; }};"
        f" s = ps.overrideScope (final: prev: {{ torch = t; }}); in"
        f" [ (s.torchcodec.drvPath == (ps.torchcodec.override {{ torch = t; torchvision = ps.torchvision.override {{ torch = t; }}; }}).drvPath)"
        f"   (s.torchvision.drvPath == (ps.torchvision.override {{ torch = t; }}).drvPath)"
        f"   (s.numpy.drvPath == ps.numpy.drvPath) ]") == [True, True, True]
