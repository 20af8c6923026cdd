#include "kernel_test/framework_script.h"

namespace cudiag::kernel_test {

const std::vector<std::string>& framework_names() {
  static const std::vector<std::string> names = {"torch", "jax", "cupy", "tensorflow"};
  return names;
}

// Each framework's test multiplies two seeded 256x256 float32 matrices on the
// GPU and compares with float64 NumPy on the CPU. TF32 is turned off where a
// framework would use it by default (JAX, TensorFlow), since TF32's 10-bit
// mantissa would fail the tolerance on a healthy GPU.
const std::string& framework_script() {
  static const std::string script = R"PY(
import importlib.util, json, sys, time, traceback
name = sys.argv[1]
module = {"torch": "torch", "jax": "jax", "cupy": "cupy", "tensorflow": "tensorflow"}[name]
out = {"framework": name, "python_version": sys.version.split()[0]}
def emit(code=0):
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
    sys.exit(code)
if importlib.util.find_spec(module) is None:
    out["installed"] = False
    emit()
out["installed"] = True
N = 256
def inputs(np):
    rng = np.random.default_rng(20240601)
    return rng.standard_normal((N, N)).astype(np.float32), rng.standard_normal((N, N)).astype(np.float32)
def compare(np, got, a, b):
    want = a.astype(np.float64) @ b.astype(np.float64)
    err = float(np.max(np.abs(np.asarray(got, dtype=np.float64) - want)))
    out["max_abs_error"] = err
    if not err <= 1e-3 * max(1.0, float(np.max(np.abs(want)))):
        raise AssertionError("GPU matmul differs from the CPU result: max abs error %g" % err)
def run_torch():
    import torch, numpy as np
    out["version"] = torch.__version__
    out["cuda_build"] = torch.version.cuda
    if not torch.cuda.is_available():
        torch.cuda.init()  # raises with the reason, which is what the user needs to see
        raise RuntimeError("torch.cuda.is_available() is False")
    out["device"] = torch.cuda.get_device_name(0)
    a, b = inputs(np)
    got = (torch.from_numpy(a).cuda() @ torch.from_numpy(b).cuda()).cpu().numpy()
    compare(np, got, a, b)
def run_jax():
    import jax, numpy as np
    out["version"] = jax.__version__
    dev = jax.devices("gpu")[0]
    out["device"] = str(dev)
    a, b = inputs(np)
    x, y = jax.device_put(a, dev), jax.device_put(b, dev)
    got = jax.numpy.matmul(x, y, precision=jax.lax.Precision.HIGHEST)
    compare(np, np.asarray(got), a, b)
def run_cupy():
    import cupy, numpy as np
    out["version"] = cupy.__version__
    out["device_count"] = cupy.cuda.runtime.getDeviceCount()
    a, b = inputs(np)
    got = (cupy.asarray(a) @ cupy.asarray(b)).get()
    compare(np, got, a, b)
def run_tensorflow():
    import tensorflow as tf, numpy as np
    out["version"] = tf.__version__
    gpus = tf.config.list_physical_devices("GPU")
    if not gpus:
        raise RuntimeError("tf.config.list_physical_devices('GPU') is empty: TensorFlow sees no GPU")
    tf.config.experimental.enable_tensor_float_32_execution(False)
    a, b = inputs(np)
    with tf.device("/GPU:0"):
        got = tf.matmul(tf.constant(a), tf.constant(b))
    out["device"] = got.device
    compare(np, got.numpy(), a, b)
start = time.perf_counter()
try:
    {"torch": run_torch, "jax": run_jax, "cupy": run_cupy, "tensorflow": run_tensorflow}[name]()
    out["ok"] = True
except BaseException as e:
    out["ok"] = False
    out["error"] = "".join(traceback.format_exception_only(type(e), e)).strip()
    out["traceback"] = traceback.format_exc()
out["ms"] = (time.perf_counter() - start) * 1000.0
emit()
)PY";
  return script;
}

}  // namespace cudiag::kernel_test
