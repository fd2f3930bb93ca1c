"""Runs the generated workflow's logic the way GitHub Actions would, without GitHub.

The jobs' `run:` scripts are taken from the workflow as generated (parsed YAML), and run
with bash in clones of a local "origin" repository, one clone per job, as actions/checkout
makes them. `flox`, `nix` and `nix-build` are stubs that record their calls and fake their
results (a build is a `result-NAME` link, and compiles its heavy build unless the job's
runner has it in its store; a publish is a line in the catalog file, and exits 0 for a
build already there; `flox install` of a published package brings its heavy build into the
runner's store; `nix-build -A unwrapped --max-jobs 0` succeeds only where the store has it;
the Python of a build is a folder outside the checkout); so is `gen-matrix smoke`, which checks
that it was handed that Python and that link, and fails for the build named in
STUB_FAIL_SMOKE. git, the rest of gen-matrix and nix-instantiate are real: the plan
evaluates the recipes, against the test package set (GEN_MATRIX_NIXPKGS), as the pins
cannot be fetched here. `flox activate` locks the manifest (the stand-in's lock is its
digest) and gives gen-matrix only where the manifest installs it from a flake reference
pinned to a commit. Steps that only install tools (`uses:` actions, and `pip install .` in
gen-matrix's own checkout) are not run; actions/upload-artifact and download-artifact are,
as copies under the harness's folder. A job that calls a workflow of the repository
(`uses: ./.github/workflows/FILE`) runs that workflow's jobs with its `with:` as typed
inputs and its `secrets:`. Each job has a temporary folder of its own (RUNNER_TEMP); what a
step writes to $GITHUB_ENV reaches the steps after it (and the `env` context), and what it
writes to $GITHUB_PATH comes first on their PATH.

The `${{ }}` expressions the workflow uses are evaluated by a small evaluator of GitHub's
expression syntax: contexts, literals, ==, !=, &&, ||, !, and the functions contains,
fromJSON, toJSON, always and success.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

GEN_MATRIX = Path(sys.executable).parent / "gen-matrix"
TEST_PACKAGE_SET = Path(__file__).resolve().parent / "nix" / "nixpkgs"

# The heavy build of a recipe, as the stubs know it: its build identity in the checkout's
# matrix.state.json (what its store path is a function of; the selection itself compares
# derivations). Each job's Nix store is a file of such identities (STUB_LOCAL_STORE), empty
# on a fresh runner.
HEAVY = r"""
heavy_of() {
  awk -v key="    \"$1\": {" '$0 == key { found = 1; next } found { sub(/.*"build": "/, ""); sub(/".*/, ""); print; exit }' matrix.state.json
}
"""

# The Nix remote builder a recipe's heavy build goes to, as the daemon chooses one: the first
# line of the machines file nix.conf names (`builders = @FILE`, read at each build) whose
# systems hold the recipe's platform and whose features hold every feature it requires.
REMOTE = r"""
remote_builder() {
  local file system features
  file=$(sed -n 's/^builders = @//p' "${NIX_CONF_DIR:-/nonexistent}/nix.conf" 2>/dev/null | tail -n 1)
  [ -n "$file" ] && [ -f "$file" ] || return 1
  system=$(sed -n 's/^ *platforms = \[ "\([^"]*\)" \];$/\1/p' "$1")
  features=$(sed -n 's/^ *systemFeatures = \[\(.*\)\];$/\1/p' "$1" | tr -d '"')
  while read -r url systems key jobs speed offered mandatory host_key; do
    [[ ",$systems," == *",$system,"* ]] || continue
    local missing=""
    for feature in $features; do [[ ",$offered," == *",$feature,"* ]] || missing=1; done
    [ -z "$missing" ] && { echo "$url $systems $key $jobs $speed $offered $mandatory $host_key"; return 0; }
  done < "$file"
  return 1
}
"""

FLOX_STUB = r"""#!/usr/bin/env bash
# A stand-in for flox: records its calls. A build makes a result-NAME link and compiles the
# heavy build unless the runner's store has it; a publish is a line in the catalog file
# (name, revision, heavy build), and a build already published exits 0, as Flox 1.14 and
# later do; `install` of a published package fetches its closure (its heavy build) from
# the catalog into the runner's store.
""" + HEAVY + REMOTE + r"""
echo "flox $*" >> "$STUB_CALLS"
case "$1" in
  activate)
    # Flox locks a manifest whose lock is missing or stale; the stand-in's lock is the
    # manifest's digest (or STUB_RELOCK, a lock Flox would write anew).
    manifest=.flox/env/manifest.toml lock=.flox/env/manifest.lock
    test -f "$manifest" || { echo "error: no Flox environment here" >&2; exit 1; }
    wanted="${STUB_RELOCK:-{\"lockfile-version\": 1, \"manifest\": \"$(sha256sum < "$manifest" | cut -d' ' -f1)\"\}}"
    [ "$(cat "$lock" 2>/dev/null)" = "$wanted" ] || printf '%s\n' "$wanted" > "$lock"
    # The environment gives gen-matrix only where the manifest installs it from a flake
    # reference pinned to a commit; it is the harness's gen-matrix (beside this stand-in).
    bin="$STUB_STORE/flox-environment/bin"
    mkdir -p "$bin" && rm -f "$bin/gen-matrix"
    flake=$(sed -n 's/^gen-matrix\.flake = "\(.*\)"$/\1/p' "$manifest")
    if [[ "$flake" =~ (/|rev=)[0-9a-f]{40}$ ]]; then ln -s "$(dirname "$0")/gen-matrix" "$bin/gen-matrix"; fi
    if [ "${2:-}" = -- ]; then shift 2; PATH="$bin:$PATH" "$@"; fi ;;
  init)
    mkdir -p "$3/.flox" ;;
  install)
    package="${*: -1}"
    test -d "$3/.flox" || { echo "error: no environment in $3" >&2; exit 1; }
    published=$(grep "^${package#*/} " "$STUB_CATALOG" | tail -n 1)
    test -n "$published" || { echo "error: no package $package in the catalog" >&2; exit 1; }
    echo "${published##* }" >> "$STUB_LOCAL_STORE"
    echo "installed $package" ;;
  build)
    test -f ".flox/pkgs/$2.nix" || { echo "error: no recipe .flox/pkgs/$2.nix" >&2; exit 1; }
    heavy=$(heavy_of "$2")
    if grep -qx "$heavy" "$STUB_LOCAL_STORE" 2>/dev/null; then
      echo "store: $2 heavy build substituted" >> "$STUB_CALLS"
    elif builder=$(remote_builder ".flox/pkgs/$2.nix"); then
      # As Nix's build hook does: the builder's host key as known_hosts, its key file, ssh.
      read -r url _ key _ _ _ _ host_key <<< "$builder"
      known="$(mktemp)" && printf '%s %s\n' "${url#*://}" "$(printf '%s' "$host_key" | base64 -d)" > "$known"
      ssh -i "$key" -o UserKnownHostsFile="$known" "${url#*://}" nix-daemon --stdio || exit 1
      echo "store: $2 heavy build compiled on $url" >> "$STUB_CALLS"
      echo "$heavy" >> "$STUB_LOCAL_STORE"
    else
      echo "store: $2 heavy build compiled" >> "$STUB_CALLS"
      echo "$heavy" >> "$STUB_LOCAL_STORE"
    fi
    mkdir -p "$STUB_STORE/$2" && ln -sfn "$STUB_STORE/$2" "result-$2" ;;
  publish)
    name="${*: -1}"
    if [ "$name" = "${STUB_FAIL_PUBLISH:-}" ]; then
      echo "error: the connection to the catalog was already closed" >&2; exit 1
    fi
    if grep -q "^$name $(git rev-parse HEAD) " "$STUB_CATALOG" 2>/dev/null; then
      echo "$name is already published for this revision"; exit 0
    fi
    echo "$name $(git rev-parse HEAD) $(heavy_of "$name")" >> "$STUB_CATALOG"
    echo "published $name" ;;
