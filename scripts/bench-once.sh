#!/usr/bin/env bash
# bench-once.sh: the two speed goals of "each command once" (docs/python.md,
# "Speed"), side by side, on this machine:
#   --no-python            against  PY -c pass            (goal: <= 0.9x)
#   default run (PY first  against  scripts/helperfloor   (goal: <= +10 ms)
#     on PATH)                      with the same PY
# The probe rows run on a PATH without the ROCm tools (see below), kmod's
# modinfo on it.
# PY is $PYTHON, else a torch-less venv made at /tmp/venv-nt
# (python3 -m venv). With BASE=REV (a commit), the same two probe rows of
# that revision's binary run too, for the before/after.
#
#   [PYTHON=PY] [BASE=REV] scripts/bench-once.sh [ROUNDS]   (default 41)
#
# With BINDIR=DIR the binaries are taken from DIR instead of built
# (aorta-probe, helperfloor, and aorta-probe-base for the BASE rows): for a
# machine without Go.
#
# Each round runs every row once, in an order rotated by the round (so a
# change of load hits all rows alike); one warm-up round is dropped.
# Per row: the median and p90 wall time (date +%s%N around the bare run)
# and, in a second interleaved pass under `perf stat -e task-clock`, the
# median CPU time of the whole process tree (where perf is installed).
# The rows "modinfo off PATH" rerun --no-python and the default run with a
# PATH that holds everything of /usr/sbin, /usr/bin, /sbin and /bin but
# modinfo: what not starting modinfo at all would save. The machine's load
# is printed before and after: a figure means little without it.
set -euo pipefail
rounds=${1:-41}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=${PYTHON:-}
if [ -z "$py" ]; then
	[ -x /tmp/venv-nt/bin/python3 ] || python3 -m venv /tmp/venv-nt
	py=/tmp/venv-nt/bin/python3
fi
"$py" -c 'import torch' >/dev/null 2>&1 && echo "bench-once: $py imports torch; want a torch-less interpreter" >&2
if [ -n "${BINDIR:-}" ]; then
	cp "$BINDIR/aorta-probe" "$BINDIR/helperfloor" "$tmp/"
else
	CGO_ENABLED=0 go build -trimpath -o "$tmp/aorta-probe" .
	CGO_ENABLED=0 go build -trimpath -o "$tmp/helperfloor" ./scripts/helperfloor
fi
{ printf '# -*- coding: latin-1 -*-\n'; cat probe/python_helper.stdin; } >"$tmp/helper.stdin"
# The probe rows' PATH: links to /usr/sbin, /usr/bin, /sbin and /bin minus
# the ROCm tools (hip*, roc*, amd*: hipconfig would dominate what they
# compare, as in the issue's measurement), and the same minus modinfo.
mkdir "$tmp/tools" "$tmp/nomodinfo"
for d in /usr/sbin /usr/bin /sbin /bin; do
	[ -d "$d" ] || continue
	for f in "$d"/*; do
		case ${f##*/} in hip* | roc* | amd*) continue ;; esac
		[ -e "$tmp/tools/${f##*/}" ] || ln -s "$f" "$tmp/tools/${f##*/}"
		[ "${f##*/}" = modinfo ] || [ -e "$tmp/nomodinfo/${f##*/}" ] || ln -s "$f" "$tmp/nomodinfo/${f##*/}"
	done
done
pydir=$(dirname "$py")
names=("PY -c pass" "--no-python" "--no-python, modinfo off PATH" "helperfloor PY" "default (PY on PATH)" "default, modinfo off PATH")
cmds=(
	"$py -c pass"
	"env PATH=$tmp/tools $tmp/aorta-probe $tmp/out.json --no-python"
	"env PATH=$tmp/nomodinfo $tmp/aorta-probe $tmp/out.json --no-python"
	"$tmp/helperfloor $tmp/out.json $py $tmp/helper.stdin"
	"env PATH=$pydir:$tmp/tools $tmp/aorta-probe $tmp/out.json"
	"env PATH=$pydir:$tmp/nomodinfo $tmp/aorta-probe $tmp/out.json"
)
if [ -n "${BINDIR:-}" ] && [ -x "$BINDIR/aorta-probe-base" ]; then
	BASE=${BASE:-base}
	cp "$BINDIR/aorta-probe-base" "$tmp/"
