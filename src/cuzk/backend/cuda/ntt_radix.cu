// Radix-4/8 variants of ntt.cu's NTT pass (ntt.cuh's ntt_pass_radix), kept for timings in their own
// module: compiled (NVRTC, about 15 s with nvcc) only when ntt.py's NTT_VARIANT names one.
#include "ntt.cuh"

NTT_PASS_KERNEL(ntt_pass_r8, (256), ntt_pass_radix<3>)
NTT_PASS_KERNEL(ntt_pass_r8c, (256, 2), ntt_pass_radix<3>)   // at most 128 registers: two blocks of 256 threads per SM
NTT_PASS_KERNEL(ntt_pass_r4, (256), ntt_pass_radix<2>)

