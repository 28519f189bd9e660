// BLS12-381 G1 (y^2 = x^3 + 4 over Fq): the generic XYZZ formulas of xyzz.cuh over fq_t.
// Memory: affine 96 bytes (x then y, 6 uint4), XYZZ 192 bytes (12 uint4), all coordinates
// Montgomery; (0, 0) affine / ZZ = 0 is the point at infinity.
#pragma once
#include "fq.cuh"
#include "xyzz.cuh"

typedef aff_t<fq_t> g1_aff;
typedef xyzz_t<fq_t> g1_xyzz;
