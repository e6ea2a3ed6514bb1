#!/usr/bin/env bash
# bench-run.sh: wall time and peak memory of a full probe run on this
# machine, next to the binary size. Not a test: numbers for the notes.
#
#   scripts/bench-run.sh [RUNS]    (default 30)
#
# Prints the median and min/max wall time over RUNS runs of the static
# binary writing a file, the median peak RSS (GNU time), and the size.
set -euo pipefail
runs=${1:-30}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -trimpath -ldflags=-s -o "$tmp/aorta-probe" .
"$tmp/aorta-probe" "$tmp/warm.json" # warm the page cache

walls=() rss=()
for _ in $(seq "$runs"); do
	s=$(date +%s%N)
	/usr/bin/time -f %M -o "$tmp/rss" "$tmp/aorta-probe" "$tmp/env.json" 2>/dev/null
	e=$(date +%s%N)
	walls+=($(( (e - s) / 1000 )))
	rss+=("$(cat "$tmp/rss")")
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
minmax() { printf '%s\n' "$@" | sort -n | sed -n '1p;$p' | paste -sd/; }
echo "runs:            $runs"
echo "wall median:     $(median "${walls[@]}") us (min/max $(minmax "${walls[@]}") us; includes GNU time's own fork/exec)"
echo "peak RSS median: $(median "${rss[@]}") KiB"
echo "binary size:     $(stat -c %s "$tmp/aorta-probe") bytes (stripped: -ldflags=-s)"
echo "probe-reported:  $(grep -o '"duration_us": [0-9]*' "$tmp/env.json" | tail -1)"
