#!/usr/bin/env bash
# bench-detached.sh: what the detached GPU reader (docs/hardware.md, "A
# read that never returns") costs a run of the binary on this machine:
# this tree's binary against BASE's (a commit without it), rows
# interleaved:
#   default       aorta-probe OUT            (python3 on PATH)
#   no-python     aorta-probe OUT --no-python
#   root          aorta-probe OUT --no-python --root $ROOT   (only with ROOT=DIR,
#                 a GPU tree: the reader starts only where /sys/class/kfd is)
# each for "new" (this tree) and "base". Per row: the median and p90 wall
# time (date +%s%N around the bare run) and, where perf is installed, the
# median CPU time of the whole process tree (perf stat -e task-clock, a
# second interleaved pass), the reader's included. A GPU node's own
# figures (64 partitions, under --root) are BenchmarkNoPythonGPUs'
# (probe/gpus_test.go). The load is printed before and after.
#
#   [BASE=REV] [ROOT=DIR] scripts/bench-detached.sh [ROUNDS]   (default 41;
#   BASE default 29357d7, main before the reader)
set -euo pipefail
rounds=${1:-41}
base=${BASE:-29357d7}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/new" .
mkdir "$tmp/src"
git archive "$base" | tar -x -C "$tmp/src"
(cd "$tmp/src" && CGO_ENABLED=0 go build -o "$tmp/base" .)
rows=(new:default base:default new:no-python base:no-python)
[ -n "${ROOT:-}" ] && rows+=(new:root base:root)
run() { # bin, kind
	case $2 in
	default) "$tmp/$1" "$tmp/out.json" ;;
	no-python) "$tmp/$1" "$tmp/out.json" --no-python ;;
	root) "$tmp/$1" "$tmp/out.json" --no-python --root "$ROOT" ;;
	esac
}
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A wall cpu
for ((r = 0; r <= rounds; r++)); do
	for ((i = 0; i < ${#rows[@]}; i++)); do
		row=${rows[(i + r) % ${#rows[@]}]}
		t0=$(date +%s%N)
		run "${row%%:*}" "${row#*:}" >/dev/null 2>&1
		t1=$(date +%s%N)
		((r > 0)) && wall[$row]+="$(((t1 - t0) / 1000)) "
	done
done
if command -v perf >/dev/null && perf stat -e task-clock true >/dev/null 2>&1; then
	for ((r = 0; r <= rounds; r++)); do
		for ((i = 0; i < ${#rows[@]}; i++)); do
			row=${rows[(i + r) % ${#rows[@]}]}
			ms=$(perf stat -x, -e task-clock -- bash -c "$(declare -f run); tmp=$tmp; ROOT=${ROOT:-}; run ${row%%:*} ${row#*:}" 2>&1 >/dev/null | awk -F, '/task-clock/{print $1}' | tail -1)
			((r > 0)) && cpu[$row]+="$ms "
		done
	done
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
stat() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {printf "%s %s", a[int((NR+1)/2)], a[int(NR*0.9+0.5)]}'; }
printf '%-16s %12s %12s %14s\n' row "median µs" "p90 µs" "cpu ms (med)"
for row in "${rows[@]}"; do
	read -r med p90 <<<"$(echo "${wall[$row]}" | stat)"
	c=-
	[ -n "${cpu[$row]:-}" ] && read -r c _ <<<"$(echo "${cpu[$row]}" | stat)"
	printf '%-16s %12s %12s %14s\n' "$row" "$med" "$p90" "$c"
done
