#!/usr/bin/env bash
# The GPU figures of issue 23 (and the 16-core scaling of issue 18), on a lent NVIDIA machine
# that reaches no package index: the wheels it lacks travel in .whl/ (README "On an NVIDIA
# GPU"), numba-cuda is the machine's own. Logs and each 2**32 sweep's summary go to $OUT.
# The wheels its Python 3.12 image lacked (2026-11-28): bitstring, tibs, python-flint, dask,
# distributed, tornado, tblib, zict, locket, partd (pip download --no-deps --only-binary=:all:
# --python-version 3.12 --platform manylinux2014_x86_64 ..., this environment's versions).
# A copy of the tree that must stay under 64 MiB leaves reports/ (about 130 MB) behind.
set -uo pipefail
export PYTHONUNBUFFERED=1 NUMBA_ENABLE_CUDASIM=0
OUT=${OUT:-/tmp/sfpu-sim-gpu}
mkdir -p "$OUT"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 1
# numba-cuda 0.30.4 with numpy 2.5 (np.row_stack): sfpu_sim.compiled.gpu adapts it itself.
export PYTHONPATH="/tmp/site:$PWD"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv,noheader
python3 -c "import sys, numba, numpy; from numba import cuda; print(sys.version.split()[0], \
'numba', numba.__version__, 'numpy', numpy.__version__, 'cuda', cuda.is_available())"
python3 -m pip show numba-cuda 2>/dev/null | head -2
nproc
timeout "${GPU_SECONDS:-360}" python3 -m sfpu_sim.bench gpu --chunks "${GPU_CHUNKS:-1}" \
    --swept --exhaustive --out "$OUT" 2>&1 | tee "$OUT/gpu.log"
timeout "${PIPELINE_SECONDS:-100}" python3 -m sfpu_sim.bench pipeline --repeat 1 2>&1 \
    | tee "$OUT/pipeline.log"
# The CPU pipeline on every core: local threads against a Dask LocalCluster (issue 18).
SFPU_SIM_ENGINE=compiled timeout "${DASK_SECONDS:-90}" python3 -m sfpu_sim.bench fp32 \
    --stride 64 --repeat 1 --scheduler local dask 2>&1 | tee "$OUT/fp32.log"
