// SHA-256 compressions' witness bits on the device (cuzk.backend.cuda.witness.sha_aux): one
// thread per lane of the job table, the lane's whole compression (sha_witness.cuh). Compiled by
// CuPy (NVRTC); sha_witness_host.cpp builds the same core for the host.
#include "sha_witness.cuh"

extern "C" __global__ void __launch_bounds__(128) sha_witness(
    const shaw::Job* __restrict__ jobs, const u32* __restrict__ job_of, const u32* __restrict__ vals,
    unsigned char* __restrict__ slots, u64 limit, u32* __restrict__ outw, u64 lanes) {
    for (u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x; t < lanes; t += (u64)gridDim.x * blockDim.x)
        shaw::sha_witness_lane(jobs, job_of, vals, slots, limit, outw, t);
}

// The computed bits into a compact assignment's packed bit values (synthesis_sha: prover files,
// cuzk.backend.cuda.computed.sha_bits_on_device): one thread per 32 aux values (a word of the is-a-bit
// mask); aux j's value is bit cumw[w] + popc(mask[w] below j) of bits32. Ones only (the file's
// zeros are there already); atomicOr since a word's bits may span two words of bits32.
extern "C" __global__ void sha_fill_bits(const unsigned char* __restrict__ slots, u64 end,
                                         const u32* __restrict__ mask, const u32* __restrict__ cumw,
                                         u32* __restrict__ bits32) {
    const u64 words = (end + 31) / 32;
    for (u64 w = (u64)blockIdx.x * blockDim.x + threadIdx.x; w < words; w += (u64)gridDim.x * blockDim.x) {
        const u32 m = mask[w];
        u32 rank = cumw[w];
        for (u32 r = 0; r < 32; ++r) {
            if (!((m >> r) & 1)) continue;
            const u64 j = w * 32 + r;
            if (j < end && slots[j]) atomicOr(&bits32[rank >> 5], 1u << (rank & 31));
            ++rank;
        }
    }
}
