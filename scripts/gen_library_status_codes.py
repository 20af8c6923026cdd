#!/usr/bin/env python3
"""Regenerates the cuBLAS, cuDNN and NCCL rows of data/kb/error_codes.json from
the enum tables of their headers (cublas_api.h cublasStatus_t, cudnn_graph.h
cudnnStatus_t, nccl.h ncclResult_t), each row with the header as its source,
the layer it points at and a remedy. Meanings and remedies of the statuses
users meet are written here from NVIDIA's API references; the rest get their
category's. Usage: scripts/gen_library_status_codes.py [/usr/local/cuda/include]
"""
import collections, json, re, sys, pathlib

inc = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "/usr/local/cuda/include")
kb = pathlib.Path(__file__).resolve().parent.parent / "data/kb/error_codes.json"

def enum(path, typedef):
    text = (inc / path).read_text()
    # The last enum body before the typedef's name (a lazy match from the first enum would span several).
    end = re.search(r"\}\s*" + typedef + r"\s*;", text).start()
    body = text[text.rfind("{", 0, end) + 1:end]
    body = re.sub(r"/\*.*?\*/|//[^\n]*", "", body, flags=re.S)
    out = []
    # Deprecated aliases (CUDNN_STATUS_ARCH_MISMATCH CUDNN_DEPRECATED_ENUM = CUDNN_STATUS_...) share
    # another status's code and are left out; a deprecated name with its own number is kept.
    for name, value in re.findall(r"(\w+)(?:\s+CUDNN_DEPRECATED_ENUM)?\s*=\s*(\d+)\b", body):
        out.append((name, int(value)))
    return out

OOM = "GPU memory is exhausted or another process holds it (check nvidia-smi): lower the batch size, free other processes."
INIT = ("The CUDA context could not be created: no usable GPU (driver missing or mismatched, CUDA_VISIBLE_DEVICES), "
        "GPU memory already exhausted, or a library built for another CUDA major than the runtime. cudiag check names the layer.")
