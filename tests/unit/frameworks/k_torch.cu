// A kernel whose only purpose is to give the test libtorch_cuda.so a fatbin
// with a known architecture list, as PyTorch's TORCH_CUDA_ARCH_LIST would.
__global__ void cudiag_frameworks_kernel(float* x) { x[threadIdx.x] *= 2.0f; }
void cudiag_frameworks_launch(float* x) { cudiag_frameworks_kernel<<<1, 32>>>(x); }
