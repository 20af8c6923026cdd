#!/usr/bin/python3
"""The slow tier: cudiag's frameworks layer on real CUDA framework wheels.

Run by tests/slow/run.sh, which installs tests/slow/requirements-cuda12.txt
(torch 2.8.0 CUDA 12.8 with its nvidia-*-cu12 wheels, jax[cuda12], cupy-cuda12x,
onnxruntime-gpu) into a cached venv and sets CUDIAG (the binary) and
CUDIAG_SLOW_VENV. Every expectation comes from a source other than the files
cudiag reads: the frameworks imported in their own interpreter, the real
dynamic loader (ctypes + /proc/self/maps), importlib.metadata and cuobjdump.
Expectations about the machine (driver, GPU) are computed from the report's
own lower layers, so the tier means the same on a GPU machine.
"""
import glob
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import unittest

CUDIAG = os.environ.get("CUDIAG", "build/src/cudiag")
VENV = os.environ.get("CUDIAG_SLOW_VENV", os.path.expanduser("~/.cache/cudiag-test-wheels/venv-cuda12"))
PY = os.path.join(VENV, "bin", "python3")
SP = (glob.glob(os.path.join(VENV, "lib", "python3.*", "site-packages")) or [""])[0]


def run(cmd, timeout=600, check=True):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    if check and p.returncode != 0:
        raise AssertionError(f"{cmd[:4]} exited {p.returncode}: {p.stderr[-2000:]}")
    return p


def venv_python(code, *args, timeout=300, check=True):
    return run([PY, "-c", code, *args], timeout=timeout, check=check)


# In the venv's interpreter: load shared objects the way Python does (ctypes,
# RTLD_GLOBAL) and list the files the real dynamic loader mapped, or the error.
LOAD_AND_MAP = r"""
import ctypes, json, os, sys
error = None
for p in sys.argv[1:]:
    try:
        ctypes.CDLL(p, mode=os.RTLD_GLOBAL)
    except OSError as e:
        error = str(e)
        break
maps = set()
for line in open("/proc/self/maps"):
    parts = line.split()
    if len(parts) >= 6 and ".so" in parts[5]:
        maps.add(os.path.realpath(parts[5]))
print(json.dumps({"error": error, "maps": sorted(maps)}))
"""


def real_load(paths):
    return json.loads(venv_python(LOAD_AND_MAP, *paths).stdout)


def version_tuple(text):
    return tuple(int(x) for x in re.findall(r"\d+", text)[:2])


def find_cuobjdump():
    for c in (os.environ.get("CUDIAG_CUOBJDUMP"), shutil.which("cuobjdump"), "/usr/local/cuda/bin/cuobjdump"):
        if c and os.access(c, os.X_OK):
            return c
    spec = importlib.util.find_spec("nvidia")  # the nvidia-cuda-cuobjdump wheel (scripts/install-deps.sh)
    for p in (spec.submodule_search_locations if spec else []):
        c = os.path.join(p, "cu13", "bin", "cuobjdump")
        if os.access(c, os.X_OK):
            return c
    return None


