// A whole program with one kernel: the smallest thing nvcc embeds a fatbin in.
__global__ void scale(float* x) { x[threadIdx.x] *= 2.0f; }

int main() {
  float* p = nullptr;
  cudaMalloc(&p, 32 * sizeof(float));
  scale<<<1, 32>>>(p);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
