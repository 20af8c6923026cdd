#!/usr/bin/env python3
"""Regenerates the cuBLAS, cuDNN, NCCL, cuFFT, cuRAND, cuSOLVER and cuSPARSE rows
of data/kb/error_codes.json from the enum tables of their headers (cublas_api.h
cublasStatus_t, cudnn_graph.h cudnnStatus_t, nccl.h ncclResult_t, cufft.h
cufftResult, curand.h curandStatus, cusolver_common.h cusolverStatus_t,
cusparse.h cusparseStatus_t), each row with the header as its source,
the layer it points at and a remedy. Meanings and remedies of the statuses
users meet are written here from NVIDIA's API references; the rest get their
category's.

  scripts/gen_library_status_codes.py [INCLUDE_DIR]            rewrite the rows
  scripts/gen_library_status_codes.py --check [INCLUDE_DIR]    exit 1 unless the
      rows are exactly what the headers give (a status a new release adds, or a
      row edited by hand instead of here)
INCLUDE_DIR defaults to /usr/local/cuda/include.
"""
import collections, json, re, sys, pathlib

args = [a for a in sys.argv[1:] if a != "--check"]
check_only = "--check" in sys.argv[1:]
inc = pathlib.Path(args[0] if args else "/usr/local/cuda/include")
kb = pathlib.Path(__file__).resolve().parent.parent / "data/kb/error_codes.json"

def enum(path, typedef):
    text = (inc / path).read_text()
    # The last enum body before the typedef's name (a lazy match from the first enum would span several);
    # curand.h declares "enum curandStatus {...};" and its typedef apart, so a tag name finds it too.
    closing = re.search(r"\}\s*" + typedef + r"\s*;", text)
    if closing:
        end = closing.start()
        body = text[text.rfind("{", 0, end) + 1:end]
    else:
        start = re.search(r"\benum\s+" + typedef + r"\s*\{", text).end()
        body = text[start:text.index("}", start)]
    body = re.sub(r"/\*.*?\*/|//[^\n]*", "", body, flags=re.S)
    out = []
    # Deprecated aliases (CUDNN_STATUS_ARCH_MISMATCH CUDNN_DEPRECATED_ENUM = CUDNN_STATUS_...) share
    # another status's code and are left out; a deprecated name with its own number is kept.
    # cufft.h writes its codes in hexadecimal.
    for name, value in re.findall(r"(\w+)(?:\s+CUDNN_DEPRECATED_ENUM)?\s*=\s*(0[xX][0-9a-fA-F]+|\d+)\b", body):
        out.append((name, int(value, 0)))
    return out

OOM = "GPU memory is exhausted or another process holds it (check nvidia-smi): lower the batch size, free other processes."
INIT = ("The CUDA context could not be created: no usable GPU (driver missing or mismatched, CUDA_VISIBLE_DEVICES), "
        "GPU memory already exhausted, or a library built for another CUDA major than the runtime. cudiag check names the layer.")