esac
"""

NIX_STUB = r"""#!/usr/bin/env bash
echo "nix $*" >> "$STUB_CALLS"
"""

# nix-build FILE -A pythonEnv -o LINK: a Python for the smoke test, at LINK.
# nix-build FILE -A unwrapped --max-jobs 0: succeeds only where the runner's store already
# has the heavy build, as Nix does when it may substitute but not build.
NIX_BUILD_STUB = r"""#!/usr/bin/env bash
""" + HEAVY + r"""
echo "nix-build $*" >> "$STUB_CALLS"
file="$1" link="" attribute="" max_jobs=""
while [ $# -gt 0 ]; do
  case "$1" in -o) link="$2"; shift ;; -A) attribute="$2"; shift ;; --max-jobs) max_jobs="$2"; shift ;; esac
  shift
done
if [ "$attribute" = unwrapped ]; then
  name=$(basename "$file" .nix)
  test "$max_jobs" = 0 || { echo "error: the stub builds no heavy build here" >&2; exit 1; }
  grep -qx "$(heavy_of "$name")" "$STUB_LOCAL_STORE" 2>/dev/null && exit 0
  echo "error: the heavy build of $name is required to build, but max-jobs = 0" >&2; exit 1
fi
case "$attribute" in genMatrix.pkgs.*)
  # a tool of the recipe's pinned package set, by its store path: it records its calls and
  # the environment variables it was given a token in
  tool="$STUB_STORE/tools/${attribute#genMatrix.pkgs.}"
  mkdir -p "$tool/bin"
  for program in cachix attic ccache; do
    printf '#!/usr/bin/env bash\necho "%s $*${CACHIX_AUTH_TOKEN:+ (CACHIX_AUTH_TOKEN set)}" >> "$STUB_CALLS"\n' \
      "$tool/bin/$program" > "$tool/bin/$program"
    chmod +x "$tool/bin/$program"
  done
  echo "$tool"; exit 0 ;;