ARCH = "The library has no kernels for this GPU's architecture: use a build of the library (and framework) for this compute capability."
BUG = "Usually a bug in the calling program or framework (a wrong argument), not the environment: update the framework, report it upstream."
KNOWN = {
 "CUBLAS_STATUS_NOT_INITIALIZED": ("The cuBLAS library was not initialized: cublasCreate failed.", INIT, "libraries"),
 "CUBLAS_STATUS_ALLOC_FAILED": ("Resource allocation failed inside cuBLAS.", OOM, "cuda_runtime"),
 "CUBLAS_STATUS_INVALID_VALUE": ("An unsupported value or parameter was passed to the function.", BUG, "libraries"),
 "CUBLAS_STATUS_ARCH_MISMATCH": ("The function requires a feature absent from the device architecture.", ARCH, "binaries"),
 "CUBLAS_STATUS_MAPPING_ERROR": ("An access to GPU memory space failed (often a texture bind).", BUG, "libraries"),
 "CUBLAS_STATUS_EXECUTION_FAILED": ("The GPU program failed to execute: a kernel launch failure.",
   "A kernel of cuBLAS failed to launch or run: no kernel for this GPU (a library or framework built for other architectures), an earlier asynchronous error, or a cuBLAS of another CUDA release than the runtime. Run with CUDA_LAUNCH_BLOCKING=1; cudiag check compares the libraries with the GPU.", "libraries"),
 "CUBLAS_STATUS_INTERNAL_ERROR": ("An internal cuBLAS operation failed (often a memory copy or allocation).", OOM + " A cuBLAS and CUDA runtime of different releases mixed in one process causes it too.", "libraries"),
 "CUBLAS_STATUS_NOT_SUPPORTED": ("The functionality requested is not supported.", "The operation or data type is not supported on this GPU or by this cuBLAS release: update cuBLAS or use another type.", "libraries"),
 "CUBLAS_STATUS_LICENSE_ERROR": ("The functionality requested requires a license.", "A licensing issue: not an environment problem.", "libraries"),
 "CUDNN_STATUS_NOT_INITIALIZED": ("The cuDNN library was not initialized properly: cudnnCreate failed.", INIT, "libraries"),
 "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH": ("cuDNN sub-libraries of different versions were loaded together.", "Two cuDNN installations are mixed: remove the other one from LD_LIBRARY_PATH so all libcudnn_* come from one release.", "libraries"),
 "CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED": ("A cuDNN sub-library could not be loaded.", "A libcudnn_* file (or its dependency such as libnvrtc or libcublasLt) is not on the loader path: install the complete cuDNN and put its lib directory on LD_LIBRARY_PATH.", "libraries"),
 "CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER": ("The driver is too old for this cuDNN.", "Install a driver that supports the CUDA version cuDNN was built for (cudiag kb driver-for X.Y).", "driver_api"),
 "CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART": ("The CUDA runtime does not match what cuDNN needs.", "Use the cuDNN build for this CUDA major (nvidia-cudnn-cu11 vs -cu12 vs -cu13).", "libraries"),
 "CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH": ("cuDNN has no support for this GPU architecture.", ARCH, "binaries"),
 "CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING": ("A runtime library cuDNN needs (cuBLAS, NVRTC) is missing.", "Install the CUDA libraries cuDNN depends on (libcublasLt, libnvrtc) for its CUDA major and put them on the loader path.", "libraries"),
 "CUDNN_STATUS_ARCH_MISMATCH": ("cuDNN has no support for this GPU architecture (cuDNN 8).", ARCH, "binaries"),
 "CUDNN_STATUS_EXECUTION_FAILED": ("The GPU program failed to execute.", "A cuDNN kernel failed: often out of memory, no kernel for this GPU, or an earlier asynchronous error; run with CUDA_LAUNCH_BLOCKING=1.", "libraries"),
 "CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER": ("A CUDA driver call made by cuDNN failed.", "The driver refused a call: check the driver version against cuDNN's CUDA (cudiag check).", "driver_api"),
 "CUDNN_STATUS_INTERNAL_ERROR": ("An internal cuDNN operation failed.", OOM, "libraries"),
 "CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED": ("cuDNN could not allocate GPU memory.", OOM, "cuda_runtime"),
 "CUDNN_STATUS_BAD_PARAM": ("An incorrect value or parameter was passed.", BUG, "libraries"),
 "CUDNN_STATUS_NOT_SUPPORTED": ("The functionality requested is not presently supported by cuDNN.", "The operation, data type or layout is not supported for this GPU by this cuDNN: update cuDNN or disable cuDNN for it (torch.backends.cudnn.enabled=False to test).", "libraries"),
 "ncclUnhandledCudaError": ("A call to a CUDA function failed inside NCCL.", "A CUDA error inside NCCL: run with NCCL_DEBUG=INFO; check the driver and that every rank sees its GPU (CUDA_VISIBLE_DEVICES).", "libraries"),
 "ncclSystemError": ("A system call or an external library call failed, or a device error.", "In Docker give NCCL shared memory (--ipc=host or --shm-size); multi-node: set NCCL_SOCKET_IFNAME; run with NCCL_DEBUG=INFO to see the failing call.", "libraries"),
 "ncclInternalError": ("An internal NCCL check failed (an NCCL bug or memory corruption).", "Update NCCL (pip install -U nvidia-nccl-cu12) and run with NCCL_DEBUG=INFO.", "libraries"),
 "ncclInvalidArgument": ("An invalid value was passed to NCCL.", BUG, "libraries"),
 "ncclInvalidUsage": ("NCCL was called incorrectly (for example two ranks on one GPU).", "Often two processes bound to the same GPU: give each rank its own device (torch.cuda.set_device(local_rank)); run with NCCL_DEBUG=WARN.", "libraries"),
 "ncclRemoteError": ("A call failed possibly because of a network error or a remote process exiting prematurely.", "Another rank died or the network between nodes failed: look at the other ranks' logs first.", "libraries"),
 "ncclInProgress": ("An NCCL operation on the communicator is still being processed (non-blocking communicator).", "Not an error by itself: poll ncclCommGetAsyncError.", "libraries"),
}
CATEGORY = [("CUDNN_STATUS_BAD_PARAM", "An incorrect parameter was passed to cuDNN.", BUG),
            ("CUDNN_STATUS_NOT_SUPPORTED", "The requested configuration is not supported by this cuDNN.", "Not supported by this cuDNN release for this GPU: update cuDNN, or change the operation."),
            ("CUDNN_STATUS_INTERNAL_ERROR", "An internal cuDNN operation failed.", OOM),
            ("CUDNN_STATUS_EXECUTION_FAILED", "A library cuDNN calls failed while executing.", "A dependency of cuDNN (the driver, cuBLAS, the runtime) failed: check those layers with cudiag check."),
            ("CUDNN_STATUS_", "A cuDNN status.", "See the cuDNN API reference for this status.")]

SOURCES = {"cublas": ("cublas-api-h", "https://docs.nvidia.com/cuda/cublas/index.html#cublasstatus-t", "cublasStatus_t, cublas_api.h"),
           "cudnn": ("cudnn-graph-h", "https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-graph-library.html#cudnnstatus-t", "cudnnStatus_t, cudnn_graph.h (cuDNN 9 numbering)"),
           "nccl": ("nccl-h", "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/types.html#ncclresult-t", "ncclResult_t, nccl.h")}

rows = []
for api, path, typedef in [("cublas", "cublas_api.h", "cublasStatus_t"), ("cudnn", "cudnn_graph.h", "cudnnStatus_t"), ("nccl", "nccl.h", "ncclResult_t")]:
    for name, code in enum(path, typedef):
        if name.endswith("NumResults") or code == 0:
            continue
        if name in KNOWN:
            meaning, note, layer = KNOWN[name]
        else:
            meaning, note = next((m, n) for prefix, m, n in CATEGORY if name.startswith(prefix))
            layer = "libraries"
        rows.append(collections.OrderedDict(api=api, code=code, name=name, meaning=meaning, note=note, layer=layer, source=SOURCES[api][0]))

doc = json.loads(kb.read_text(), object_pairs_hook=collections.OrderedDict)
for key, url, section in SOURCES.values():
    doc["sources"][key] = {"url": url, "section": section}
doc["entries"] = [e for e in doc["entries"] if e["api"] not in SOURCES] + rows
kb.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
print(f"{len(rows)} library status rows written to {kb}")
