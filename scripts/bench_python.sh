#!/bin/sh
# Measures the probe's wall time with and without the Python bridge: the
# static binary run N times (default 10) with --no-python and with
# --python naming an interpreter that sees a fake ROCm torch (plus triton,
# fbgemm_gpu, aiter, torchrec), printing the median of each in ms.
# REAL_TORCH_PYTHON=/usr/bin/python3 adds a third series with that
# interpreter and whatever real torch it imports.
# Usage: [PYTHON=/path/to/python3] [REAL_TORCH_PYTHON=...] scripts/bench_python.sh [N]
set -eu
n=${1:-10}
repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
site=$tmp/site
mkdir -p "$site/torch/lib" "$site/torch/backends" "$site/triton" "$site/fbgemm_gpu" "$site/aiter" "$site/torchrec"
cat >"$site/torch/__init__.py" <<'PY'
import os, sys
print("torch prints at import")
__version__ = "2.9.1+rocm7.2.1.gitff65f5bc"
from . import version, cuda, backends, __config__
PY
printf "git_version = 'ff65f5bc672795c5e5033900ea0a0c4f8566c8cf'\nhip = '7.2.53211'\ncuda = None\ndebug = False\n" >"$site/torch/version.py"
printf "def get_arch_list():\n    return ['gfx942']\n" >"$site/torch/cuda.py"
printf "def show():\n    return 'PyTorch built with:\\\\n  - Build settings: BUILD_TYPE=Release, CXX_FLAGS= -DUSE_FBGEMM -DUSE_ROCM_CK_SDPA, USE_ROCM=ON, \\\\n'\n" >"$site/torch/__config__.py"
printf "from . import cuda\n" >"$site/torch/backends/__init__.py"
printf "def flash_sdp_enabled():\n    return True\ndef mem_efficient_sdp_enabled():\n    return True\ndef math_sdp_enabled():\n    return True\ndef cudnn_sdp_enabled():\n    return False\n" >"$site/torch/backends/cuda.py"
printf "aotriton" >"$site/torch/lib/libaotriton_v2.so.0.11.1"
printf "__version__ = '3.5.1+rocm7.2.1.gita272dfa8'\n" >"$site/triton/__init__.py"
printf "__version__ = '1.4.0'\n" >"$site/fbgemm_gpu/__init__.py"
printf "__version__ = '0.1.11.dev32+g9a469a608'\n" >"$site/aiter/__init__.py"
printf "__version__ = '1.4.0'\n" >"$site/torchrec/version.py"
: >"$site/torchrec/__init__.py"
if command -v g++ >/dev/null; then
  printf 'namespace ck { void k() {} }\nnamespace pytorch_flash { void mha_fwd_ck() {} }\n' >"$tmp/x.cpp"
  g++ -shared -fPIC -o "$site/torch/lib/libtorch_hip.so" "$tmp/x.cpp"
fi
printf '#!/bin/sh\nPYTHONPATH=%s exec %s "$@"\n' "$site" "${PYTHON:-$(command -v python3)}" >"$tmp/py"
chmod +x "$tmp/py"
(cd "$repo" && CGO_ENABLED=0 go build -o "$tmp/aorta-probe" .)

median() { sort -n | awk '{a[NR]=$1} END {m=int((NR+1)/2); if (NR%2) print a[m]; else print (a[m]+a[m+1])/2}'; }
run() {
  i=0
  while [ "$i" -lt "$n" ]; do
    t0=$(date +%s%N)
    "$tmp/aorta-probe" "$tmp/env.json" "$@" >/dev/null 2>&1
    t1=$(date +%s%N)
    echo $(( (t1 - t0) / 1000000 ))
    i=$((i + 1))
  done | median
}
py=${PYTHON:-$(command -v python3)}
echo "runs: $n; python: $("$py" --version 2>&1) at $py"
echo "median wall ms, --no-python:               $(run --no-python)"
echo "median wall ms, --python (fake ROCm torch): $(run --python "$tmp/py")"
grep -o '"pytorch_version": "[^"]*"' "$tmp/env.json"
if [ -n "${REAL_TORCH_PYTHON:-}" ]; then
  echo "median wall ms, --python $REAL_TORCH_PYTHON (real torch): $(run --python "$REAL_TORCH_PYTHON")"
  grep -o '"pytorch_version": "[^"]*"' "$tmp/env.json"
fi