ARCH = "The library has no kernels for this GPU's architecture: use a build of the library (and framework) for this compute capability."
BUG = "Usually a bug in the calling program or framework (a wrong argument), not the environment: update the framework, report it upstream."
KNOWN = {
 "CUBLAS_STATUS_NOT_INITIALIZED": ("The cuBLAS library was not initialized: cublasCreate failed.", INIT, "libraries"),
 "CUBLAS_STATUS_ALLOC_FAILED": ("Resource allocation failed inside cuBLAS.", OOM, "cuda_runtime"),
 "CUBLAS_STATUS_INVALID_VALUE": ("An unsupported value or parameter was passed to the function.",
   "Inside a framework (PyTorch, Paddle) most often its build and the cuBLAS it loads disagree: a torch build for another CUDA than the one expected, or another cuBLAS found first on LD_LIBRARY_PATH than the one bundled with the wheel: reinstall the framework's build for your CUDA (and unset LD_LIBRARY_PATH entries pointing at another CUDA). Otherwise a wrong argument in the calling program: update the framework or report it upstream.", "frameworks"),
 "CUBLAS_STATUS_ARCH_MISMATCH": ("The function requires a feature absent from the device architecture.", ARCH, "binaries"),
 "CUBLAS_STATUS_MAPPING_ERROR": ("An access to GPU memory space failed (often a texture bind).", BUG, "libraries"),
 "CUBLAS_STATUS_EXECUTION_FAILED": ("The GPU program failed to execute: a kernel launch failure.",
   "A kernel of cuBLAS failed to launch or run. cuBLAS comes with the CUDA toolkit (or inside the framework's wheel), so the CUDA install is what usually changes: a toolkit without kernels for this GPU (CUDA 9/10.0 on Turing or Ampere: a CUDA new enough for the GPU (10.0+ for Turing, 11.0+ for Ampere, 11.8+ for Ada and Hopper, 12.8+ for Blackwell), or the toolkit's cuBLAS patches), a broken or mixed CUDA install (reinstall one toolkit and remove the other from LD_LIBRARY_PATH), or a framework build for another CUDA (its wheel for the GPU's CUDA); also an earlier asynchronous error. Run with CUDA_LAUNCH_BLOCKING=1; cudiag check compares the libraries with the GPU.", "cuda_runtime"),
 "CUBLAS_STATUS_INTERNAL_ERROR": ("An internal cuBLAS operation failed (often a memory copy or allocation).",
   "Most often a framework build that does not fit the GPU (torch 1.8's default CUDA 10.2 wheel on an Ampere GPU, fixed by its cu111 build) or cuBLAS and CUDA runtime of different releases mixed in one process: install the framework's build for a CUDA that supports the GPU. Also GPU memory exhausted or held by another process (check nvidia-smi).", "frameworks"),
 "CUBLAS_STATUS_NOT_SUPPORTED": ("The functionality requested is not supported.",
   "The operation or data type is not supported on this GPU by the cuBLAS in use, most often a framework build older than the GPU (an A800/H100 with a torch build for an older CUDA): install the framework's build for a CUDA that supports the GPU, or use another data type.", "frameworks"),
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
 "CUDNN_STATUS_INTERNAL_ERROR": ("An internal cuDNN operation failed.",
   "GPU memory exhausted or held by another process (TensorFlow 1.x takes it all up front: config.gpu_options.allow_growth = True), or a framework build whose cuDNN does not support the GPU (an Ampere GPU with a build for CUDA 10): install the framework's build for a CUDA that supports the GPU.", "frameworks"),
 "CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED": ("cuDNN could not allocate GPU memory.", OOM, "cuda_runtime"),
 "CUDNN_STATUS_BAD_PARAM": ("An incorrect value or parameter was passed.", BUG, "libraries"),
 "CUDNN_STATUS_NOT_SUPPORTED": ("The functionality requested is not presently supported by cuDNN.", "The operation, data type or layout is not supported for this GPU by this cuDNN: update cuDNN or disable cuDNN for it (torch.backends.cudnn.enabled=False to test).", "libraries"),
 "ncclUnhandledCudaError": ("A call to a CUDA function failed inside NCCL.", "A CUDA error inside NCCL: run with NCCL_DEBUG=INFO; check the driver and that every rank sees its GPU (CUDA_VISIBLE_DEVICES).", "libraries"),
 "ncclSystemError": ("A system call or an external library call failed, or a device error.", "In Docker give NCCL shared memory (--ipc=host or --shm-size); multi-node: set NCCL_SOCKET_IFNAME; run with NCCL_DEBUG=INFO to see the failing call.", "libraries"),
 "ncclInternalError": ("An internal NCCL check failed (an NCCL bug or memory corruption).", "Update NCCL (pip install -U nvidia-nccl-cu12) and run with NCCL_DEBUG=INFO.", "libraries"),
 "ncclInvalidArgument": ("An invalid value was passed to NCCL.", BUG, "libraries"),
 "ncclInvalidUsage": ("NCCL was called incorrectly (for example two ranks on one GPU).", "Often two processes bound to the same GPU: give each rank its own device (torch.cuda.set_device(local_rank)); run with NCCL_DEBUG=WARN.", "libraries"),
 "ncclRemoteError": ("A call failed possibly because of a network error or a remote process exiting prematurely.", "Another rank died or the network between nodes failed: look at the other ranks' logs first.", "libraries"),
 "CUFFT_ALLOC_FAILED": ("cuFFT failed to allocate GPU or CPU memory.", OOM, "cuda_runtime"),
 "CUFFT_INTERNAL_ERROR": ("A driver or internal cuFFT library error.",
   "cuFFT ships machine code per GPU architecture with no JIT fallback, so a cuFFT older than the GPU (a framework built with CUDA 11.7 or older on an Ada or Hopper GPU, CUDA 12.7 or older on Blackwell) fails here at the first transform: install a framework build for a CUDA that knows the GPU. Otherwise out of GPU memory while planning: smaller transforms or batches.", "libraries"),
 "CUFFT_EXEC_FAILED": ("cuFFT failed to execute an FFT on the GPU.", "A kernel of cuFFT failed to launch or run: no kernel for this GPU (a cuFFT older than the GPU), or an earlier asynchronous error. Run with CUDA_LAUNCH_BLOCKING=1; cudiag check compares the libraries with the GPU.", "libraries"),
 "CUFFT_SETUP_FAILED": ("The cuFFT library failed to initialize.", INIT, "libraries"),
 "CUFFT_INVALID_DEVICE": ("The plan was created for another GPU than the current one.", BUG, "libraries"),
 "CUFFT_NOT_SUPPORTED": ("The operation is not supported for the given parameters.", "This transform (size, type, callback) is not supported by this cuFFT release on this GPU: update cuFFT or change the transform.", "libraries"),
 "CUFFT_MISSING_DEPENDENCY": ("cuFFT could not find a library it depends on.", "cuFFT needs libnvrtc and libnvJitLink of its own CUDA major for LTO callbacks and some sizes: install them (nvidia-cuda-nvrtc-cu12, nvidia-nvjitlink-cu12) and put them on the loader path.", "libraries"),
 "CUFFT_NVRTC_FAILURE": ("An NVRTC failure was encountered inside cuFFT.", "The NVRTC cuFFT loaded failed: use an NVRTC of the same CUDA release as cuFFT (a mixed pip and system CUDA is the usual cause).", "libraries"),
 "CUFFT_NVJITLINK_FAILURE": ("An nvJitLink failure was encountered inside cuFFT.", "The nvJitLink cuFFT loaded is older than cuFFT: install the nvJitLink of the same or a newer CUDA release (pip install -U nvidia-nvjitlink-cu12) ahead of any other on the loader path.", "libraries"),
 "CUFFT_NVSHMEM_FAILURE": ("An NVSHMEM failure was encountered inside cuFFTMp.", "NVSHMEM could not start: check the NVSHMEM installation and its bootstrap (MPI) for cuFFTMp.", "libraries"),
 "CURAND_STATUS_VERSION_MISMATCH": ("The header file and the linked cuRAND library versions do not match.", "Two cuRAND installations are mixed: rebuild against the cuRAND the program loads, or make the loader path reach the one it was built with.", "libraries"),
 "CURAND_STATUS_ALLOCATION_FAILED": ("cuRAND failed to allocate memory.", OOM, "cuda_runtime"),
 "CURAND_STATUS_DOUBLE_PRECISION_REQUIRED": ("The GPU does not have the double precision the MRG32k3a generator requires.", "This GPU lacks double precision: use another generator (XORWOW, Philox) or another GPU.", "binaries"),
 "CURAND_STATUS_LAUNCH_FAILURE": ("A cuRAND kernel failed to launch.", "A kernel of cuRAND failed to launch: no kernel for this GPU (a library or framework built for other architectures) or an earlier asynchronous error. Run with CUDA_LAUNCH_BLOCKING=1; cudiag check compares the libraries with the GPU.", "libraries"),
 "CURAND_STATUS_PREEXISTING_FAILURE": ("An earlier CUDA error was pending when cuRAND was called.", "An earlier asynchronous CUDA error surfaced here: run with CUDA_LAUNCH_BLOCKING=1 to find the call that failed first.", "libraries"),
 "CURAND_STATUS_INITIALIZATION_FAILED": ("Initialization of CUDA failed inside cuRAND.", INIT, "libraries"),
 "CURAND_STATUS_ARCH_MISMATCH": ("The GPU does not support a feature cuRAND needs.", ARCH, "binaries"),
 "CURAND_STATUS_INTERNAL_ERROR": ("An internal cuRAND error.", OOM + " A cuRAND and CUDA runtime of different releases mixed in one process causes it too.", "libraries"),
 "CUSOLVER_STATUS_NOT_INITIALIZED": ("The cuSOLVER library was not initialized: cusolverDnCreate failed.", INIT, "libraries"),
 "CUSOLVER_STATUS_ALLOC_FAILED": ("Resource allocation failed inside cuSOLVER.", OOM, "cuda_runtime"),
 "CUSOLVER_STATUS_ARCH_MISMATCH": ("The function requires a feature absent from the device architecture.", ARCH, "binaries"),
 "CUSOLVER_STATUS_EXECUTION_FAILED": ("The GPU program failed to execute.", "A kernel of cuSOLVER failed to launch or run: no kernel for this GPU, an earlier asynchronous error, or a cuSOLVER of another CUDA release than the runtime. Run with CUDA_LAUNCH_BLOCKING=1; cudiag check compares the libraries with the GPU.", "libraries"),
 "CUSOLVER_STATUS_INTERNAL_ERROR": ("An internal cuSOLVER operation failed.", OOM + " When cusolverDnCreate itself fails in a fresh process, a cuSOLVER of another CUDA release than the runtime (a framework's bundled one beside a system one, or a cuSOLVER older than the GPU) is the usual cause: update the framework.", "libraries"),
 "CUSOLVER_STATUS_NOT_SUPPORTED": ("The functionality requested is not supported.", "Not supported by this cuSOLVER release for this GPU or type: update cuSOLVER or change the operation.", "libraries"),
 "CUSOLVER_STATUS_INVALID_LICENSE": ("The functionality requested requires a license.", "A licensing issue: not an environment problem.", "libraries"),
 "CUSPARSE_STATUS_NOT_INITIALIZED": ("The cuSPARSE library was not initialized: cusparseCreate failed.", INIT, "libraries"),
 "CUSPARSE_STATUS_ALLOC_FAILED": ("Resource allocation failed inside cuSPARSE.", OOM, "cuda_runtime"),
 "CUSPARSE_STATUS_ARCH_MISMATCH": ("The function requires a feature absent from the device architecture.", ARCH, "binaries"),
 "CUSPARSE_STATUS_EXECUTION_FAILED": ("The GPU program failed to execute.", "A kernel of cuSPARSE failed to launch or run: no kernel for this GPU, an earlier asynchronous error, or a cuSPARSE of another CUDA release than the runtime. Run with CUDA_LAUNCH_BLOCKING=1; cudiag check compares the libraries with the GPU.", "libraries"),
 "CUSPARSE_STATUS_INTERNAL_ERROR": ("An internal cuSPARSE operation failed.", OOM + " A cuSPARSE and CUDA runtime of different releases mixed in one process causes it too.", "libraries"),
 "CUSPARSE_STATUS_NOT_SUPPORTED": ("The functionality requested is not supported.", "Not supported by this cuSPARSE release for this GPU or data type: update cuSPARSE or change the operation (some routines were removed in CUDA 11 and 12).", "libraries"),
 "CUSPARSE_STATUS_INSUFFICIENT_RESOURCES": ("Resources for the computation were not sufficient.", OOM, "cuda_runtime"),
 "ncclInProgress": ("An NCCL operation on the communicator is still being processed (non-blocking communicator).", "Not an error by itself: poll ncclCommGetAsyncError.", "libraries"),
}
CATEGORY = [("CUDNN_STATUS_BAD_PARAM", "An incorrect parameter was passed to cuDNN.", BUG),
            ("CUDNN_STATUS_NOT_SUPPORTED", "The requested configuration is not supported by this cuDNN.", "Not supported by this cuDNN release for this GPU: update cuDNN, or change the operation."),
            ("CUDNN_STATUS_INTERNAL_ERROR", "An internal cuDNN operation failed.", OOM),
            ("CUDNN_STATUS_EXECUTION_FAILED", "A library cuDNN calls failed while executing.", "A dependency of cuDNN (the driver, cuBLAS, the runtime) failed: check those layers with cudiag check."),
            ("CUDNN_STATUS_", "A cuDNN status.", "See the cuDNN API reference for this status."),
            # The rest of cuFFT's, cuRAND's, cuSOLVER's and cuSPARSE's statuses name wrong arguments
            # (a plan, a type, a size, a zero pivot of a singular matrix): the calling program's.
            ("CUFFT_", "A cuFFT status naming a wrong argument (plan, type, size, alignment, workspace).", BUG),
            ("CURAND_STATUS_", "A cuRAND status naming a wrong use of a generator (type, range, length).", BUG),
            ("CUSOLVER_STATUS_", "A cuSOLVER status naming a wrong argument or an input it cannot solve (a zero pivot: a singular matrix).", BUG),
            ("CUSPARSE_STATUS_", "A cuSPARSE status naming a wrong argument or matrix type (a zero pivot: a singular matrix).", BUG)]

