// Poseidon hashes' witness values on the device (cuzk.backend.cuda.poseidon.legacy_limbs): one
// thread per hash, its whole walk (poseidon_witness.cuh). Compiled by CuPy (NVRTC).
#include "poseidon_witness.cuh"

extern "C" __global__ void __launch_bounds__(128) poseidon_legacy(
    const uint4* __restrict__ consts, int t, int rf, int rp, const uint4* __restrict__ in, u64 kc,
    uint4* __restrict__ out, u64 nops) {
    for (u64 h = (u64)blockIdx.x * blockDim.x + threadIdx.x; h < kc; h += (u64)gridDim.x * blockDim.x)
        posw::hash_at(consts, t, rf, rp, in, h, out, nops);
}
