#!/usr/bin/env python3
"""Regenerates the CUDA runtime (cudaError_t, driver_types.h), driver API
(CUresult, cuda.h) and NVML (nvmlReturn_t, nvml.h) rows of
data/kb/error_codes.json from the headers: every code the headers define gets
a row with its name, number, meaning (the header's doc comment, or the row's
existing one), the layer it points at and a remedy (the row's `note`). Layers
and remedies are hand-written below per code family from NVIDIA's API
references (the rows' sources); they replace the notes the rows had.

  scripts/gen_cuda_error_codes.py            rewrite the rows
  scripts/gen_cuda_error_codes.py --check    exit 1 unless every header code has
                                             a row with a layer and a remedy
Headers: $CUDA_INCLUDE (default /usr/local/cuda/include) for driver_types.h and
cuda.h; nvml.h from $NVML_INCLUDE or the nvidia-nvml-dev wheel (site-packages/
nvidia/cu*/include), which scripts/install-deps.sh installs.
"""
import collections, glob, importlib.util, json, os, pathlib, re, sys

kb = pathlib.Path(__file__).resolve().parent.parent / "data/kb/error_codes.json"
cuda_inc = pathlib.Path(os.environ.get("CUDA_INCLUDE", "/usr/local/cuda/include"))


def nvml_header():
    if os.environ.get("NVML_INCLUDE"):
        return pathlib.Path(os.environ["NVML_INCLUDE"]) / "nvml.h"
    spec = importlib.util.find_spec("nvidia")
    for root in (spec.submodule_search_locations if spec else []):
        for hit in sorted(glob.glob(os.path.join(root, "cu*", "include", "nvml.h")), reverse=True):
            return pathlib.Path(hit)
    # Another interpreter's site-packages (pip of python3 on PATH vs /usr/bin/python3).
    for pattern in ["/usr/local/lib/python3*/dist-packages", "/usr/lib/python3/dist-packages",
                    os.path.expanduser("~/.pyenv/versions/*/lib/python3*/site-packages"),
                    os.path.expanduser("~/.local/lib/python3*/site-packages")]:
        for hit in sorted(glob.glob(os.path.join(pattern, "nvidia", "cu*", "include", "nvml.h")), reverse=True):
            return pathlib.Path(hit)
    for hit in [cuda_inc / "nvml.h", pathlib.Path("/usr/include/nvml.h")]:
        if hit.exists():
            return hit
    sys.exit("gen_cuda_error_codes.py: nvml.h not found (pip install nvidia-nvml-dev, or set NVML_INCLUDE)")


def enum(path, start, end):
    """(name, value, doc) for each enumerator between `start` and `end`."""
    text = path.read_text()
    s = text.index(start)
    body = text[s:text.index(end, s)]
    out = []
    # A doc comment (/** ... */ before, or //!< after) belongs to the enumerator next to it.
    for m in re.finditer(r"(/\*\*(?P<pre>.*?)\*/\s*)?,?\s*(?P<name>\w+)\s*=\s*(?P<val>\d+)\s*,?[ \t]*(//!<(?P<post>[^\n]*))?", body, re.S):
        doc = m.group("pre") or m.group("post") or ""
        doc = " ".join(w.strip("* ") for w in doc.split("\n")).strip()
        doc = re.sub(r"\\(ref|p|c)\s+", "", doc).replace("\\deprecated", "Deprecated:").replace("::", "")
        doc = re.sub(r"\s+", " ", doc)
        out.append((m.group("name"), int(m.group("val")), doc))
    return out


BUG = "A bug in the calling program or framework (a wrong argument or call order), not the environment: update it or report it upstream; CUDA_LAUNCH_BLOCKING=1 points at the failing call."
FAULT = ("A kernel faulted; the CUDA context is unusable afterwards. Usually a bug in the program or a custom extension "
         "(run with CUDA_LAUNCH_BLOCKING=1, then compute-sanitizer); an extension built for another CUDA or GPU than the framework's does it too. "
         "dmesg shows an Xid 13/31/43 for it.")
OOM = "GPU memory is exhausted or held by another process (nvidia-smi lists them): free it, lower the batch size, or use a GPU with more memory."
INIT = ("The CUDA driver could not be initialised: the kernel module is not loaded or differs from the user-space driver (nvidia-smi says which), "
        "/dev/nvidia* or /dev/nvidia-uvm is missing (modprobe nvidia-uvm; in a container start it with --gpus all), or CUDA_VISIBLE_DEVICES is invalid; "
        "in a process forked after its parent initialised CUDA it always fails (use the spawn start method). cudiag check names the layer.")
