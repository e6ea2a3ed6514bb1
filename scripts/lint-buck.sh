#!/usr/bin/env bash
# Lints the Buck2 files (buildifier: format check and lint warnings) and
# evaluates them against a mocked prelude (the nested Go module
# buck/starlarktest, which needs go.starlark.net; the main module stays
# dependency-free). Neither needs buck2. Called from .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

# Every tool dependency is pinned in the nested module buck/starlarktest
# (go.mod: "tool github.com/bazelbuild/buildtools/buildifier" at
# v0.0.0-20260904073137-eaa4d125b423, and golang.org/x/sys, which buildtools'
# own go.mod omits and "go run pkg@version" used to resolve at run time;
# go.sum: their hashes), so the main go.mod stays without requirements and
# nothing is looked up at run time: -mod=readonly fails instead of resolving.
# native-sh-test is a Bazel-only warning: in Buck2, sh_test is a prelude
# rule reached through native.
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-mod=readonly"
buildifier() { (cd "$repo/buck/starlarktest" && go tool buildifier "$@"); }

echo "lint-buck: buildifier -mode=check -lint=warn"
buildifier -mode=check -lint=warn -warnings=-native-sh-test -type=bzl "$repo/buck/aorta_probe.bzl"
buildifier -mode=check -lint=warn -type=build "$repo/BUILD.buck"

echo "lint-buck: starlark evaluation against a mocked prelude (buck/starlarktest)"
(cd buck/starlarktest && go vet ./... && go test -count=1 ./...)
