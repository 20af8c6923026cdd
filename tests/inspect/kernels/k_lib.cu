// A shared-library translation unit (stands in for a Python extension module).
__global__ void add_one(float* x) { x[threadIdx.x] += 1.0f; }

extern "C" void launch_add_one(float* p) { add_one<<<1, 32>>>(p); }