NOT_SUPPORTED = "The operation is not supported by this GPU, driver or platform (WSL, MIG, a GeForce GPU): use a GPU or driver that supports it, or avoid the feature."
HW = "A hardware or firmware fault on the GPU: reset it (nvidia-smi -r -i N, with no process on it) or reboot; if it repeats check power, cooling and seating, and the kernel log's Xid lines (cudiag explain them)."
MPS = ("The CUDA MPS server failed or refused the client: restart it (echo quit | nvidia-cuda-mps-control; nvidia-cuda-mps-control -d) "
       "with the same CUDA_MPS_PIPE_DIRECTORY for server and clients, or unset it to run without MPS.")
EXCLUSIVE = "The GPU is in an exclusive compute mode and another process holds it (nvidia-smi -q -d COMPUTE): stop that process or set the mode to DEFAULT (nvidia-smi -c DEFAULT -i N, as root)."
PEER = "Peer-to-peer access between these GPUs is not available (PCIe topology, IOMMU/ACS, different GPU types, a VM): check nvidia-smi topo -m; NCCL_P2P_DISABLE=1 works around it in NCCL."
INSUFFICIENT = "The driver is older than the CUDA runtime: install a driver that supports the runtime's CUDA (cudiag kb driver-for X.Y gives the minimum), or use a build of the program for the CUDA the driver supports (nvidia-smi's header)."
NEWER = "The program calls an API newer than the driver (typical under minor-version compatibility): install a driver of the program's CUDA release (cudiag kb driver-for X.Y) or the cuda-compat package for it on a datacenter GPU."
NO_DEVICE = "No CUDA GPU is visible to the process: CUDA_VISIBLE_DEVICES empty or wrong, a container without --gpus all, no /dev/nvidia* nodes, or no NVIDIA GPU (lspci | grep -i nvidia). cudiag check walks the layers."
BAD_ORDINAL = "The device index is beyond the visible GPUs: compare it with nvidia-smi -L and CUDA_VISIBLE_DEVICES (which renumbers the GPUs from 0)."
NO_KERNEL = ("The kernel to launch is not in the loaded module: nearly always a library or program built for other GPU architectures than this one "
             "(NVCC_GENCODE / CMAKE_CUDA_ARCHITECTURES / TORCH_CUDA_ARCH_LIST without this GPU's sm_XY): rebuild for it or install a build that includes it; "
             "otherwise a bug in the program (CUDA_LAUNCH_BLOCKING=1).")
NO_IMAGE = "The binary has no kernel for this GPU's architecture (and no PTX the driver can JIT): install a build of the program or framework that includes this GPU's sm_XY, or rebuild with -gencode for it."
BAD_IMAGE = "The kernel image in the binary is corrupt or for another platform: reinstall or rebuild the program with this toolkit."
JIT_MISSING = "The PTX JIT compiler (libnvidia-ptxjitcompiler.so.1) of the driver is missing: install the complete driver user space; in a container set NVIDIA_DRIVER_CAPABILITIES=compute,utility."
JIT_OFF = "PTX JIT is disabled (CUDA_DISABLE_PTX_JIT=1 or a driver setting) and the binary has no SASS for this GPU: unset it, or use a build with this GPU's sm_XY."
BAD_PTX = "The driver failed to JIT-compile the binary's PTX: usually PTX newer than the driver (update the driver, cudiag kb driver-for X.Y) or a compiler bug; a build with this GPU's SASS avoids the JIT."
WATCHDOG = "The display watchdog stopped a long kernel (the GPU drives a display, or Windows TDR): run on a GPU without a display, stop X on it, or raise TdrDelay on Windows."
OS = "An operating-system call failed (permissions, limits such as ulimit -l for pinned memory, a missing /dev node): check the kernel log and the process's limits."
CDP = "CUDA dynamic parallelism is unsupported or built with another device runtime: rebuild with the toolkit matching the program (cudadevrt) and -rdc=true for this GPU."
LICENSE = "The GPU (vGPU/GRID or a data-center feature) has no valid licence: check the licence client (nvidia-gridd, nvidia-smi -q | grep -i license) and the licence server."