esac
test -n "$link" || { echo "error: no out-link" >&2; exit 1; }
mkdir -p "$link/bin" && touch "$link/bin/python"
"""

# gen-matrix smoke NAME --python PY --result LINK: fails where it was not handed a built
# Python outside the checkout and the build's result link, or for STUB_FAIL_SMOKE.
# A stand-in for sudo, on a runner whose user may run anything as root: it runs the command
# as this user, and records it. systemctl and launchctl restart nothing.
SUDO_STUB = r"""#!/usr/bin/env bash
echo "sudo $*" >> "$STUB_CALLS"
exec "$@"
"""

# A stand-in for ssh to a remote builder: it logs in only with a key file it can read that
# holds the key in STUB_BUILDER_KEY_FILE, and to a host whose known_hosts line holds
# STUB_BUILDER_HOST_KEY.
SSH_STUB = r"""#!/usr/bin/env bash
key="" known=""
while [ $# -gt 0 ]; do
  case "$1" in -i) key="$2"; shift ;; -o) known="${2#UserKnownHostsFile=}"; shift ;; *) break ;; esac
  shift
done
host="$1"
echo "ssh $host" >> "$STUB_CALLS"
[ -r "$key" ] && cmp -s "$key" "$STUB_BUILDER_KEY_FILE" || { echo "$host: Permission denied (publickey)." >&2; exit 255; }
grep -qF "$host $STUB_BUILDER_HOST_KEY" "$known" || { echo "Host key verification failed." >&2; exit 255; }
"""

GEN_MATRIX_STUB = r"""#!/usr/bin/env bash
if [ "$1" != smoke ]; then exec "$GEN_MATRIX" "$@"; fi
echo "gen-matrix $*" >> "$STUB_CALLS"
name="$2" python="" result=""
shift 2
while [ $# -gt 0 ]; do
  case "$1" in --python) python="$2"; shift ;; --result) result="$2"; shift ;; esac
  shift
