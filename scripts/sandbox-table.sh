#!/usr/bin/env bash
# Builds the static aorta-probe binary and prints a Markdown table of what
# its env.json says on the host and in each real sandbox (unshare, bwrap,
# a bare chroot, setsid-escaped unshare, nsenter -m, proot,
# systemd-nspawn, FROM-scratch podman and docker): container_detected,
# runtime_context.type, probe_namespace and the isolation signals that
# fired. Cases that cannot run here (tool missing, not root) are listed as
# skipped. Run as root for the full table.
#
#   scripts/sandbox-table.sh [-v] [-skip docker,podman]
#
# -v logs every command to stderr; -skip leaves cases out by key.
set -euo pipefail
cd "$(dirname "$0")/.."

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -trimpath -o "$tmp/aorta-probe" .
go build -o "$tmp/sandbox-table" ./internal/sandbox/cmd/sandbox-table
"$tmp/sandbox-table" "$@" "$tmp/aorta-probe"