# Per code: (layer, remedy). A code not listed here takes its family's from FAMILY.
RUNTIME_DRIVER = {
    ("MemoryAllocation", "OUT_OF_MEMORY"): ("cuda_runtime", OOM),
    ("InitializationError", "NOT_INITIALIZED"): ("driver_api", INIT),
    ("InvalidDeviceFunction",): ("binaries", NO_KERNEL),
    ("SymbolNotFound", "NOT_FOUND"): ("binaries", NO_KERNEL),
    ("CudartUnloading", "DEINITIALIZED"): ("cuda_runtime", "The driver or runtime is shutting down (a CUDA call from an atexit handler or a destructor): a program bug at exit, usually harmless."),
    ("StubLibrary", "STUB_LIBRARY"): ("driver_api", "The toolkit's stubs/libcuda.so was loaded instead of the driver's libcuda.so.1: remove the stubs directory from LD_LIBRARY_PATH (it is for linking only)."),
    ("InsufficientDriver",): ("driver_api", INSUFFICIENT),
    ("CallRequiresNewerDriver", "CALL_REQUIRES_NEWER_DRIVER"): ("driver_api", NEWER),
    ("DevicesUnavailable", "DEVICE_UNAVAILABLE"): ("driver_api", EXCLUSIVE),
    ("NoDevice", "NO_DEVICE"): ("host", NO_DEVICE),
    ("InvalidDevice", "INVALID_DEVICE"): ("driver_api", BAD_ORDINAL),
    ("DeviceNotLicensed", "DEVICE_NOT_LICENSED"): ("driver_api", LICENSE),
    ("SoftwareValidityNotEstablished",): ("driver_api", "The driver could not establish software integrity (confidential computing / attestation): check the GPU's CC mode (nvidia-smi conf-compute -f) and the driver installation."),
    ("StartupFailure",): ("driver_api", INIT),
    ("InvalidKernelImage", "INVALID_IMAGE"): ("binaries", BAD_IMAGE),
    ("NoKernelImageForDevice", "NO_BINARY_FOR_GPU"): ("binaries", NO_IMAGE),
    ("ECCUncorrectable", "ECC_UNCORRECTABLE"): ("kernel_driver", "An uncorrectable ECC error (Xid 48/63/64): reset the GPU (nvidia-smi -r -i N) or reboot so the page is retired; nvidia-smi -q -d ECC,PAGE_RETIREMENT shows the counts; repeated errors mean replacing the GPU."),
    ("DeviceAlreadyInUse", "CONTEXT_ALREADY_IN_USE"): ("driver_api", EXCLUSIVE),
    ("PeerAccessUnsupported", "PEER_ACCESS_UNSUPPORTED"): ("driver_api", PEER),
    ("TooManyPeers", "TOO_MANY_PEERS"): ("driver_api", PEER),
    ("InvalidPtx", "INVALID_PTX"): ("driver_api", BAD_PTX),
    ("NvlinkUncorrectable", "NVLINK_UNCORRECTABLE"): ("kernel_driver", HW + " nvidia-smi nvlink -e shows the link errors."),
    ("JitCompilerNotFound", "JIT_COMPILER_NOT_FOUND"): ("driver_api", JIT_MISSING),
    ("JitCompilationDisabled", "JIT_COMPILATION_DISABLED"): ("driver_api", JIT_OFF),
    ("SharedObjectInitFailed", "SHARED_OBJECT_INIT_FAILED"): ("driver_api", INIT),
    ("SharedObjectSymbolNotFound", "SHARED_OBJECT_SYMBOL_NOT_FOUND"): ("libraries", "A library the program loads lacks a symbol it needs: two releases of a CUDA library are mixed (ldd shows which file was loaded); remove the other copy from LD_LIBRARY_PATH."),
    ("FileNotFound", "FILE_NOT_FOUND"): ("binaries", "A module file (cubin, fatbin, PTX) the program loads is missing: reinstall the program or fix its path."),
    ("OperatingSystem", "OPERATING_SYSTEM"): ("host", OS),
    ("IllegalAddress", "ILLEGAL_ADDRESS"): ("cuda_runtime", FAULT),
    ("LaunchTimeout", "LAUNCH_TIMEOUT"): ("kernel_driver", WATCHDOG),
    ("Assert", "ASSERT"): ("cuda_runtime", "A device-side assert fired in a kernel: a program or data bug (in PyTorch usually an index out of range, e.g. a label >= the number of classes); rerun with CUDA_LAUNCH_BLOCKING=1."),
    ("HardwareStackError", "HARDWARE_STACK_ERROR"): ("cuda_runtime", FAULT),
    ("IllegalInstruction", "ILLEGAL_INSTRUCTION"): ("cuda_runtime", FAULT),
    ("MisalignedAddress", "MISALIGNED_ADDRESS"): ("cuda_runtime", FAULT),
    ("InvalidAddressSpace", "INVALID_ADDRESS_SPACE"): ("cuda_runtime", FAULT),
    ("InvalidPc", "INVALID_PC"): ("cuda_runtime", FAULT),
    ("LaunchFailure", "LAUNCH_FAILED"): ("cuda_runtime", FAULT),
    ("NotPermitted", "NOT_PERMITTED"): ("driver_api", "The driver refused the operation in this context (a compute mode, MPS, a container without the capability, or a call not allowed in a callback): check nvidia-smi -q -d COMPUTE and the container's capabilities."),
    ("NotSupported", "NOT_SUPPORTED"): ("driver_api", NOT_SUPPORTED),
    ("SystemNotReady", "SYSTEM_NOT_READY"): ("driver_api", "On NVSwitch systems (HGX/DGX) the NVIDIA Fabric Manager is not running or not of the driver's version: install nvidia-fabricmanager-<branch> of the same version and systemctl start nvidia-fabricmanager."),
    ("SystemDriverMismatch", "SYSTEM_DRIVER_MISMATCH"): ("driver_api", "A cuda-compat libcuda.so on the loader path does not support the host's kernel driver branch: remove /usr/local/cuda/compat from LD_LIBRARY_PATH, or install the compat package that matches the driver branch."),
    ("CompatNotSupportedOnDevice", "COMPAT_NOT_SUPPORTED_ON_DEVICE"): ("driver_api", "Forward compatibility (cuda-compat) is used on a GPU it does not support (e.g. GeForce): remove the compat libcuda from LD_LIBRARY_PATH and install a driver new enough for the CUDA release."),
    ("ExternalDevice", "EXTERNAL_DEVICE"): ("kernel_driver", HW),
    ("KeyRotation", "KEY_ROTATION"): ("driver_api", "A confidential-computing key rotation failed: check the GPU's CC mode and the driver; restart the workload."),
    ("Unknown", "UNKNOWN"): ("kernel_driver", "Often cuInit when /dev/nvidia-uvm is missing (modprobe nvidia-uvm), the kernel module is not loaded or was updated without a reboot, or after a suspend/resume (reload nvidia_uvm); in containers after systemctl daemon-reload (restart the container). cudiag check names the layer."),
}
FAMILY = [  # (regex on the name, layer, remedy): the first that matches
    (r"Profiler|PROFILER", None, "A profiler API was called in the wrong state (or under a tool that disables it): a tooling or program issue, not the environment."),
    (r"Mps|MPS_", "driver_api", MPS),
    (r"Cdp|CDP_", "binaries", CDP),
    (r"UnsupportedDevSideSync|UNSUPPORTED_DEVSIDE_SYNC", "binaries", "Device-side cudaDeviceSynchronize is unsupported with this build: rebuild the program without it (CUDA 12 removed it)."),
    (r"Contained|CONTAINED", "kernel_driver", HW),
    (r"", None, BUG),
]
NVML = {
    "NVML_ERROR_NOT_SUPPORTED": ("nvml", "The query or setting is not available on this GPU or driver (many are data-center only, or need a newer driver): not a fault of the environment; skip it."),
    "NVML_ERROR_NO_PERMISSION": ("nvml", "The operation needs root (or CAP_SYS_ADMIN in a container): run it as root, or only read the value."),
    "NVML_ERROR_NOT_FOUND": ("nvml", "No GPU with that index, UUID or PCI address: compare with nvidia-smi -L (CUDA_VISIBLE_DEVICES does not renumber NVML)."),
    "NVML_ERROR_INSUFFICIENT_POWER": ("kernel_driver", "The GPU's external power cables are not (properly) connected: attach every PCIe/12VHPWR power connector and check the power supply."),
    "NVML_ERROR_DRIVER_NOT_LOADED": ("kernel_driver", "The NVIDIA kernel module is not loaded: sudo modprobe nvidia (dmesg says why it fails: Secure Boot, a module not built for this kernel, nouveau); or /dev/nvidiactl is not accessible."),
    "NVML_ERROR_TIMEOUT": ("kernel_driver", "The driver did not answer in time (a hung GPU or driver): check dmesg for Xid lines; reset the GPU or reboot."),
    "NVML_ERROR_IRQ_ISSUE": ("kernel_driver", "The kernel driver has an interrupt problem with the GPU: check dmesg; try NVreg_EnableMSI=1 or 0 (modprobe option), then reboot."),
    "NVML_ERROR_LIBRARY_NOT_FOUND": ("nvml", "libnvidia-ml.so.1 is not on the loader path: install the driver's user space (libnvidia-ml1 / nvidia-utils); in a container start it with --gpus all so the runtime injects the driver libraries."),
    "NVML_ERROR_FUNCTION_NOT_FOUND": ("nvml", "libnvidia-ml is older than the program expects: update the driver (or use a program built for this driver)."),
    "NVML_ERROR_CORRUPTED_INFOROM": ("kernel_driver", "The GPU's InfoROM is corrupted: ask the vendor for an InfoROM update (nvidia-smi -q shows the InfoROM versions) or replace the GPU."),
    "NVML_ERROR_GPU_IS_LOST": ("nvml", "The GPU fell off the bus or stopped answering (Xid 79): reboot; if it repeats reseat the GPU and check its power and cooling."),
    "NVML_ERROR_RESET_REQUIRED": ("kernel_driver", "The GPU needs a reset: nvidia-smi -r -i N with no process on it, or reboot."),
    "NVML_ERROR_OPERATING_SYSTEM": ("host", OS),
    "NVML_ERROR_LIB_RM_VERSION_MISMATCH": ("kernel_driver", "The user-space libnvidia-ml differs from the loaded kernel module (a driver upgraded without a reboot): reboot, or unload and reload the nvidia modules."),
    "NVML_ERROR_IN_USE": ("nvml", "Another process uses the GPU, so the operation (reset, mode change) cannot run: stop the processes nvidia-smi lists."),
    "NVML_ERROR_MEMORY": ("host", "NVML ran out of host memory: free memory on the host."),
    "NVML_ERROR_NO_DATA": ("nvml", "No data is available for the query yet: not an error of the environment; retry later."),
    "NVML_ERROR_ARGUMENT_VERSION_MISMATCH": ("nvml", "The program was built against a newer nvml.h than the driver's libnvidia-ml: update the driver."),
    "NVML_ERROR_NOT_READY": ("kernel_driver", "The system is not ready (on NVSwitch systems: the Fabric Manager has not started): systemctl start nvidia-fabricmanager, or retry after boot."),
    "NVML_ERROR_GPU_NOT_FOUND": ("nvml", "NVML finds no GPU: check lspci | grep -i nvidia, that the kernel module is bound to it (lspci -k), and in a container that it was started with --gpus."),
    "NVML_ERROR_UNKNOWN": ("nvml", "An unknown NVML error: in a container often device access lost after systemctl daemon-reload (restart the container); else check dmesg for Xid lines and the driver installation (cudiag check)."),
}
NVML_DEFAULT = ("nvml", "A bug in the calling program (a wrong argument, or a query this GPU or driver does not offer), not the environment: update the program or report it upstream.")
API_LAYER = {"runtime": "cuda_runtime", "driver": "driver_api", "nvml": "nvml"}


