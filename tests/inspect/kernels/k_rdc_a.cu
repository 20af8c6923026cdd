// -rdc translation unit 1: calls a device function defined in another TU,
// which only separate compilation allows.
extern __device__ float triple(float v);

__global__ void apply(float* x) { x[threadIdx.x] = triple(x[threadIdx.x]); }

int main() {
  float* p = nullptr;
  cudaMalloc(&p, 32 * sizeof(float));
  apply<<<1, 32>>>(p);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
