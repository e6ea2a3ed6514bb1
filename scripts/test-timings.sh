#!/usr/bin/env bash
# test-timings.sh: where the test suite spends its time. Runs
# `go test -json -count=1` on the packages (default ./...), keeps the event
# stream, and prints the wall, user and sys time of the whole run (user+sys
# counts every process the tests started and waited for), the machine's
# load before and after, then scripts/testtimings' report: per package
# wall time (sequential tests vs the t.Parallel phase), the slowest tests,
# each slow package's critical path (its sequential tests) and every
# skipped test with its reason. Not a test: numbers for the notes.
#
#   [AORTA_PROBE_REQUIRE_SANDBOXES=1] scripts/test-timings.sh [-n N] [-o OUT.json] [-list LIST] [PACKAGES...] [-- GO TEST FLAGS]
#   scripts/test-timings.sh -r OUT.json [-n N]      report on a kept stream, run nothing
#
# -n: how many of the slowest tests (25); -o: keep the event stream
# there (default a temporary file); -list: also write one sorted
# "PACKAGE TEST STATUS" line per test there, to diff two runs' coverage.
# Run as root with AORTA_PROBE_REQUIRE_SANDBOXES=1 for the real-sandbox
# cases (docs/design-notes.md, "Testing").
set -euo pipefail

# abs is $1 made absolute against the directory the script was started in.
abs() { case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }

n=25 out="" list="" report=""
pkgs=() flags=()
while [ $# -gt 0 ]; do
	case "$1" in
	-n) n="$2"; shift 2 ;;
	-o) out="$(abs "$2")"; shift 2 ;;
	-list) list="$(abs "$2")"; shift 2 ;;
	-r) report="$(abs "$2")"; shift 2 ;;
	--) shift; flags=("$@"); break ;;
	*) pkgs+=("$1"); shift ;;
	esac
done
cd "$(dirname "$0")/.."
[ ${#pkgs[@]} -gt 0 ] || pkgs=(./...)

tool="$(mktemp -d)"
trap 'rm -rf "$tool"' EXIT
go build -o "$tool/testtimings" ./scripts/testtimings

if [ -z "$report" ]; then
	if [ -z "$out" ]; then
		out="$tool/test.json"
	fi
	echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; go test -json -count=1 ${flags[*]:+${flags[*]} }${pkgs[*]}"
	TIMEFORMAT='go test: %R s wall, %U s user, %S s sys'
	rc=0
	time go test -json -count=1 "${flags[@]}" "${pkgs[@]}" >"$out" || rc=$?
	echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg); exit status $rc"
	report="$out"
fi
echo
"$tool/testtimings" -n "$n" "$report"
if [ -n "$list" ]; then
	"$tool/testtimings" -list "$report" >"$list"
fi