SOURCES = {"cublas": ("cublas-api-h", "https://docs.nvidia.com/cuda/cublas/index.html#cublasstatus-t", "cublasStatus_t, cublas_api.h"),
           "cudnn": ("cudnn-graph-h", "https://docs.nvidia.com/deeplearning/cudnn/latest/api/cudnn-graph-library.html#cudnnstatus-t", "cudnnStatus_t, cudnn_graph.h (cuDNN 9 numbering)"),
           "nccl": ("nccl-h", "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/types.html#ncclresult-t", "ncclResult_t, nccl.h"),
           "cufft": ("cufft-h", "https://docs.nvidia.com/cuda/cufft/index.html#cufftresult", "cufftResult, cufft.h"),
           "curand": ("curand-h", "https://docs.nvidia.com/cuda/curand/group__HOST.html", "curandStatus, curand.h"),
           "cusolver": ("cusolver-common-h", "https://docs.nvidia.com/cuda/cusolver/index.html#cusolverstatus-t", "cusolverStatus_t, cusolver_common.h"),
           "cusparse": ("cusparse-h", "https://docs.nvidia.com/cuda/cusparse/index.html#cusparsestatus-t", "cusparseStatus_t, cusparse.h")}

rows = []
HEADERS = [("cublas", "cublas_api.h", "cublasStatus_t"), ("cudnn", "cudnn_graph.h", "cudnnStatus_t"),
           ("nccl", "nccl.h", "ncclResult_t"), ("cufft", "cufft.h", "cufftResult"),
           ("curand", "curand.h", "curandStatus"), ("cusolver", "cusolver_common.h", "cusolverStatus_t"),
           ("cusparse", "cusparse.h", "cusparseStatus_t")]
for api, path, typedef in HEADERS:
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
if check_only:
    have = [e for e in doc["entries"] if e["api"] in SOURCES]
    if json.loads(json.dumps(have)) != json.loads(json.dumps(rows)):
        names = {e["name"] for e in have} ^ {r["name"] for r in rows}
        print(f"{kb}: the library status rows differ from {inc}'s headers "
              f"({len(have)} rows, the headers give {len(rows)}; {', '.join(sorted(names)[:8]) or 'edited rows'}): "
              "run scripts/gen_library_status_codes.py", file=sys.stderr)
        sys.exit(1)
    print(f"{len(rows)} library status rows match {inc}'s headers")
    sys.exit(0)
for key, url, section in SOURCES.values():
    doc["sources"][key] = {"url": url, "section": section}
doc["entries"] = [e for e in doc["entries"] if e["api"] not in SOURCES] + rows
kb.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
print(f"{len(rows)} library status rows written to {kb}")
