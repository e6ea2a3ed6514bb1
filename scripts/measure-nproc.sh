#!/bin/sh
# Measures the RLIMIT_NPROC floor of the static binary (docs/usage.md,
# "Tight resource limits"): as user nobody (RLIMIT_NPROC does not bind
# root and counts every process of the user: run it where nobody runs
# nothing else), RUNS runs per limit, and prints how many wrote the
# document and how the others ended.
#   usage (as root): scripts/measure-nproc.sh BINARY [RUNS] [LIMIT...]
set -eu
bin=$1; shift
runs=${1:-10}; [ $# -gt 0 ] && shift
limits=${*:-1 2 3 4 5 6 7 8 9 10 12 16}
dir=$(mktemp -d); chmod 1777 "$dir"
trap 'rm -rf "$dir"' EXIT
cp "$bin" "$dir/aorta-probe"; chmod 755 "$dir/aorta-probe"
for n in $limits; do
	for _ in $(seq "$runs"); do
		rm -f "$dir/o.json"
		rc=0
		setpriv --reuid=nobody --regid=nogroup --clear-groups prlimit --nproc="$n" \
			"$dir/aorta-probe" "$dir/o.json" --no-python >/dev/null 2>"$dir/err" || rc=$?
		if [ -s "$dir/o.json" ]; then echo "$n exit=$rc document"; else echo "$n exit=$rc $(head -1 "$dir/err" | cut -c1-48)"; fi
	done
done | sort -n | uniq -c
