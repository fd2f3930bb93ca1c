"""Which of PyTorch's own wheels run on a GPU, in the words `detect`, `explain`, `env` and
`list` answer with: the gap between what upstream ships and what only a build gives.

Pure: the knowledge table's `wheels` rows and binary compatibility (knowledge.wheels_for) in,
text and JSON out.
"""

from __future__ import annotations

from ..knowledge import PTX, WHEEL_OS, Knowledge, Sm, WheelFit, best_wheel, driver_meets, version_key, wheels_for

BUILD_ADDS = "A build adds a CPU instruction set of your choice, a smaller binary for one SM, or patches"


def wheel_system(system: str, machine: str) -> str | None:
    """The wheels row `system` of a host (`uname` system and machine); None where PyTorch ships no CUDA wheels."""
    if system == "Windows" and machine == "x86_64":
        return "x86_64-windows"
    if system == "Linux" and machine in ("x86_64", "aarch64"):
        return f"{machine}-linux"
    return None


def _oses(fit: WheelFit) -> list[str]:
    return sorted({WHEEL_OS[system] for system in fit.systems})


def driver_text(fit: WheelFit, oses: list[str] | None = None) -> str:
    """"NVIDIA driver 525.60.13 (Linux) or newer", with why it is below the CUDA release's own."""
    oses = oses or _oses(fit)
    drivers = ", ".join(f"{fit.driver_for(os)} ({os})" for os in oses if fit.driver_for(os))
    if not drivers:
        return f"the NVIDIA driver CUDA {fit.cuda} needs (the knowledge table has no row for it)"
    text = f"NVIDIA driver {drivers} or newer"
    if fit.compat is not None and fit.toolkit is not None:
        text += (f", by CUDA minor-version compatibility (CUDA {fit.cuda}'s own is {fit.toolkit.driver} on Linux; "
                 "that mode runs SASS only)")
    if fit.runs.how == PTX:
        text += ", whose JIT compiles the kernels on first use (no minor-version compatibility for PTX)"
    return text


def how_text(fit: WheelFit) -> str:
    text = f"{fit.runs.target} {fit.runs.how}" if fit.runs.how != PTX else f"PTX of {fit.runs.target}"
    return text + "".join(f", but not {gap.library} ({gap.holds})" for gap in fit.gaps)


def prebuilt_line(knowledge: Knowledge, sm: Sm, system: str | None = None, python: str | None = None,
                  driver: str | None = None) -> str:
    """PyTorch's own wheel to use on `sm` (on `system`, for `python`, for a host with `driver`),
    and what a build adds over it; or why none runs on it."""
    fits = wheels_for(knowledge, sm, system, python)
    os = WHEEL_OS[system] if system else "Linux"
    best = best_wheel(fits, driver, os)
    if best is None:
        return none_line(knowledge, sm, system, python)
    where = f" for {', '.join(best.systems)}" if system is None else ""
    line = (f"prebuilt: PyTorch {best.release.newest}'s own CUDA {best.cuda} wheels{where} run on {sm.name} "
            f"({how_text(best)}), no build needed: `{best.command}`; {driver_text(best, [os] if system else None)}")
    if driver is not None:
        needed = best.driver_for(os)
        if needed and driver_meets(driver, needed):
            line += f"; this host's driver {driver} runs them"
        elif needed:
            line += f"; this host's driver {driver} is below {needed}: update the driver first"
    return f"{line}. {BUILD_ADDS}"


def none_line(knowledge: Knowledge, sm: Sm, system: str | None = None, python: str | None = None) -> str:
    """Why no wheel of PyTorch's own runs on `sm`: an older or other system's does, or none."""
    if not sm.upstream_wheels:
        return (f"prebuilt: none of PyTorch's own wheels runs on {sm.label}: they are built for servers, and a Jetson "
                "runs NVIDIA's JetPack builds of PyTorch; else a build from source is the way")
    elsewhere = best_wheel(wheels_for(knowledge, sm)) if (system or python) else None
    asked = " ".join(part for part in (f"for Python {python}" if python else "", f"on {system}" if system else "") if part)
    if elsewhere is not None:
        return (f"prebuilt: none of PyTorch's own wheels {asked} runs on {sm.name}; PyTorch {elsewhere.release.newest}'s "
                f"CUDA {elsewhere.cuda} wheels for {', '.join(elsewhere.systems)} (Python {elsewhere.release.python[0]} "
                f"to {elsewhere.release.python[1]}) do: `{elsewhere.command}`; else a build from source is the way")
    listed = sorted((r.name for r in knowledge.pytorch.values() if r.wheels), key=version_key)
    span = f"{listed[0]} to {listed[-1]}" if listed else "none"
    return (f"prebuilt: none of PyTorch's own wheels the knowledge table lists (releases {span}) runs on {sm.name} "
            f"({sm.capability}): a build from source is the way")


def release_lines(knowledge: Knowledge, sm: Sm, python: str | None = None) -> list[str]:
    """Every release whose own wheels run on `sm`, newest first: a line each, with each CUDA
    release, its index and systems, how it runs, and the driver it needs."""
    by_release: dict[str, list[WheelFit]] = {}
    for fit in wheels_for(knowledge, sm, None, python):
        by_release.setdefault(fit.release.newest, []).append(fit)
    return [f"wheels: PyTorch {version}: " + "; ".join(
        f"CUDA {fit.cuda} {fit.index} ({', '.join(fit.systems)}): {how_text(fit)}, "
        + ", ".join(f"driver {fit.driver_for(os)}+ ({os})" if fit.driver_for(os) else f"driver unknown ({os})"
                    for os in _oses(fit))
        + (" by minor-version compatibility" if fit.compat else "") for fit in fits)
        for version, fits in by_release.items()]


def as_json(fit: WheelFit) -> dict:
    return {
        "pytorch": fit.release.newest, "cuda": fit.cuda, "index": fit.index, "systems": list(fit.systems),
        "target": fit.runs.target, "how": fit.runs.how,
        "driver": {os: fit.driver_for(os) for os in _oses(fit)}, "minor_version_compatibility": fit.compat is not None,
        "command": fit.command, "sources": list(fit.sources),
    }
