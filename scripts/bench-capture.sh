#!/bin/sh
# bench-capture.sh: what does `aorta-probe capture` cost over a plain run,
# and how large is the archive of a node with a full ROCm install?
#
# Generates scripts/gentree's synthetic ROCm tree (~2.25 GiB, 5,600 kernel
# files + four large libraries), warms the page cache, then alternates a
# plain probe and a capture (ROCM_PATH=TREE/opt/rocm, --no-python) RUNS
# times each and prints the minimum and median wall times, the archive
# size, and whether the replay (--root ARCHIVE) equals the live document
# but for captured_at and the timings (docs/capture.md).
# Usage: scripts/bench-capture.sh [RUNS] [MiB] [files]
set -eu
RUNS=${1:-5}
MIB=${2:-2300}
FILES=${3:-5600}
REPO=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/aorta-bench-capture.XXXXXX")
trap 'rm -rf "$W"' EXIT INT TERM
(cd "$REPO" && CGO_ENABLED=0 go build -o "$W/aorta-probe" . && go build -o "$W/gentree" ./scripts/gentree)
"$W/gentree" -mib "$MIB" -files "$FILES" "$W/tree" >/dev/null
echo "tree: $(find "$W/tree" -type f | wc -l) files, $(($(du -sb "$W/tree" | cut -f1) / 1048576)) MiB"
find "$W/tree" -type f -print0 | xargs -0 cat >/dev/null
export ROCM_PATH="$W/tree/opt/rocm"
ms() { s=$(date +%s%N); "$@" >/dev/null 2>&1; echo $((($(date +%s%N) - s) / 1000000)); }
: >"$W/plain"; : >"$W/capture"
i=0
while [ $i -lt "$RUNS" ]; do
	ms "$W/aorta-probe" "$W/p.json" --no-python >>"$W/plain"
	ms "$W/aorta-probe" capture "$W/a.txtar" "$W/c.json" --no-python >>"$W/capture"
	i=$((i + 1))
done
stat() { sort -n "$1" | awk '{v[NR]=$1} END {printf "min %d ms, median %d ms", v[1], v[int((NR+1)/2)]}'; }
echo "plain:   $(stat "$W/plain")"
echo "capture: $(stat "$W/capture")"
echo "archive: $(wc -c <"$W/a.txtar") bytes"
"$W/aorta-probe" --root "$W/a.txtar" "$W/r.json" --no-python
strip() { grep -v '"captured_at"\|"started_at"\|"duration_us"' "$1"; }
if strip "$W/c.json" | cmp -s - "$(strip "$W/r.json" >"$W/r.s"; echo "$W/r.s")"; then
	echo "replay: equal to the live document"
else
	echo "replay: DIFFERS"; exit 1
fi
