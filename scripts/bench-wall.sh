#!/usr/bin/env bash
# bench-wall.sh: wall time and peak memory of the static binary writing a
# file, side by side with the interpreter it runs, plus the binary size.
# Not a test: numbers for the notes, always printed next to the machine's
# load.
#
#   [PYTHON=/path/to/python3] [REAL_TORCH_PYTHON=/path/to/python3] \
#     scripts/bench-wall.sh [RUNS]    (default 30)
#
# Rows (after one warm-up run of each, RUNS rounds; each round runs every
# row once, in order, so that a change of load hits all rows alike):
#   python -c pass      PY -c pass: the interpreter's own start-up
#   helper alone        PY - <FILE (through sh), FILE being a coding line
#                       and probe/python_helper.stdin as the probe feeds
#                       it: the Python helper's own time, without the probe
#   Go floor            scripts/helperfloor OUT PY probe/python_helper.stdin:
#                       a Go program that only runs the helper as the probe
#                       does (memfd stdin) and writes its stdout atomically:
#                       the floor of any Go capture's overhead here
#   default             aorta-probe OUT   (whatever python3 is first on PATH;
#                       a pyenv shim adds its own start-up)
#   --python PY         aorta-probe OUT --python PY
#   probe alone         aorta-probe OUT --python REPLAY: a /bin/sh script
#                       that prints the helper stream PY printed, so the
#                       peak RSS is the probe's own, not the interpreter's
#   fake torch: import  PY -c 'import torch' with a fake ROCm torch (and
#                       triton, fbgemm_gpu, aiter, torchrec) on PYTHONPATH
#   fake torch: probe   aorta-probe OUT --python PY with that PYTHONPATH
#   no-python           aorta-probe OUT --no-python
#   empty-root          aorta-probe OUT --root EMPTY   (no tools run)
#   real torch: import  RT -c 'import torch'      } only with
#   real torch: probe   aorta-probe OUT --python RT } REAL_TORCH_PYTHON=RT
#   rocm tools: seq     hipconfig --version, then rocm_agent_enumerator,  } only when
#                       one after the other (one sh -c)                   } both are on
#   rocm tools: probe   aorta-probe OUT --no-python with them on PATH     } PATH
#   no-rocm PATH: pass, no-rocm PATH: --python PY: python -c pass and the
#                       probe with PY on a PATH without the ROCm tools (a
#                       directory of links to /usr/bin and /bin minus hip*,
#                       roc*, amd*), so the interpreter's overhead is not
#                       hidden behind hipconfig
#                       (only when the tools are on PATH; the torch probe
#                       rows then run on that PATH too)
# For each: the median and p90 wall time (date +%s%N around GNU time, so
# it includes GNU time's own fork/exec, ~1 ms) and the median peak RSS
# (GNU time %M, KiB: the largest process of the tree, so with an
# interpreter it is the interpreter's unless the probe's is larger). Then
# the ratios of the medians against `python -c pass` (and against the
# fake torch import). PY is $PYTHON, else the interpreter python3 on PATH
# resolves to (sys.executable: no shim). The fake torch prints at import
# and, where g++ is installed, has a libtorch_hip.so with CK symbols. The
# pytorch_version each probe row with a torch found is printed last, to
# show the interpreter saw it. Needs GNU time (apt-get install time) and
# bc. (This script replaces scripts/bench_python.sh: its --no-python and
# fake-torch series are the rows no-python and fake torch: probe.)
set -euo pipefail
runs=${1:-30}
cd "$(dirname "$0")/.."
[ -x /usr/bin/time ] || { echo "bench-wall: /usr/bin/time missing (apt-get install time)" >&2; exit 1; }
py=${PYTHON:-$(python3 -c 'import sys; print(sys.executable)')}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -trimpath -o "$tmp/aorta-probe" .
CGO_ENABLED=0 go build -trimpath -ldflags=-s -o "$tmp/aorta-probe-stripped" .
CGO_ENABLED=0 go build -trimpath -o "$tmp/helperfloor" ./scripts/helperfloor
mkdir "$tmp/empty"

