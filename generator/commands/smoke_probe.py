"""Facts about the torch an interpreter imports, printed as one JSON object.

`gen-matrix smoke` runs this file's text in the interpreter under test, which may be any
Python with torch: it imports nothing but the standard library and torch.
"""

import json
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
    # get_arch_list() answers [] without a usable GPU; the flags it reads are there regardless
    names = list(torch.cuda.get_arch_list())
    if not names and torch.version.cuda:
        flags = getattr(torch._C, "_cuda_getArchFlags", lambda: None)()
        names = flags.split() if flags else []
    return names


def probe():
    facts = {"python": sys.version.split()[0], "executable": sys.executable}
    try:
        import torch
    except Exception as error:
        facts["import_error"] = f"{type(error).__name__}: {error}"
        return facts
    cuda_available = bool(torch.cuda.is_available())
    facts.update(
        torch=torch.__version__,
        torch_file=torch.__file__,
        cuda=torch.version.cuda,
        cuda_available=cuda_available,
        arch_list=arch_list(torch),
        cpu_capability=getattr(getattr(torch.backends, "cpu", None), "get_cpu_capability", lambda: None)(),
        devices=[{"name": torch.cuda.get_device_name(i),
                  "capability": "%d.%d" % torch.cuda.get_device_capability(i)}
                 for i in range(torch.cuda.device_count())] if cuda_available else [],
    )
    facts["compute"] = {"cpu": compute(torch, "cpu")}
    if cuda_available:
        facts["compute"]["cuda"] = compute(torch, "cuda:0")
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        facts["compute"]["mps"] = compute(torch, "mps")
    return facts


if __name__ == "__main__":
    print(json.dumps(probe()))