done
case "$python" in "$PWD"/*|"") echo "FAIL  python  not a built Python outside the checkout: $python"; exit 1 ;; esac
test -f "$python" || { echo "FAIL  python  $python is not there"; exit 1; }
test -L "$result" || { echo "FAIL  result  $result is not a build's result link"; exit 1; }
if [ "$name" = "${STUB_FAIL_SMOKE:-}" ]; then echo "FAIL  torch.__version__  not the variant's"; exit 1; fi
echo "gen-matrix: all checks passed"
"""


# --- GitHub's expression syntax, as much of it as the workflow uses ----------------------

TOKEN = re.compile(r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<num>\d+)|(?P<op>==|!=|&&|\|\||[!(),])"
                   r"|(?P<name>[A-Za-z_][A-Za-z0-9_.*-]*)|(?P<prop>\.[A-Za-z_][A-Za-z0-9_-]*))")


def _tokens(text: str) -> list[tuple[str, str]]:
    tokens, position = [], 0
    text = text.strip()
    while position < len(text):
        found = TOKEN.match(text, position)
        if not found:
            raise ValueError(f"cannot read the expression at: {text[position:]!r}")
        kind = found.lastgroup
        tokens.append((kind, found[kind]))
        position = found.end()
    return tokens


def _lookup(context: dict, path: str):
    parts = path.split(".")
    value = context
    for i, part in enumerate(parts):
        if part == "*":  # needs.*.result: the rest of the path of every entry
            rest = ".".join(parts[i + 1:])
            return [_lookup(entry, rest) if rest else entry for entry in value.values()]
        value = value.get(part, "") if isinstance(value, dict) else ""
    return value


def evaluate(text: str, context: dict):
    tokens = _tokens(text)
    position = 0

    def peek():
        return tokens[position] if position < len(tokens) else (None, None)

    def take(expected=None):
        nonlocal position
        token = tokens[position]
        if expected is not None and token[1] != expected:
            raise ValueError(f"expected {expected} in {text!r}")
        position += 1
        return token

    def primary():
        kind, value = take()
        if kind == "str":
            return value[1:-1].replace("''", "'")
        if kind == "num":
            return int(value)
        if value == "!":
            return not truthy(primary())
        if value == "(":
            result = either()
            take(")")
            return result
        if value in ("true", "false"):
            return value == "true"
        if peek()[1] == "(":
            take("(")
            arguments = []
            while peek()[1] != ")":
                arguments.append(either())
                if peek()[1] == ",":
                    take(",")
            take(")")
            result = call(value, arguments)
            while peek()[0] == "prop":  # fromJSON(...).key
                result = _lookup(result, take()[1][1:])
            return result
        return _lookup(context, value)

    def comparison():
        left = primary()
        while peek()[1] in ("==", "!="):
            operator = take()[1]
            right = primary()
            left = (loose(left) == loose(right)) == (operator == "==")
        return left

    def both():
        left = comparison()
        while peek()[1] == "&&":
            take()
            right = comparison()
            left = right if truthy(left) else left
        return left

    def either():
        left = both()
        while peek()[1] == "||":
            take()
            right = both()
            left = left if truthy(left) else right
        return left

    def call(name: str, arguments: list):
        if name == "fromJSON":
            return json.loads(arguments[0])
        if name == "toJSON":
            return json.dumps(arguments[0])
        if name == "contains":
            haystack, needle = arguments
            if isinstance(haystack, list):
                return any(loose(item) == loose(needle) for item in haystack)
            return str(needle).lower() in str(haystack).lower()
        if name == "always":
            return True
        if name == "success":
            return all(result == "success" for result in _lookup(context, "needs.*.result"))
        raise ValueError(f"the harness does not know the function {name}()")

    result = either()
    if position != len(tokens):
        raise ValueError(f"cannot read all of {text!r}")
    return result


def matrix_entries(matrix, context: dict) -> list[dict]:
    """The jobs of a `strategy.matrix`: `${{ expr }}` of an {"include": [...]} value, or a
    mapping of axes (each a list, or `${{ expr }}` of one) whose combinations are the jobs."""
    if not matrix:
        return [{}]
    if isinstance(matrix, str):
        return evaluate(re.fullmatch(r"\$\{\{(.*)\}\}", matrix)[1], context)["include"]
    axes = {key: evaluate(re.fullmatch(r"\$\{\{(.*)\}\}", value)[1], context) if isinstance(value, str) else value
            for key, value in matrix.items()}
    return [dict(zip(axes, values)) for values in itertools.product(*axes.values())]


def _names(entry: dict) -> str:
    """A matrix entry as a job's label shows it: its scalar values (a shard's index, a slot)."""
    return " ".join(str(value) for value in entry.values() if not isinstance(value, (list, dict, bool)))


def truthy(value) -> bool:
    return value not in (False, 0, "", None)


def loose(value):
    """GitHub compares case-insensitively and coerces numbers; enough of that for the workflow."""
    return value.lower() if isinstance(value, str) else value


def substitute(text, context: dict) -> str:
    """A value with every `${{ expr }}` replaced by its value, as GitHub writes it into env."""
    if not isinstance(text, str):
        return str(text).lower() if isinstance(text, bool) else str(text)

    def one(found):
        value = evaluate(found[1], context)
        if isinstance(value, bool):
            return str(value).lower()
        return value if isinstance(value, str) else json.dumps(value)
    return re.sub(r"\$\{\{(.*?)\}\}", one, text)


def condition(text, context: dict) -> bool:
    if text is None:
        return True
    text = str(text).strip()
    inner = re.fullmatch(r"\$\{\{(.*)\}\}", text, re.S)
    return truthy(evaluate(inner[1] if inner else text, context))


# --- the run -----------------------------------------------------------------------------


@dataclass
class Run:
    """One workflow run: what happened, for the test to check and for a reader to follow."""

    log: list[str] = field(default_factory=list)
    results: dict[str, str] = field(default_factory=dict)  # job -> success/failure/cancelled/skipped
    calls: list[str] = field(default_factory=list)  # the stubs' calls, in order
    summary: str = ""
    artifacts: dict[str, Path] = field(default_factory=dict)  # name -> the file uploaded
    secret_steps: list[tuple[str, str, str]] = field(default_factory=list)  # (job, step, secret) it reached

    def builds(self) -> list[str]:
        return [call.split()[2] for call in self.calls if call.startswith("flox build ")]

    def publishes(self) -> list[str]:
        return [call.split()[-1] for call in self.calls if call.startswith("flox publish ")]

    def smokes(self) -> list[str]:
        return [call.split()[2] for call in self.calls if call.startswith("gen-matrix smoke ")]

    def compiled(self) -> list[str]:
        """The builds whose heavy build was compiled, not found in the runner's store."""
        return [call.split()[1] for call in self.calls if call.startswith("store: ") and call.endswith(" compiled")]

    def substituted(self) -> list[str]:
        """The builds whose heavy build was already in the runner's store: only the wrapper built."""
        return [call.split()[1] for call in self.calls if call.startswith("store: ") and call.endswith(" substituted")]


class Harness:
    """A local origin repository, the stubs, and runs of the workflow against it."""

    def __init__(self, root: Path, origin: Path):
        self.root = root  # a scratch folder: stubs, store, clones
        self.origin = origin
        self.bin = root / "bin"
        self.bin.mkdir(parents=True)
        for name, text in (("flox", FLOX_STUB), ("nix", NIX_STUB), ("nix-build", NIX_BUILD_STUB),
                           ("gen-matrix", GEN_MATRIX_STUB), ("sudo", SUDO_STUB), ("ssh", SSH_STUB),
                           ("systemctl", "#!/bin/sh\nexit 0\n")):
            (self.bin / name).write_text(text)
            (self.bin / name).chmod(0o755)
        self.store = root / "store"
        self.catalog = root / "catalog"
        self.catalog.write_text("")
        self.runs = 0

    def lock(self, work: Path) -> None:
        """Lock the Flox environment of a working copy, as `flox activate` does there."""
        subprocess.run([str(self.bin / "flox"), "activate", "--", "true"], cwd=work, check=True,
                       env=dict(os.environ, STUB_CALLS=os.devnull, STUB_STORE=str(self.store)))

    def published(self) -> list[str]:
        """Every variant in the catalog (the stub's), sorted, once each."""
        return sorted({line.split()[0] for line in self.catalog.read_text().splitlines()})

    def tag(self, name: str) -> str | None:
        found = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"refs/tags/{name}^{{commit}}"],
                               cwd=self.origin, capture_output=True, text=True)
        return found.stdout.strip() or None

    def _checkout(self, job: str, sha: str) -> Path:
        where = self.root / f"run{self.runs}" / job
        subprocess.run(["git", "clone", "-q", str(self.origin), str(where)], check=True)
        subprocess.run(["git", "checkout", "-q", sha], cwd=where, check=True)
        return where

    def context(self, event: str, sha: str, *, base_ref: str = "", ref: str = "", inputs: dict | None = None,
                variables: dict | None = None, secrets: dict | None = None) -> tuple[dict, dict]:
        """(the workflow of `sha`, the expression context of a run of it for `event`)."""
        text = subprocess.run(["git", "show", f"{sha}:.github/workflows/flox-variants.yml"], cwd=self.origin,
                              check=True, capture_output=True, text=True).stdout
        workflow = yaml.safe_load(text)
        ref = ref or ("refs/pull/1/merge" if event == "pull_request" else "refs/heads/main")
        context = {"github": {"event_name": event, "base_ref": base_ref, "ref": ref, "sha": sha,
                              "workflow": workflow["name"]},
                   "inputs": dict(inputs or {}),
                   "secrets": ({"FLOX_FLOXHUB_TOKEN": "token", "CACHIX_AUTH_TOKEN": "cache-token"} if secrets is None
                               else dict(secrets)),
                   "vars": {"FLOX_ORG": "acme"} if variables is None else dict(variables), "needs": {}}
        return workflow, context

    def concurrency(self, event: str, sha: str, **given) -> tuple[str, bool]:
        """(concurrency group, cancel-in-progress) of a run. GitHub runs one run of a group at
        a time: a new run cancels the group's running one where cancel-in-progress is true,
        and else waits for it (replacing a run of the group that was waiting already); runs
        of different groups never touch each other."""
        workflow, context = self.context(event, sha, **given)
        concurrency = workflow["concurrency"]
        return substitute(concurrency["group"], context), condition(concurrency["cancel-in-progress"], context)

    def run(self, event: str, sha: str, *, base_ref: str = "", ref: str = "", inputs: dict | None = None,
            cancel_after: int | None = None, env: dict | None = None, variables: dict | None = None,
            secrets: dict | None = None) -> Run:
        """Run the workflow of commit `sha` for `event`. `cancel_after`: the run is cancelled
        once that many build jobs finished; the jobs after are cancelled."""
        self.runs += 1
        run = Run()
        calls = self.root / f"calls{self.runs}"
        calls.write_text("")
        workflow, context = self.context(event, sha, base_ref=base_ref, ref=ref, inputs=inputs, variables=variables,
                                         secrets=secrets)
        base_env = {"PATH": f"{self.bin}{os.pathsep}{os.environ['PATH']}", "HOME": str(self.root),
                    "STUB_CALLS": str(calls), "STUB_STORE": str(self.store), "STUB_CATALOG": str(self.catalog),
                    "GEN_MATRIX": str(GEN_MATRIX), "GEN_MATRIX_NIXPKGS": str(TEST_PACKAGE_SET),
                    "GITHUB_SHA": sha, "GIT_AUTHOR_NAME": "CI", "GIT_AUTHOR_EMAIL": "ci@example.invalid",
                    "GIT_COMMITTER_NAME": "CI", "GIT_COMMITTER_EMAIL": "ci@example.invalid", **(env or {})}
        short = sha[:7]
        run.log.append(f"== {event} at {short}" + (f" ({json.dumps(inputs)})" if inputs else "")
                       + (f", cancelled after {cancel_after} build job(s)" if cancel_after is not None else ""))
        outputs: dict[str, dict] = {}
        self.finished = 0  # build jobs run, for cancel_after
        for job_id, job in workflow["jobs"].items():
            needs = job.get("needs", [])
            needs = [needs] if isinstance(needs, str) else needs
            context["needs"] = {need: {"result": run.results[need], "outputs": outputs.get(need, {})} for need in needs}
            cancelled = cancel_after is not None and self.finished >= cancel_after and job_id.startswith("build")
            upstream_ok = all(run.results[need] == "success" for need in needs)
            status_aware = "always()" in str(job.get("if", ""))
            if (not upstream_ok or cancelled) and not status_aware:
                run.results[job_id] = "cancelled" if cancelled else "skipped"
                run.log.append(f"{job_id}: {run.results[job_id]}")
                continue
            if not condition(job.get("if"), context):
                run.results[job_id] = "skipped"
                run.log.append(f"{job_id}: skipped (if: {' '.join(str(job['if']).split())})")
                continue
            results = []
            for entry in matrix_entries(job.get("strategy", {}).get("matrix"), context):
                context["matrix"] = entry
                label = f"{job_id} [{_names(entry)}]" if entry else job_id
                if "uses" in job:  # a reusable workflow of the repository, called with its inputs
                    results += self._call(label, job, sha, context, base_env, run, calls, cancel_after)
                elif cancel_after is not None and self.finished >= cancel_after and job_id.startswith("build"):
                    results.append("cancelled")
                    run.log.append(f"{label}: cancelled")
                else:
                    results.append(self._job(job_id, label, job, sha, context, base_env, outputs, run, calls))
                    self.finished += job_id.startswith("build")
            result = ("failure" if "failure" in results else "cancelled" if "cancelled" in results else "success")
            run.results[job_id] = result
            context.pop("matrix", None)
        run.calls = calls.read_text().splitlines()
        return run

    def _call(self, label, job, sha, context, base_env, run: Run, calls: Path, cancel_after) -> list[str]:
        """The jobs of the workflow `job` calls (`uses: ./.github/workflows/FILE`), with its
        `with:` as inputs, typed as the called workflow declares them, and its `secrets:`."""
        path = job["uses"].removeprefix("./")
        text = subprocess.run(["git", "show", f"{sha}:{path}"], cwd=self.origin, check=True,
                              capture_output=True, text=True).stdout
        called = yaml.safe_load(text)
        declared = called[True]["workflow_call"]
        inputs = {}
        for key, value in job.get("with", {}).items():
            kind, given = declared["inputs"][key]["type"], substitute(value, context)
            inputs[key] = int(given) if kind == "number" else given == "true" if kind == "boolean" else given
        secrets = {key: substitute(value, context) for key, value in job.get("secrets", {}).items()}
        assert set(secrets) <= set(declared.get("secrets", {})), f"{path} declares no secret {set(secrets)}"
        inner = dict(context, inputs=inputs, secrets=secrets, needs={})
        results = []
        for job_id, called_job in called["jobs"].items():
            for entry in matrix_entries(called_job.get("strategy", {}).get("matrix"), inner):
                inner["matrix"] = entry
                inner_label = f"{label} / {job_id} [{_names(entry)}]"
                if cancel_after is not None and self.finished >= cancel_after:
                    results.append("cancelled")
                    run.log.append(f"{inner_label}: cancelled")
                    continue
                results.append(self._job(f"{job_id}-{inputs.get('shard', '')}", inner_label, called_job, sha, inner,
                                         base_env, {}, run, calls))
                self.finished += 1
        return results

    def _job(self, job_id, label, job, sha, context, base_env, outputs, run: Run, calls: Path) -> str:
        entry = "-".join(str(value) for value in context.get("matrix", {}).values())
        where = self._checkout(f"{job_id}-{entry}", sha)
        step_outputs: dict[str, dict] = {}
        context["steps"] = step_outputs
        temp = where.parent / f"{where.name}.tmp"  # each job's runner has a temporary folder of its own
        temp.mkdir()
        context["runner"] = {"temp": str(temp)}
        job_env = where.parent / f"{where.name}.env"
        summary = where.parent / f"{where.name}.summary"
        # each runner has a Nix store and a Nix configuration of its own
        base_env = dict(base_env, STUB_LOCAL_STORE=str(where.parent / f"{where.name}.nix-store"),
                        NIX_CONF_DIR=str(where.parent / f"{where.name}.nix-conf"))
        Path(base_env["NIX_CONF_DIR"]).mkdir()
        github_path = where.parent / f"{where.name}.path"
        for step in job["steps"]:
            # the env context: what earlier steps wrote to $GITHUB_ENV (one NAME=VALUE a line)
            context["env"] = dict(line.split("=", 1) for line in job_env.read_text().splitlines()
                                  if "=" in line) if job_env.exists() else {}
            if not condition(step.get("if"), context):
                continue
            if str(step.get("uses", "")).startswith("actions/upload-artifact@"):
                # kept under artifacts/, at a URL the later steps link to
                name = substitute(step["with"]["name"], context)
                found = Path(substitute(step["with"]["path"], context))
                kept = self.root / "artifacts" / f"run{self.runs}" / name
                if found.is_dir() and any(found.iterdir()):
                    # a folder: its files, as the artifact holds them (`gh run download` lays
                    # them out under a folder named after the artifact)
                    kept.mkdir(parents=True, exist_ok=True)
                    for file in sorted(found.iterdir()):
                        (kept / file.name).write_bytes(file.read_bytes())
                    run.artifacts[name] = kept
                    continue
                if not found.is_file():
                    if step["with"].get("if-no-files-found") == "ignore":
                        continue
                    run.log.append(f"{label}: step '{step.get('name')}' failed: no file {found}")
                    return "failure"
                kept.mkdir(parents=True, exist_ok=True)
                (kept / found.name).write_bytes(found.read_bytes())
                run.artifacts[name] = kept / found.name
                if "id" in step:
                    step_outputs[step["id"]] = {"outputs": {"artifact-url": f"https://github.invalid/artifacts/{name}"}}
                continue
            if str(step.get("uses", "")).startswith("actions/download-artifact@"):
                name = substitute(step["with"]["name"], context)
                if name not in run.artifacts:
                    run.log.append(f"{label}: step 'download {name}' failed: no such artifact in this run")
                    return "failure"
                into = Path(substitute(step["with"]["path"], context))
                into.mkdir(parents=True, exist_ok=True)
                (into / run.artifacts[name].name).write_bytes(run.artifacts[name].read_bytes())
                continue
            if "run" not in step or "pip install" in step["run"]:
                continue  # actions and installers: the harness has the tools on PATH already
            output = where.parent / f"{where.name}.output"
            output.write_text("")
            env = dict(base_env, GITHUB_OUTPUT=str(output), GITHUB_STEP_SUMMARY=str(summary),
                       GITHUB_PATH=str(github_path), GITHUB_ENV=str(job_env), RUNNER_TEMP=str(temp))
            # what earlier steps added to $GITHUB_PATH comes first, the latest first, as on a runner
            if github_path.exists():
                added = [line for line in github_path.read_text().splitlines() if line]
                env["PATH"] = os.pathsep.join([*reversed(added), env["PATH"]])
            # what earlier steps wrote to $GITHUB_ENV (one NAME=VALUE a line), under the step's own env
            if job_env.exists():
                env.update(line.split("=", 1) for line in job_env.read_text().splitlines() if "=" in line)
            env.update({key: substitute(value, context) for key, value in step.get("env", {}).items()})
            # which secrets reach the step: those whose value is in its environment
            run.secret_steps.extend((label, step.get("name", ""), name) for name, value in context["secrets"].items()
                                    if value and any(value in given for given in env.values()))
            before = len(calls.read_text().splitlines())
            done = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=where, env=env, capture_output=True, text=True)
            for call in calls.read_text().splitlines()[before:]:
                run.log.append(f"{label}: {call}")
            for line in (done.stdout + done.stderr).splitlines():
                if line.startswith("::") or "already" in line:
                    run.log.append(f"{label}: {line}")
            if "id" in step:
                step_outputs[step["id"]] = {"outputs": dict(line.split("=", 1) for line in output.read_text().splitlines()
                                                            if "=" in line)}
            if done.returncode != 0:
                run.log.append(f"{label}: step '{step.get('name')}' failed ({done.returncode})")
                run.log.extend(f"{label}:   {line}" for line in (done.stdout + done.stderr).splitlines()[-5:])
                if summary.exists():
                    run.summary += summary.read_text()
                return "failure"
        if "outputs" in job:
            outputs[job_id] = {key: substitute(value, context) for key, value in job["outputs"].items()}
        if summary.exists():
            run.summary += summary.read_text()
            if job_id == "plan":
                run.log.extend(f"{label}: | {line}" for line in summary.read_text().splitlines()
                               if line.startswith(("Compared", "| torch", "| companions", "| wrapper only", "**Estimated")))
            elif job_id == "mark-published":
                run.log.append(f"{label}: {summary.read_text().strip()}")
        return "success"
