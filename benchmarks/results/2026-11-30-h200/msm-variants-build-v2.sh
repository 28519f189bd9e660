#!/bin/bash
# Builds the MSM variants timed by msm-variants-v2.py (sm_90 cubins, nvcc 13.0) into .cubin/ (git-ignored),
# from the repository root: the new msm.cu with Fq products inlined or as calls (CUZK_FQ_MUL_CALL) and
# 3 or 4 blocks per SM for the bucket kernels, G2 with 2 or 3 blocks, and the old msm.cu of commit
# 59f8c32 (with its backend.py in .cubin/old/, which the script imports as the baseline).
# At the time of this run the new msm.cu had no default for CUZK_FQ_MUL_CALL (G1 inlined unless it was
# given); today calls are the default and MSM_INLINE_FQ selects the inlined build.
set -e
S=src/cuzk/backend/cuda; D=.cubin; O=$D/old-src
mkdir -p $D/old $O
git archive 59f8c32 src/cuzk/backend/cuda | tar -x -C $O
cp $O/src/cuzk/backend/cuda/backend.py $D/old/
b() { name=$1; src=$2; shift 2; nvcc -arch=sm_90 -std=c++17 -cubin -Xptxas -v -I$(dirname $src) "$@" $src -o $D/$name.cubin > $D/$name.log 2>&1; }
b g2_2 $S/msm.cu -DMSM_G2
b g2_3 $S/msm.cu -DMSM_G2 -DMSM_MIN_BLOCKS=3
b g1_call4 $S/msm.cu -DCUZK_FQ_MUL_CALL -DMSM_MIN_BLOCKS=4
b g1_call3 $S/msm.cu -DCUZK_FQ_MUL_CALL -DMSM_MIN_BLOCKS=3
b g1_inl4 $S/msm.cu -DMSM_INLINE_FQ -DMSM_MIN_BLOCKS=4
b g1_inl3 $S/msm.cu -DMSM_INLINE_FQ -DMSM_MIN_BLOCKS=3
b old_g1 $O/src/cuzk/backend/cuda/msm.cu
cp $(dirname "$0")/msm-variants-v2.py $D/exp1.py
# then on the device: OUT=... python3 .cubin/exp1.py  (PYTHONPATH=src plus the .whl wheels)