# The helper stream PY prints, replayed by a shell script.
helper=probe/python_helper.stdin
[ -f "$helper" ] || helper=probe/python_helper.py # an older tree
# As the probe feeds it: a file with a coding line (docs/python.md, "Speed").
{ printf '# -*- coding: latin-1 -*-\n'; cat "$helper"; } >"$tmp/helper.stdin"
helper=$tmp/helper.stdin
"$py" - <"$helper" >"$tmp/stream.json"
printf '#!/bin/sh\nexec cat %s\n' "$tmp/stream.json" >"$tmp/replay"
chmod +x "$tmp/replay"

# A fake ROCm torch with its companions.
site=$tmp/site
mkdir -p "$site/torch/lib" "$site/torch/backends" "$site/triton" "$site/fbgemm_gpu" "$site/aiter" "$site/torchrec"
printf 'print("torch prints at import")\n__version__ = "2.9.1+rocm7.2.1.gitff65f5bc"\nfrom . import version, cuda, backends, __config__\n' >"$site/torch/__init__.py"
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

names=("python -c pass" "helper alone" "Go floor" "default" "--python PY" "probe alone" "fake torch: import" "fake torch: probe" "no-python" "empty-root")
rt=${REAL_TORCH_PYTHON:-}
if [ -n "$rt" ]; then
	"$rt" -c 'import torch' >/dev/null 2>&1 || { echo "bench-wall: REAL_TORCH_PYTHON=$rt cannot import torch" >&2; exit 1; }
	names+=("real torch: import" "real torch: probe")
fi
# Debian's ROCm userspace (docs/rocm-roots.md#every-install-rocm_installs):
# the probe with the real tools against the tools' own cost.
rocm=""
torchpath=() # the torch probe rows' PATH: the no-rocm one where the tools are
if command -v hipconfig >/dev/null && command -v rocm_agent_enumerator >/dev/null; then
	rocm=yes
	names+=("rocm tools: seq" "rocm tools: probe" "no-rocm PATH: pass" "no-rocm PATH: --python PY")
	mkdir "$tmp/norocm"
	for d in /usr/bin /bin; do
		for f in "$d"/*; do
			case ${f##*/} in hip* | roc* | amd*) continue ;; esac
			[ -e "$tmp/norocm/${f##*/}" ] || ln -s "$f" "$tmp/norocm/${f##*/}"
		done
	done
	torchpath=("PATH=$tmp/norocm")
fi
# row I: run configuration I (by its name) once with GNU time, print
# "WALL_US RSS_KIB".
row() {
	local cmd=() env=()
	case ${names[$1]} in
	"python -c pass") cmd=("$py" -c pass) ;;
	"helper alone") cmd=(sh -c 'exec "$0" - <"$1"' "$py" "$helper") ;;
	"Go floor") cmd=("$tmp/helperfloor" "$tmp/floor.json" "$py" probe/python_helper.stdin) ;;
	"default") cmd=("$tmp/aorta-probe" "$tmp/env.json") ;;
	"--python PY") cmd=("$tmp/aorta-probe" "$tmp/env.json" --python "$py") ;;
	"probe alone") cmd=("$tmp/aorta-probe" "$tmp/env.json" --python "$tmp/replay") ;;
	"fake torch: import") env=("PYTHONPATH=$site") cmd=("$py" -c 'import torch') ;;
	"fake torch: probe") env=("PYTHONPATH=$site" "${torchpath[@]}") cmd=("$tmp/aorta-probe" "$tmp/fake.json" --python "$py") ;;
	"no-python") cmd=("$tmp/aorta-probe" "$tmp/env.json" --no-python) ;;
	"empty-root") cmd=("$tmp/aorta-probe" "$tmp/env.json" --root "$tmp/empty") ;;
	"real torch: import") cmd=("$rt" -c 'import torch') ;;
	"real torch: probe") env=("${torchpath[@]}") cmd=("$tmp/aorta-probe" "$tmp/real.json" --python "$rt") ;;
	# the enumerator fails without a GPU: the shell's status is 0 anyway
	"rocm tools: seq") cmd=(sh -c 'hipconfig --version; rocm_agent_enumerator; exit 0') ;;
	"rocm tools: probe") cmd=("$tmp/aorta-probe" "$tmp/rocm.json" --no-python) ;;
	"no-rocm PATH: pass") env=("PATH=$tmp/norocm") cmd=("$py" -c pass) ;;
	"no-rocm PATH: --python PY") env=("PATH=$tmp/norocm") cmd=("$tmp/aorta-probe" "$tmp/norocm.json" --python "$py") ;;
	esac
	local s e
	s=$(date +%s%N)
	env "${env[@]}" /usr/bin/time -f %M -o "$tmp/rss" "${cmd[@]}" >/dev/null 2>&1
	e=$(date +%s%N)
	echo "$(((e - s) / 1000)) $(cat "$tmp/rss")"
}