elif [ -n "${BASE:-}" ]; then
	mkdir "$tmp/base"
	git archive "$BASE" | tar -x -C "$tmp/base"
	(cd "$tmp/base" && CGO_ENABLED=0 go build -trimpath -o "$tmp/aorta-probe-base" .)
fi
if [ -n "${BASE:-}" ]; then
	names+=("BASE --no-python" "BASE default (PY on PATH)")
	cmds+=("env PATH=$tmp/tools $tmp/aorta-probe-base $tmp/out.json --no-python" "env PATH=$pydir:$tmp/tools $tmp/aorta-probe-base $tmp/out.json")
fi
# The env wrapper of some rows costs an exec; give every row one.
for i in "${!cmds[@]}"; do
	case ${cmds[$i]} in env\ *) ;; *) cmds[i]="env ${cmds[$i]}" ;; esac
done
n=${#cmds[@]}
perf=""
command -v perf >/dev/null && perf stat -x, -e task-clock true 2>/dev/null && perf=yes
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs; PY=$py ($("$py" -V 2>&1))"
declare -A wall cpu
for r in $(seq 0 "$rounds"); do
	for k in $(seq 0 $((n - 1))); do
		i=$(((k + r) % n))
		s=$(date +%s%N)
		${cmds[$i]} >/dev/null 2>&1
		e=$(date +%s%N)
		[ "$r" -gt 0 ] && wall[$i]+="$(((e - s) / 1000)) "
		if [ -n "$perf" ]; then
			c=$(perf stat -x, -e task-clock ${cmds[$i]} 2>&1 >/dev/null | awk -F, '/task-clock/ {print int($1 * 1000)}' | tail -1)
			[ "$r" -gt 0 ] && cpu[$i]+="$c "
		fi
	done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg); $rounds rounds"
calc() { awk "BEGIN {print $1}"; }
stat() { # values -> "median p90" (nearest rank)
	tr ' ' '\n' | grep . | sort -n | awk '{v[NR]=$1} END {m=v[int((NR+1)/2)]; p=v[int(NR*0.9+0.999)]; print m, p}'
}
declare -a med
for i in $(seq 0 $((n - 1))); do
	read -r m p < <(echo "${wall[$i]}" | stat)
	med[i]=$m
	line=$(printf '%-32s wall median %7.1f ms  p90 %7.1f ms' "${names[$i]}" "$(calc "$m/1000")" "$(calc "$p/1000")")
	if [ -n "$perf" ]; then
		read -r cm _ < <(echo "${cpu[$i]}" | stat)
		line+=$(printf '   CPU (task-clock) median %7.1f ms' "$(calc "$cm/1000")")
	fi
	echo "$line"
done
printf '\n--no-python / PY -c pass:                 %.2fx  (goal <= 0.90)\n' "$(calc "${med[1]}/${med[0]}")"
printf '  modinfo off PATH:                       %.2fx\n' "$(calc "${med[2]}/${med[0]}")"
printf 'default - helperfloor:                   %+.1f ms (goal <= +10)\n' "$(calc "(${med[4]}-${med[3]})/1000")"
printf '  modinfo off PATH:                       %+.1f ms\n' "$(calc "(${med[5]}-${med[3]})/1000")"
if [ -n "${BASE:-}" ]; then
	printf 'BASE --no-python / PY -c pass:            %.2fx\n' "$(calc "${med[6]}/${med[0]}")"
	printf 'BASE default - helperfloor:              %+.1f ms\n' "$(calc "(${med[7]}-${med[3]})/1000")"
fi
