// -rdc translation unit 2: the device function k_rdc_a.cu calls.
__device__ float triple(float v) { return v * 3.0f; }
