// SHA-256 compressions' witness bits on the device (cuzk.backend.cuda.witness.sha_aux): one
// thread per lane of the job table, the lane's whole compression (sha_witness.cuh). Compiled by
// CuPy (NVRTC); sha_witness_host.cpp builds the same core for the host.
#include "sha_witness.cuh"

extern "C" __global__ void __launch_bounds__(128) sha_witness(
    const shaw::Job* __restrict__ jobs, const u32* __restrict__ job_of, const u32* __restrict__ vals,
    unsigned char* __restrict__ slots, u32* __restrict__ outw, u64 lanes) {
    for (u64 t = (u64)blockIdx.x * blockDim.x + threadIdx.x; t < lanes; t += (u64)gridDim.x * blockDim.x)
        shaw::sha_witness_lane(jobs, job_of, vals, slots, outw, t);
}