# median and p90 by the nearest-rank method over the sorted values.
rank() { sort -n | awk -v p="$1" '{a[NR]=$1} END {r=int((p*NR+99)/100); if (r<1) r=1; print a[r]}'; }

echo "machine:    $(nproc) CPUs, $(uname -r), $(go version | cut -d' ' -f3)"
echo "load:       $(uptime)"
echo "python:     $py ($("$py" --version 2>&1)); python3 on PATH: $(command -v python3 || echo none)"
[ -z "$rt" ] || echo "real torch: $rt ($("$rt" --version 2>&1))"
echo "runs:       $runs rounds, rows interleaved"
for i in "${!names[@]}"; do row "$i" >/dev/null; done # warm the page cache
for _ in $(seq "$runs"); do
	for i in "${!names[@]}"; do row "$i" >>"$tmp/row$i"; done
done
declare -A med
for i in "${!names[@]}"; do
	med[$i]=$(cut -d' ' -f1 "$tmp/row$i" | rank 50)
	printf '%-19s wall median %6.1f ms  p90 %6.1f ms   peak RSS median %6d KiB\n' "${names[$i]}" \
		"$(echo "${med[$i]} / 1000" | bc -l)" "$(echo "$(cut -d' ' -f1 "$tmp/row$i" | rank 90) / 1000" | bc -l)" \
		"$(cut -d' ' -f2 "$tmp/row$i" | rank 50)"
done
idx() { local i; for i in "${!names[@]}"; do [ "${names[$i]}" != "$1" ] || echo "$i"; done; }
ratio() {
	local a b
	a=$(idx "$2") b=$(idx "$3")
	printf '%-50s %5.2fx  (+%.1f ms)\n' "$1" "$(echo "${med[$a]} / ${med[$b]}" | bc -l)" "$(echo "(${med[$a]} - ${med[$b]}) / 1000" | bc -l)"
}
ratio "--python PY / python -c pass:" "--python PY" "python -c pass"
ratio "helper alone / python -c pass:" "helper alone" "python -c pass"
ratio "Go floor / python -c pass:" "Go floor" "python -c pass"
ratio "default / python -c pass:" "default" "python -c pass"
ratio "fake torch: probe / fake torch: import:" "fake torch: probe" "fake torch: import"
[ -z "$rt" ] || ratio "real torch: probe / real torch: import:" "real torch: probe" "real torch: import"
if [ -n "$rocm" ]; then
	ratio "rocm tools: probe / rocm tools: seq:" "rocm tools: probe" "rocm tools: seq"
	ratio "no-rocm PATH: --python PY / no-rocm PATH: pass:" "no-rocm PATH: --python PY" "no-rocm PATH: pass"
fi
echo "fake torch: $(grep -o '"pytorch_version": "[^"]*"' "$tmp/fake.json"); libtorch_hip.so with CK symbols: $([ -f "$site/torch/lib/libtorch_hip.so" ] && echo yes || echo "no (no g++)")"
[ -z "$rt" ] || echo "real torch: $rt: $(grep -o '"pytorch_version": "[^"]*"' "$tmp/real.json")"
echo "load after: $(uptime)"
echo "binary:     $(stat -c %s "$tmp/aorta-probe") bytes unstripped, $(stat -c %s "$tmp/aorta-probe-stripped") bytes stripped (-ldflags=-s)"
