// BLS12-381 scalar field Fr: r = 0x73eda753...00000001 (255 bits), 8 x 32-bit limbs,
// Montgomery form x * 2^256 mod r. Memory layout: 32 bytes per element, the same bytes as the
// host's (n, 4) uint64 little-endian limbs. Constants generated from cuzk.field.FR.
#pragma once
#include "ff.cuh"

// Fr's M0 is 2^32 - 1. As an immediate, ptxas turns fp_mul's m = t * M0 into -t and then splits
// every m * p[j] product into IMAD.X + IMAD.HI.U32.X instead of one IMAD.WIDE.U32.X: 177 multiply
// instructions a product instead of 137, and ntt_pass 1,768 instructions instead of 1,536 (nvcc
// 13.0, sm_90, cuobjdump -sass). Read from constant memory, M0 is opaque to ptxas and every product
// stays one IMAD.WIDE (one IMAD more for m): the NTT 3-5 % faster, the Poseidon witness kernel 7 %
// (benchmarks/results/2026-12-05-h100-stop45, call 1).
#ifndef CUZK_HOST_EMULATION
__constant__ u32 fr_m0_opaque = 0xffffffffu;
#define CUZK_FR_M0 fr_m0_opaque
#else
#define CUZK_FR_M0 0xffffffffu
#endif

struct FrParams {
    static const int N = 8;
    static const u32 M0 = 0xffffffffu;
    __device__ __forceinline__ static u32 m0() { return CUZK_FR_M0; }
    __device__ __forceinline__ static u32 p(int i) { switch (i) { case 0: return 0x00000001u; case 1: return 0xffffffffu; case 2: return 0xfffe5bfeu; case 3: return 0x53bda402u; case 4: return 0x09a1d805u; case 5: return 0x3339d808u; case 6: return 0x299d7d48u; case 7: return 0x73eda753u; default: return 0u; } }
    __device__ __forceinline__ static u32 r2(int i) { switch (i) { case 0: return 0xf3f29c6du; case 1: return 0xc999e990u; case 2: return 0x87925c23u; case 3: return 0x2b6cedcbu; case 4: return 0x7254398fu; case 5: return 0x05d31496u; case 6: return 0x9f59ff11u; case 7: return 0x0748d9d9u; default: return 0u; } }
    __device__ __forceinline__ static u32 one(int i) { switch (i) { case 0: return 0xfffffffeu; case 1: return 0x00000001u; case 2: return 0x00034802u; case 3: return 0x5884b7fau; case 4: return 0xecbc4ff5u; case 5: return 0x998c4fefu; case 6: return 0xacc5056fu; case 7: return 0x1824b159u; default: return 0u; } }
};
typedef fp<FrParams> fr_t;

// (r - 1) / 2, for the MSM's scalar negation trick (canonical, not Montgomery)
__device__ __forceinline__ u32 fr_half_limb(int i) { switch (i) { case 0: return 0x80000000u; case 1: return 0x7fffffffu; case 2: return 0x7fff2dffu; case 3: return 0xa9ded201u; case 4: return 0x04d0ec02u; case 5: return 0x199cec04u; case 6: return 0x94cebea4u; case 7: return 0x39f6d3a9u; default: return 0u; } }
