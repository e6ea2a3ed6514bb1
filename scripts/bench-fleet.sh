#!/usr/bin/env bash
# bench-fleet.sh: wall time and peak memory of `aorta-probe diff --fleet`
# over a synthetic fleet of real-shaped documents (scripts/genfleet over
# testdata/golden/rocm-classic-7.2.json: every per-node field of its own,
# as real nodes write them: captured_at, started_at, each duration_us, the
# namespace ids and inode hashes, probe_namespace, a boot fingerprint per
# 8 documents; two planted outliers). Not a test: numbers for the notes,
# printed next to the machine's core count and load.
#
#   scripts/bench-fleet.sh [N [SIZE [RUNS]]]   (default 10000 0 3)
#
# SIZE 0 keeps the golden document's size (about 40 KB, as the probe
# writes a document); a larger SIZE grows it with an --extended hipBLASLt
# file list (400000: 3.8 GiB for 10,000). The fleet is generated into a
# temporary directory and removed at the end; with AORTA_BENCH_FLEET_DIR
# set it is generated there once and kept, and a later run with the same N
# and SIZE reuses it. AORTA_BENCH_FLEET_ARGS=1 gives the documents as
# N arguments instead of the directory; AORTA_BENCH_VALIDATE=1 also times
# `aorta-probe validate` over every document (docs/triage.md, "Fleet").
#
# Prints each run's wall time (GNU time %e), CPU time (%U + %S) and peak
# RSS (%M, KiB), then the medians, and checks that exactly the two planted
# outliers are reported. The goal (docs/triage.md, "Fleet"): for 10,000
# real-shaped documents at most 15 s wall and 64 MiB peak RSS on 2 cores.
# Needs GNU time: apt-get install time.
set -euo pipefail
n=${1:-10000}
size=${2:-0}
runs=${3:-3}
cd "$(dirname "$0")/.."
[ -x /usr/bin/time ] || { echo "bench-fleet: /usr/bin/time missing (apt-get install time)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -trimpath -o "$tmp/aorta-probe" .
fleet=${AORTA_BENCH_FLEET_DIR:-$tmp/fleet}
stamp="$fleet/.genfleet-$n-$size"
if [ ! -e "$stamp" ]; then
	if [ -n "$(ls -A "$fleet" 2>/dev/null)" ]; then
		echo "bench-fleet: $fleet is not empty and holds no $n x $size fleet; give an empty or new directory" >&2
		exit 1
	fi
	go run ./scripts/genfleet -n "$n" -size "$size" testdata/golden/rocm-classic-7.2.json "$fleet"
	touch "$stamp"
fi
bytes=$(du -sb "$fleet" | cut -f1)
echo "fleet: $n documents, $((bytes / n)) bytes each on average, $((bytes / 1048576)) MiB in all"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
find "$fleet" -name "*.json" -exec cat {} + >/dev/null # warm the page cache
walls=() rss=() cpus=()
for i in $(seq "$runs"); do
	rc=0
	if [ "${AORTA_BENCH_FLEET_ARGS:-}" = 1 ]; then
		(cd "$fleet" && /usr/bin/time -f '%e %M %U %S' -o "$tmp/time" "$tmp/aorta-probe" diff --fleet ./*.json) >"$tmp/out" || rc=$?
	else
		/usr/bin/time -f '%e %M %U %S' -o "$tmp/time" "$tmp/aorta-probe" diff --fleet "$fleet" >"$tmp/out" || rc=$?
	fi
	[ "$rc" = 1 ] || { echo "bench-fleet: exit $rc, want 1 (two outliers)" >&2; cat "$tmp/out" >&2; exit 1; }
	grep -q '^fleet: '"$n"' documents, 2 outliers$' "$tmp/out" || { echo "bench-fleet: unexpected report" >&2; head "$tmp/out" >&2; exit 1; }
	read -r w m u s < <(tail -n 1 "$tmp/time")
	echo "run $i: ${w}s wall, ${u}s user + ${s}s sys CPU, peak RSS ${m} KiB, load $(cut -d' ' -f1 /proc/loadavg)"
	walls+=("$w") rss+=("$m") cpus+=("$(awk -v u="$u" -v s="$s" 'BEGIN {print u + s}')")
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "median: $(median "${walls[@]}")s wall, $(median "${cpus[@]}")s CPU, $(median "${rss[@]}") KiB peak RSS"
if [ "${AORTA_BENCH_VALIDATE:-}" = 1 ]; then
	rc=0
	(cd "$fleet" && /usr/bin/time -f '%e %M %U %S' -o "$tmp/time" "$tmp/aorta-probe" validate ./*.json) >"$tmp/out" 2>&1 || rc=$?
	read -r w m u s < <(tail -n 1 "$tmp/time")
	echo "validate over $n documents: exit $rc, ${w}s wall, ${u}s user + ${s}s sys CPU, peak RSS ${m} KiB"
fi
