#!/usr/bin/env bash
# bench-memory.sh: peak RSS and wall time of the static binary when its
# inputs are huge, for docs/design-notes.md ("Bounded memory"). Not a test:
# numbers for the notes, printed next to the machine's load.
#
#   scripts/bench-memory.sh [REV]
#
# Builds the working tree and, when REV is given, that revision too (git
# archive), and runs each on three scenarios:
#   nm-1g      a fake nm printing 1 GiB of symbols for a fake HIP torch
#              (c++filt is cat; the real python3 imports the fake torch)
#   tools-1g   every tool the probe runs (hipconfig x5, modinfo x2,
#              rocm_agent_enumerator, lspci, dpkg-query, rpm, ethtool,
#              ibv_devices, rdma) prints 1 GiB on stdout and 1 GiB on
#              stderr, --no-python
#   cmake-64m  a 64 MiB build/CMakeCache.txt of allowlisted entries through
#              AORTA_PYTORCH_SRC, --no-python
# Columns: peak RSS (GNU time %M, KiB: the largest process of the tree;
# the fake tools and python3 stay far below the probe here), wall seconds,
# document size in bytes, and the number of commands the probe ran.
# Needs GNU time (apt-get install time) and python3 for nm-1g.
set -euo pipefail
rev=${1:-}
cd "$(dirname "$0")/.."
[ -x /usr/bin/time ] || { echo "bench-memory: /usr/bin/time missing (apt-get install time)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -trimpath -o "$tmp/new" .
if [ -n "$rev" ]; then
	mkdir "$tmp/src-old"
	git archive "$rev" | tar -x -C "$tmp/src-old"
	(cd "$tmp/src-old" && CGO_ENABLED=0 go build -trimpath -o "$tmp/old" .)
fi
python3=$(command -v python3 || true)
GIB=1073741824

# nm-1g: a fake ROCm torch whose libtorch_hip.so nm lists 1 GiB of symbols.
site=$tmp/nm/site
mkdir -p "$site/torch/lib" "$tmp/nm/bin"
printf '__version__ = "2.9.1+rocm7.2"\nfrom . import version\n' >"$site/torch/__init__.py"
printf 'git_version = "ff65f5bc672795c5e5033900ea0a0c4f8566c8cf"\nhip = "7.2.53211"\ncuda = None\ndebug = False\n' >"$site/torch/version.py"
: >"$site/torch/lib/libtorch_hip.so"
printf '#!/bin/sh\nyes "0000000000001234 T ck::tile::kernel<float>(int) pytorch_flash::x" | head -c %s\n' $GIB >"$tmp/nm/bin/nm"
printf '#!/bin/sh\nexec cat\n' >"$tmp/nm/bin/c++filt"
chmod +x "$tmp/nm/bin/"*

# tools-1g: every tool prints 1 GiB on stdout.
mkdir -p "$tmp/tools/bin"
for t in hipconfig modinfo rocm_agent_enumerator lspci dpkg-query rpm ethtool ibv_devices rdma; do
	printf '#!/bin/sh\n/usr/bin/head -c %s /dev/zero >&2 &\nexec /usr/bin/head -c %s /dev/zero\n' $GIB $GIB >"$tmp/tools/bin/$t"
	chmod +x "$tmp/tools/bin/$t"
done

# cmake-64m: 64 MiB of allowlisted entries with 1 KiB values.
mkdir -p "$tmp/cmake/src/third_party" "$tmp/cmake/src/build"
python3 -c '
import sys
v = "x" * 1000
with open(sys.argv[1], "w") as f:
    i = 0
    while f.tell() < 64 << 20:
        f.write("USE_ENTRY_%07d:STRING=%s\n" % (i, v)); i += 1
' "$tmp/cmake/src/build/CMakeCache.txt"

run() { # name binary env... -- args...
	local name=$1 bin=$2
	shift 2
	local env=()
	while [ "$1" != -- ]; do env+=("$1"); shift; done
	shift
	local s e
	s=$(date +%s%N)
	env -i "${env[@]}" /usr/bin/time -f %M -o "$tmp/rss" "$bin" "$tmp/out.json" "$@" 2>/dev/null || true
	e=$(date +%s%N)
	local cmds
	cmds=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["probe_provenance"]["commands"]))' "$tmp/out.json" 2>/dev/null || echo "?")
	printf '%-10s %-4s %8s KiB %7.2f s %11s bytes %4s commands\n' "$name" "$(basename "$bin")" "$(cat "$tmp/rss")" "$(echo "($e - $s) / 1000000000" | bc -l)" "$(stat -c %s "$tmp/out.json" 2>/dev/null || echo 0)" "$cmds"
}

echo "load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
for b in "$tmp/old" "$tmp/new"; do
	[ -x "$b" ] || continue
	if [ -n "$python3" ] && [ -z "${SKIP_NM:-}" ]; then
		run nm-1g "$b" PATH="$tmp/nm/bin:/usr/bin:/bin" PYTHONPATH="$site" -- --python "$python3"
	fi
	run tools-1g "$b" PATH="$tmp/tools/bin" -- --no-python
	run cmake-64m "$b" PATH=/usr/bin:/bin AORTA_PYTORCH_SRC="$tmp/cmake/src" -- --no-python
done
