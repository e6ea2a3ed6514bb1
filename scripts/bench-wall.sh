#!/usr/bin/env bash
# bench-wall.sh: wall time and peak memory of the static binary writing a
# file, in three configurations, plus the binary size. Not a test: numbers
# for the notes, always printed next to the machine's load.
#
#   scripts/bench-wall.sh [RUNS]    (default 30)
#
# Configurations (each RUNS runs, after one warm-up run):
#   default     aorta-probe OUT                 (the Python bridge included)
#   no-python   aorta-probe OUT --no-python
#   empty-root  aorta-probe OUT --root EMPTY    (an empty directory: no tools run)
# For each: the median and p90 wall time (date +%s%N around GNU time, so
# it includes GNU time's own fork/exec, ~1 ms) and the median peak RSS
# (GNU time %M, KiB: the largest process of the tree, so in the default
# configuration it is the Python interpreter's, not the probe's). The
# default configuration runs whatever python3 is first on PATH (a pyenv
# shim adds its own start-up). Needs GNU time: apt-get install time.
set -euo pipefail
runs=${1:-30}
cd "$(dirname "$0")/.."
[ -x /usr/bin/time ] || { echo "bench-wall: /usr/bin/time missing (apt-get install time)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -trimpath -o "$tmp/aorta-probe" .
CGO_ENABLED=0 go build -trimpath -ldflags=-s -o "$tmp/aorta-probe-stripped" .
mkdir "$tmp/empty"

# median and p90 by the nearest-rank method over the sorted values.
rank() { printf '%s\n' "${@:2}" | sort -n | awk -v p="$1" '{a[NR]=$1} END {r=int((p*NR+99)/100); if (r<1) r=1; print a[r]}'; }

bench() {
	local name=$1
	shift
	local walls=() rss=() s e
	"$tmp/aorta-probe" "$tmp/warm.json" "$@" 2>/dev/null # warm the page cache
	for _ in $(seq "$runs"); do
		s=$(date +%s%N)
		/usr/bin/time -f %M -o "$tmp/rss" "$tmp/aorta-probe" "$tmp/env.json" "$@" 2>/dev/null
		e=$(date +%s%N)
		walls+=($(( (e - s) / 1000 )))
		rss+=("$(cat "$tmp/rss")")
	done
	printf '%-11s wall median %6.1f ms  p90 %6.1f ms   peak RSS median %6d KiB\n' "$name" \
		"$(echo "$(rank 50 "${walls[@]}") / 1000" | bc -l)" "$(echo "$(rank 90 "${walls[@]}") / 1000" | bc -l)" \
		"$(rank 50 "${rss[@]}")"
}

echo "machine:    $(nproc) CPUs, $(uname -r), $(go version | cut -d' ' -f3)"
echo "load:       $(uptime)"
echo "python3:    $(command -v python3 || echo none)"
echo "runs:       $runs per configuration"
bench default
bench no-python --no-python
bench empty-root --root "$tmp/empty"
echo "load after: $(uptime)"
echo "binary:     $(stat -c %s "$tmp/aorta-probe") bytes unstripped, $(stat -c %s "$tmp/aorta-probe-stripped") bytes stripped (-ldflags=-s)"