def classify(api, name):
    if api == "nvml":
        return NVML.get(name, NVML_DEFAULT)
    key = name[len("cudaError"):] if api == "runtime" else name[len("CUDA_ERROR_"):]
    for names, value in RUNTIME_DRIVER.items():
        if key in names:
            return value
    for rx, layer, remedy in FAMILY:
        if re.search(rx, key):
            return (layer or API_LAYER[api], remedy)


def header_codes():
    nvml = nvml_header()
    return {
        "runtime": ("driver-types-h", enum(cuda_inc / "driver_types.h", "enum __device_builtin__ cudaError\n", "};")),
        "driver": ("cuda-h", enum(cuda_inc / "cuda.h", "typedef enum cudaError_enum {", "} CUresult;")),
        "nvml": ("nvml-h", enum(nvml, "typedef enum nvmlReturn_enum", "} nvmlReturn_t;")),
    }


def skip(name, code):
    return code == 0 or name == "cudaErrorApiFailureBase"  # success, and a base offset, not an error


def check(doc, codes):
    rows = {(e["api"], e["name"]): e for e in doc["entries"]}
    bad = [f"{api} {name} = {code}" for api, (_, enums) in codes.items() for name, code, _ in enums
           if not skip(name, code) and not (rows.get((api, name), {}).get("layer") and rows.get((api, name), {}).get("note"))]
    total = sum(1 for _, (_, enums) in codes.items() for name, code, _ in enums if not skip(name, code))
    if bad:
        print(f"{len(bad)} of {total} header codes lack a row with layer and remedy:\n  " + "\n  ".join(bad))
        return 1
    print(f"all {total} runtime/driver/NVML codes of the headers have a row with a layer and a remedy")
    # The recorded messages must be what the libraries installed here print (those that load).
    strings = error_strings()
    stale = [f"{e['api']} {e['name']}: recorded {e.get('message', '')!r}, the library prints {message_of(strings, e['api'], e['code'], {})!r}"
             for e in doc["entries"] if e["api"] in strings and e.get("code")
             and message_of(strings, e["api"], e["code"], {}) != e.get("message", "")]
    if stale:
        print(f"{len(stale)} recorded messages differ from the libraries' string functions:\n  " + "\n  ".join(stale))
        return 1
    print(f"the messages of {', '.join(sorted(strings))} match the installed libraries' string functions")
    return 0


