"""Which of PyTorch's own wheels run on a GPU, in the words `detect`, `explain`, `env` and
`list` answer with: the gap between what upstream ships and what only a build gives.

Pure: the knowledge table's `wheels` rows and binary compatibility (knowledge.wheels_for) in,
text and JSON out.
"""

from __future__ import annotations

from ..knowledge import (PTX, WHEEL_OS, Knowledge, Sm, WheelFit, best_wheel, driver_meets, driver_need, version_key,
                         wheels_for)

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


def build_driver_text(knowledge: Knowledge, sm: Sm | None, cuda: str, systems: tuple[str, ...] = ("Linux", "Windows")) -> str:
    """The NVIDIA driver a build of CUDA `cuda` for `sm` needs on each of `systems`; for a GPU
    whose driver branches have ended (Kepler: R470), never one past its last branch."""
    needs = [(system, driver_need(knowledge, sm, cuda, system)) for system in systems]
    branch = needs[0][1].branch
    if branch is None:
        if len(needs) == 1:
            return f"NVIDIA driver {needs[0][1].own} or newer on {needs[0][0]}"
        return "NVIDIA driver " + ", ".join(f"{need.own} on {system}" for system, need in needs) + ", or newer"
    if all(need.driver == need.own for _, need in needs):
        return ("NVIDIA driver " + ", ".join(f"{need.own} on {system}" for system, need in needs)
                + f", or newer within R{branch}, {sm.name}'s last driver branch")
    runs = [(system, need) for system, need in needs if need.driver]
    if not runs:
        return (f"an NVIDIA driver it cannot have: CUDA {cuda} needs {needs[0][1].own} or newer, past R{branch}, "
                f"{sm.name}'s last driver branch, and minor-version compatibility does not reach back to it")
    compat = next(need for _, need in runs if need.compat)
    return (f"NVIDIA driver R{branch}, {sm.name}'s last driver branch: "
            + ", ".join(f"{need.driver} on {system}" for system, need in runs)
            + f", or newer within R{branch}, by CUDA {cuda.split('.')[0]}.x minor-version compatibility (CUDA {cuda}'s "
            f"own {compat.own} is past R{branch}; that mode runs SASS only)")


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


# How the table names a wheels row's system: short, since a table row must fit a terminal
SYSTEM_WORDS = {"x86_64-linux": "Linux", "aarch64-linux": "Linux ARM", "x86_64-windows": "Windows"}


def _runs_of(versions: list[str], order: list[str]) -> list[str]:
    """The releases `versions`, as spans of consecutive ones in `order`: "2.9.1 to 2.13.0"."""
    places = sorted(order.index(v) for v in versions)
    spans: list[list[int]] = []
    for place in places:
        if spans and place == spans[-1][-1] + 1:
            spans[-1].append(place)
        else:
            spans.append([place])
    return [order[span[0]] if len(span) == 1 else f"{order[span[0]]} to {order[span[-1]]}" for span in spans]


def release_table(knowledge: Knowledge, sm: Sm, python: str | None = None) -> list[str]:
    """Every release whose own wheels run on `sm`, as a table: a row for each CUDA release,
    systems, way of running and driver, with the indexes that serve it and the consecutive
    releases that share it, the newest first. `explain --json` gives each release's own."""
    fits = wheels_for(knowledge, sm, None, python)
    if not fits:
        return []
    order = list(dict.fromkeys(fit.release.newest for fit in reversed(fits)))  # oldest first
    indexes: dict[tuple, list[str]] = {}
    for fit in fits:
        drivers = " / ".join(f"{fit.driver_for(os)}+" if fit.driver_for(os) else "unknown" for os in _oses(fit))
        key = (fit.release.newest, fit.cuda, ", ".join(SYSTEM_WORDS.get(s, s) for s in fit.systems), how_text(fit),
               drivers + (" *" if fit.compat else ""))
        indexes.setdefault(key, []).append(fit.index)
    groups: dict[tuple, list[str]] = {}
    for (release, *rest), served in indexes.items():
        groups.setdefault((rest[0], ", ".join(served), *rest[1:]), []).append(release)
    rows = [(span, *key) for key, versions in groups.items() for span in _runs_of(versions, order)]
    rows.sort(key=lambda row: (-order.index(row[0].split(" to ")[-1]), version_key(row[1]), row[2], row[3]))
    rows.insert(0, ("PyTorch", "CUDA", "index", "systems", "runs as", "driver (Linux / Windows)"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [f"wheels: PyTorch's own that run on {sm.name}:"]
    lines += ["  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    if any(fit.compat for fit in fits):
        lines.append("  * by CUDA minor-version compatibility, below the CUDA release's own driver (SASS only)")
    return lines


def as_json(fit: WheelFit) -> dict:
    return {
        "pytorch": fit.release.newest, "cuda": fit.cuda, "index": fit.index, "systems": list(fit.systems),
        "target": fit.runs.target, "how": fit.runs.how,
        "driver": {os: fit.driver_for(os) for os in _oses(fit)}, "minor_version_compatibility": fit.compat is not None,
        "command": fit.command, "uv_command": fit.uv_command, "sources": list(fit.sources),
    }