class RealWheels(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        r = run([CUDIAG, "report", "--format", "json", "--include-identity", "--python", PY], check=False)
        assert r.returncode in (0, 1), r.stderr
        cls.report = json.loads(r.stdout)
        cls.env = next(e for e in cls.report["frameworks"]["environments"]
                       if os.path.realpath(e["prefix"]) == os.path.realpath(VENV))
        cls.fw = {f["name"]: f for f in cls.env["frameworks"]}
        cls.dists = json.loads(venv_python(
            "import importlib.metadata as m, json; "
            "print(json.dumps({d.metadata['Name'].lower().replace('_', '-'): d.version for d in m.distributions()}))"
        ).stdout)
        print(f"\n  frameworks_ms {cls.report['timings'].get('frameworks_ms'):.1f} for {len(cls.env['frameworks'])} "
              f"frameworks and {len(cls.env['nvidia_wheels'])} nvidia wheels", file=sys.stderr)

    def loads(self, name):
        return {l["soname"]: l for l in self.fw[name]["loads"]}

    def findings(self, fid, framework=None):
        out = []
        for f in self.report["findings"]:
            if f["id"] != fid:
                continue
            if framework is not None:
                i = self.report["frameworks"]["environments"].index(self.env)
                j = self.env["frameworks"].index(self.fw[framework])
                prefix = f"frameworks.environments[{i}].frameworks[{j}]"
                if not any(e["fact"].startswith(prefix) for e in f["evidence"]):
                    continue
            out.append(f)
        return out

    def driver_cuda(self):
        v = (self.report.get("driver_api", {}).get("cuda_driver_version") or {}).get("value")
        return version_tuple(v) if v else None

    # ------------------------------------------------------------ what each framework was built for

    def test_torch_build_as_torch_itself_says(self):
        truth = json.loads(venv_python(
            "import json, torch; print(json.dumps([torch.__version__, torch.version.cuda, torch.version.hip]))").stdout)
        torch = self.fw["torch"]
        self.assertEqual(torch["version"]["value"], self.dists["torch"])
        self.assertEqual(torch["build"]["version"]["value"], truth[0])  # 2.8.0+cu128: the local tag is in version.py
        self.assertEqual(torch["build"]["cuda"]["value"], truth[1])
        self.assertIsNone(truth[2])
        self.assertTrue(truth[0].endswith("+cu" + truth[1].replace(".", "")), truth)
        self.assertIs(torch["build"]["cpu_only"]["value"], False)
        self.assertEqual(torch["build"]["cuda_major"]["value"], int(truth[1].split(".")[0]))

    def test_torch_architectures_agree_with_cuobjdump(self):
        cuobjdump = find_cuobjdump()
        if not cuobjdump:
            self.skipTest("no cuobjdump (CUDA toolkit or the nvidia-cuda-cuobjdump wheel)")
        binary = next(b for b in self.fw["torch"]["binaries"] if b.get("architectures"))
        path = binary["path"]
        self.assertTrue(path.endswith("/libtorch_cuda.so"), path)
        names = lambda flag: {re.sub(r".*\.((sm|compute)_\d+[a-z]?)\.(cubin|ptx)$", r"\1", l.split()[-1])
                              for l in run([cuobjdump, flag, path], check=False).stdout.splitlines()
                              if l.startswith(("ELF file", "PTX file"))}
        sass = names("--list-elf")
        ptx = {"compute_" + n.split("_")[1] for n in names("--list-ptx")}
        self.assertEqual(set(binary["architectures"]["sass"]), sass)
        self.assertEqual({p["arch"] for p in binary["architectures"]["ptx"]}, ptx)
        self.assertIn("sm_80", sass)

    def test_jax_cupy_onnxruntime_builds(self):
        jax, cupy, ort = self.fw["jax"], self.fw["cupy"], self.fw["onnxruntime"]
        self.assertEqual(jax["version"]["value"], self.dists["jaxlib"])
        self.assertEqual(jax["build"]["cuda_major"]["value"], 12)
        plugins = {p["package"]: p["version"]["value"] for p in jax["plugins"]}
        self.assertEqual(plugins, {"jax-cuda12-plugin": self.dists["jax-cuda12-plugin"],
                                   "jax-cuda12-pjrt": self.dists["jax-cuda12-pjrt"]})
        self.assertEqual(cupy["package"], "cupy-cuda12x")
        self.assertEqual(cupy["version"]["value"], self.dists["cupy-cuda12x"])
        self.assertEqual(cupy["build"]["cuda_major"]["value"], 12)
        self.assertEqual(ort["package"], "onnxruntime-gpu")
        self.assertEqual(ort["version"]["value"], self.dists["onnxruntime-gpu"])
        truth = json.loads(venv_python(
            "import json, onnxruntime.capi.build_and_package_info as b; print(json.dumps(b.cuda_version))").stdout)
        self.assertEqual(ort["build"]["cuda"]["value"], truth)
        self.assertEqual(ort["build"]["cudnn_major"]["value"], 9)

    def test_nvidia_wheels_as_pip_lists_them(self):
        listed = {w["name"]: w for w in self.env["nvidia_wheels"]}
        installed = {n: v for n, v in self.dists.items() if n.startswith("nvidia-")}
        self.assertEqual(set(listed), set(installed))
        for name, w in listed.items():
            self.assertEqual(w["version"]["value"], installed[name], name)
            self.assertEqual(w["cuda_major"], 12, name)

    # ------------------------------------------------------------ what the loader would give each one

    def test_torch_loads_what_the_real_loader_maps(self):
        binaries = [b["path"] for b in self.fw["torch"]["binaries"]]
        real = real_load(binaries)
        self.assertIsNone(real["error"])
        mapped = set(real["maps"])
        loads = self.loads("torch")
        for soname, l in loads.items():
            self.assertIsNotNone(l["path"], soname)
            self.assertIn(os.path.realpath(l["path"]), mapped, soname)
            # Each from its wheel, with the version pip installed.
            self.assertEqual(l["version"]["value"], self.dists[l["wheel"]], soname)
        # And every CUDA library the real loader mapped from a wheel is in the report.
        from_wheels = {os.path.basename(m) for m in mapped if m.startswith(os.path.join(os.path.realpath(SP), "nvidia"))}
        self.assertEqual(from_wheels - set(loads), set())
        for soname in ("libcudart.so.12", "libcudnn.so.9", "libcublas.so.12", "libcublasLt.so.12", "libnccl.so.2",
                       "libnvJitLink.so.12", "libcupti.so.12"):
            self.assertIn(soname, loads)

    def test_jax_preloads_what_the_real_plugin_maps(self):
        # The plugin's own preloading runs when JAX looks for a GPU, GPU or not.
        out = venv_python(
            "import json, os, jax\n"
            "try: jax.devices('gpu')\n"
            "except RuntimeError: pass\n"
            "print(json.dumps(sorted({os.path.realpath(l.split()[5]) for l in open('/proc/self/maps') "
            "if len(l.split()) >= 6 and '.so' in l.split()[5]})))").stdout
        mapped = set(json.loads(out.splitlines()[-1]))
        for soname, l in self.loads("jax").items():
            self.assertIn(os.path.realpath(l["path"]), mapped, soname)
            self.assertEqual(l["version"]["value"], self.dists[l["wheel"]], soname)
        from_wheels = {os.path.basename(m) for m in mapped if m.startswith(os.path.join(os.path.realpath(SP), "nvidia"))}
        # cuDNN's sub-libraries (libcudnn_graph.so.9) are cuDNN's own dlopens, not the plugin's.
        self.assertEqual({s for s in from_wheels - set(self.loads("jax")) if not s.startswith("libcudnn_")}, set())

    def test_onnxruntime_provider_fails_to_load_as_reported(self):
        ort = self.fw["onnxruntime"]
        provider = next(b["path"] for b in ort["binaries"] if b["path"].endswith("libonnxruntime_providers_cuda.so"))
        loads = self.loads("onnxruntime")
        missing = {s for s, l in loads.items() if l["path"] is None}
        real = real_load([provider])
        if not missing:
            self.assertIsNone(real["error"])
            return
        # The real loader stops at the first DT_NEEDED it cannot find: one cudiag named.
        self.assertIsNotNone(real["error"])
        first = re.search(r"(lib[\w.+-]+\.so[.\d]*): cannot open shared object file", real["error"])
        self.assertIsNotNone(first, real["error"])
        self.assertIn(first.group(1), missing)
        # The copies cudiag says the search would find (ld.so.cache, default path) are the ones dlopen finds.
        for soname, l in loads.items():
            if l["path"] is None:
                self.assertIsNotNone(real_load([soname])["error"], soname)
            elif "wheel" not in l:
                self.assertIn(os.path.realpath(l["path"]), set(real_load([soname])["maps"]), soname)
        # Each missing DT_NEEDED is an error finding naming it.
        for soname in missing:
            named = [f for f in self.findings("frameworks.library_not_found", "onnxruntime") if soname in f["message"]]
            self.assertEqual(len(named), 1, soname)
            self.assertEqual(named[0]["severity"], "error")

    # ------------------------------------------------------------ the rules, with this machine's driver

    def test_torch_cuda_against_the_driver(self):
        driver = self.driver_cuda()
        if driver is None:
            self.skipTest("no libcuda answered cuDriverGetVersion here")
        build = version_tuple(self.fw["torch"]["build"]["cuda"]["value"])
        found = self.findings("frameworks.cuda_build_needs_newer_driver", "torch")
        if driver >= build:
            self.assertEqual(found, [])
        elif driver[0] == build[0]:
            # This project's CI: R535 (CUDA 12.2) under a CUDA 12.8 torch: minor-version compatibility, a warning.
            self.assertEqual(len(found), 1, found)
            self.assertEqual(found[0]["severity"], "warning")
            self.assertIn("CUDA 12.8", found[0]["message"])
            self.assertIn("minor-version compatibility", found[0]["message"])
        else:
            self.assertEqual([f["severity"] for f in found], ["error"])

    def test_no_false_alarms_for_consistent_wheels(self):
        # torch pins its nvidia wheels exactly and pip installed those: nothing mismatched, one CUDA major.
        self.assertEqual(self.findings("frameworks.library_version_mismatch", "torch"), [])
        self.assertEqual(self.findings("frameworks.library_shadowed", "torch"), [])
        self.assertEqual(self.findings("frameworks.mixed_cuda_majors"), [])
        self.assertEqual(self.findings("frameworks.mixed_cuda_wheels"), [])

    # ------------------------------------------------------------ cudiag test, and the summary a person reads

    def test_kernel_test_names_the_failing_step_and_keeps_each_exception(self):
        r = run([CUDIAG, "test", "--format", "json", "--python", PY], check=False)
        kt = json.loads(r.stdout)["kernel_test"]
        ours = {f["framework"]: f for f in kt["frameworks"] if f["python"] == PY}
        self.assertEqual(ours["tensorflow"]["status"], "not installed")
        gpus = [d for d in self.report["kernel_driver"].get("pci_devices", []) if d.get("kind") == "gpu"]
        if gpus:
            for name in ("torch", "jax", "cupy"):
                self.assertIn(ours[name]["status"], ("pass", "fail"))
            return
        self.assertEqual(r.returncode, 1)
        self.assertEqual(kt["status"], "fail")
        self.assertEqual(kt["first_failure"]["step"], "cuInit")
        self.assertIn("CUDA_ERROR_NO_DEVICE", kt["first_failure"]["message"])
        self.assertEqual(ours["torch"]["version"], json.loads(venv_python(
            "import json, torch; print(json.dumps(torch.__version__))").stdout))
        # Each framework's own exception, verbatim: what the same operation raises when run directly.
        direct = {
            "torch": "import torch; torch.ones(1, device='cuda')",
            "jax": "import jax; jax.devices('gpu')",
            "cupy": "import cupy; cupy.ones(1)",
        }
        for name, code in direct.items():
            self.assertEqual(ours[name]["status"], "fail", name)
            last = venv_python(code, check=False).stderr.strip().splitlines()[-1]
            self.assertEqual(ours[name]["error"], last, name)
            self.assertEqual(ours[name]["traceback"].strip().splitlines()[-1], last, name)

    def test_text_summary(self):
        r = run([CUDIAG, "check", "--no-color", "--include-identity", "--python", PY], check=False)
        lines = r.stdout.splitlines()
        start = next(i for i, l in enumerate(lines) if l[2:].startswith("frameworks    "))
        block = [lines[start]]
        for l in lines[start + 1:]:
            if not l.startswith(" "):
                break
            block.append(l)
        for l in block:
            self.assertLessEqual(len(l), 80, l)  # code points: one column each here
        text = " ".join(l.strip() for l in block)  # undoes the wrapping
        self.assertIn(f"{VENV} (venv, Python 3.11) · nvidia-* wheels: {len(self.env['nvidia_wheels'])} cu12", text)
        torch = self.fw["torch"]["build"]
        self.assertIn(f"torch {torch['version']['value']} · CUDA {torch['cuda']['value']} · sm_", text)
        d = self.dists
        self.assertIn(f"loads cudart {d['nvidia-cuda-runtime-cu12']}, cuDNN {d['nvidia-cudnn-cu12']}, "
                      f"cuBLAS {d['nvidia-cublas-cu12']}, cuBLASLt {d['nvidia-cublas-cu12']}, "
                      f"NCCL {d['nvidia-nccl-cu12']}", text)
        self.assertIn(f"jax {d['jaxlib']} · CUDA 12 (jax-cuda12-plugin {d['jax-cuda12-plugin']})", text)
        self.assertIn(f"cupy-cuda12x {d['cupy-cuda12x']} · CUDA 12", text)


if __name__ == "__main__":
    if not os.path.exists(PY):
        sys.exit(f"no venv at {VENV}: run tests/slow/run.sh")
    unittest.main()