def error_strings():
    """What each API's own string function answers for a code (cudaGetErrorString of
    CUDA 13's libcudart, cuGetErrorString of the installed driver's libcuda,
    nvmlErrorString): the text programs print, which `explain` recognises. These
    functions need no GPU. A library that cannot be loaded here gives nothing, and
    the rows keep the messages recorded before."""
    import ctypes
    out = {}

    def load(names):
        for n in names:
            try:
                return ctypes.CDLL(n)
            except OSError:
                continue
        return None

    rt = load([str(cuda_inc.parent / "lib64" / "libcudart.so.13"), str(cuda_inc.parent / "lib" / "libcudart.so.13")])
    if rt:
        rt.cudaGetErrorString.restype = ctypes.c_char_p
        out["runtime"] = lambda code: rt.cudaGetErrorString(code)
    drv = load(["libcuda.so.1"])
    if drv:
        def driver(code):
            s = ctypes.c_char_p()
            return s.value if drv.cuGetErrorString(code, ctypes.byref(s)) == 0 else None
        out["driver"] = driver
    nv = load(["libnvidia-ml.so.1"])
    if nv:
        nv.nvmlErrorString.restype = ctypes.c_char_p
        out["nvml"] = lambda code: nv.nvmlErrorString(code)
    return out


def message_of(strings, api, code, prev):
    fn = strings.get(api)
    raw = fn(code) if fn else None
    text = raw.decode("utf-8", "replace").strip() if raw else ""
    # Placeholder answers for codes a library does not know are not messages.
    placeholder = text.lower() in ("unrecognized error code", "unknown error string", "unknown error") and code != 999
    if not text or placeholder:
        return prev.get("message", "")
    return text


