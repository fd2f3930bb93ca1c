"""Facts about the torch an interpreter imports, printed as one JSON object.

`gen-matrix smoke` runs this file's text in the interpreter under test, which may be any
Python with torch: it imports nothing but the standard library and torch. Its arguments
name the companion modules (torchvision, torchaudio) to import beside torch.
"""

import ast
import importlib.util
import json
import os
import platform
import sys

SIZE = 64


def expected_product():
    # small integers: every product and sum is exact in float32 (and in TF32 inputs)
    a = [[(i + j) % 7 for j in range(SIZE)] for i in range(SIZE)]
    b = [[(i * j) % 5 for j in range(SIZE)] for i in range(SIZE)]
    return a, b, [[sum(a[i][k] * b[k][j] for k in range(SIZE)) for j in range(SIZE)] for i in range(SIZE)]


def compute(torch, device):
    a, b, want = expected_product()
    try:
        x = torch.tensor(a, dtype=torch.float32, device=device)
        y = torch.tensor(b, dtype=torch.float32, device=device)
        got = (x @ y).cpu().tolist()
    except Exception as error:  # the point is to report what went wrong, whatever it is
        return {"device": device, "ok": False, "error": f"{type(error).__name__}: {error}"}
    wrong = sum(1 for i in range(SIZE) for j in range(SIZE) if got[i][j] != want[i][j])
    return {"device": device, "ok": wrong == 0, "size": SIZE, "wrong": wrong}


def arch_list(torch):
    """The CUDA architectures (or, in a ROCm build, the gfx targets) compiled into the binary,
    and where they were read. Without a usable GPU get_arch_list() answers []; the flags it
    reads are there regardless."""
    names = list(torch.cuda.get_arch_list())
    if names or not (torch.version.cuda or getattr(torch.version, "hip", None)):
        return names, "torch.cuda.get_arch_list()"
    flags = getattr(torch._C, "_cuda_getArchFlags", lambda: None)()
    return (flags.replace(";", " ").split() if flags else []), "torch._C._cuda_getArchFlags()"


def _sve_bits():
    """The SVE vector length of this Linux machine in bits, or None where it cannot be read."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as cpuinfo:
            features = {word for line in cpuinfo if line.lower().startswith("features")
                        for word in line.split(":", 1)[1].split()}
    except OSError:
        return None
    if "sve" not in features:
        return 0
    try:
        with open("/proc/sys/abi/sve_default_vector_length", encoding="utf-8") as length:
            return int(length.read().strip()) * 8  # the kernel gives bytes
    except (OSError, ValueError):
        return None


def cpu_ceiling(torch):
    """The best CPU kernels (ATen's CPU capability) this CPU runs, whatever this torch holds
    and whatever ATEN_CPU_CAPABILITY says: torch.cpu asks cpuinfo, as ATen's dispatch does.
    None where it cannot be told, with the reason."""
    machine = platform.machine().lower()
    if machine in ("x86_64", "amd64"):
        cpu = getattr(torch, "cpu", None)
        avx512 = getattr(cpu, "_is_avx512_supported", None)
        avx2 = getattr(cpu, "_is_avx2_supported", None)
        if avx512 is None or avx2 is None:
            return None, f"torch {torch.__version__} has no torch.cpu._is_avx512_supported()"
        return ("AVX512" if avx512() else "AVX2" if avx2() else "DEFAULT"), "torch.cpu"
    if machine in ("aarch64", "arm64"):
        if sys.platform == "darwin":
            return "DEFAULT", "Apple Silicon has no SVE"
        bits = _sve_bits()
        if bits is None:
            return None, "the SVE vector length cannot be read here"
        return ("SVE256" if bits >= 256 else "DEFAULT"), f"/proc/cpuinfo and SVE vector length {bits}"
    return None, f"gen-matrix knows no CPU kernels of {machine}"


def companion(name):
    """Whether the companion imports (and, for torchvision, runs a C++ operator) with this torch."""
    try:
        module = __import__(name)
        if name == "torchvision":  # its operators register against this torch, or fail
            import torch
            boxes = torch.tensor([[0.0, 0.0, 2.0, 2.0], [0.5, 0.5, 2.0, 2.0], [5.0, 5.0, 6.0, 6.0]])
            kept = module.ops.nms(boxes, torch.tensor([0.9, 0.8, 0.7]), 0.3).tolist()
            if kept != [0, 2]:
                return {"error": f"torchvision.ops.nms kept {kept}, not [0, 2]"}
    except Exception as error:
        return {"error": f"{type(error).__name__}: {error}"}
    return {"version": getattr(module, "__version__", None), "file": getattr(module, "__file__", None)}


def files(name):
    """What a package's files say, read without importing it: an import can crash on a CPU
    that lacks the instructions the build was compiled for. None where it is not found."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = list(spec.submodule_search_locations)[0]
    found = {"file": os.path.join(folder, "__init__.py")}
    try:
        with open(os.path.join(folder, "version.py"), encoding="utf-8") as version:
            tree = ast.parse(version.read())
    except (OSError, SyntaxError, ValueError):
        return found
    for node in tree.body:  # __version__ = '2.8.0'; cuda: Optional[str] = '12.8'; hip = '6.4.43484-0'
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        for target in targets:
            if isinstance(target, ast.Name) and target.id in ("__version__", "cuda", "hip") \
                    and isinstance(node.value, ast.Constant):
                found[target.id] = node.value.value
    return found


def probe(companions):
    facts = {"python": sys.version.split()[0], "executable": sys.executable,
             "machine": platform.machine(),
             "aten_cpu_capability": os.environ.get("ATEN_CPU_CAPABILITY") or None,
             "files": {name: files(name) for name in ("torch", *companions)}}
    print(json.dumps(facts), flush=True)  # what the files say, should the import below crash
    try:
        import torch
    except Exception as error:
        facts["import_error"] = f"{type(error).__name__}: {error}"
        return facts
    cuda_available = bool(torch.cuda.is_available())
    archs, arch_source = arch_list(torch)
    ceiling, ceiling_source = cpu_ceiling(torch)
    facts.update(
        torch=torch.__version__,
        torch_file=torch.__file__,
        cuda=torch.version.cuda,
        hip=getattr(torch.version, "hip", None),
        cuda_available=cuda_available,
        arch_list=archs,
        arch_source=arch_source,
        cpu_capability=getattr(getattr(torch.backends, "cpu", None), "get_cpu_capability", lambda: None)(),
        cpu_ceiling=ceiling,
        cpu_ceiling_source=ceiling_source,
        devices=[{"name": torch.cuda.get_device_name(i),
                  "capability": "%d.%d" % torch.cuda.get_device_capability(i)}
                 for i in range(torch.cuda.device_count())] if cuda_available else [],
        companions={name: companion(name) for name in companions},
    )
    facts["compute"] = {"cpu": compute(torch, "cpu")}
    if cuda_available:
        facts["compute"]["cuda"] = compute(torch, "cuda:0")
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        facts["compute"]["mps"] = compute(torch, "mps")
    return facts


if __name__ == "__main__":
    print(json.dumps(probe(sys.argv[1:])))