def main():
    codes = header_codes()
    doc = json.loads(kb.read_text(), object_pairs_hook=collections.OrderedDict)
    if sys.argv[1:] == ["--check"]:
        return check(doc, codes)
    old = {(e["api"], e["name"]): e for e in doc["entries"]}
    rows = []
    strings = error_strings()
    for api, (source, enums) in codes.items():
        seen = set()
        for name, code, comment in enums:
            seen.add(name)
            prev = old.get((api, name), {})
            row = collections.OrderedDict(api=api, code=code, name=name,
                                          meaning=prev.get("meaning") or comment or name)
            message = message_of(strings, api, code, prev) if code else ""
            if message:
                row["message"] = message
            if code:
                layer, remedy = classify(api, name)
                row["note"], row["layer"] = remedy, layer
            if "legacy_code" in prev:  # the pre-10.1 number, recorded by hand (not in today's headers)
                row["legacy_code"] = prev["legacy_code"]
            row["source"] = prev.get("source", source)
            if "confidence" in prev:
                row["confidence"] = prev["confidence"]
            if not skip(name, code) or code == 0:
                rows.append(row)
        # Rows of older headers (codes since removed) stay, with a layer and remedy too.
        for (a, name), prev in old.items():
            if a == api and name not in seen:
                row = collections.OrderedDict(prev)
                row["note"], row["layer"] = prev.get("note") or classify(api, name)[1], prev.get("layer") or classify(api, name)[0]
                rows.append(row)
    doc["entries"] = rows + [e for e in doc["entries"] if e["api"] not in codes]
    kb.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    print(f"{len(rows)} runtime/driver/NVML rows written to {kb}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
