#!/usr/bin/env bash
# Lints the Buck2 files (buildifier: format check and lint warnings) and
# evaluates them against a mocked prelude (the nested Go module
# buck/starlarktest, which needs go.starlark.net; the main module stays
# dependency-free). Neither needs buck2. Called from .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

# Pinned: github.com/bazelbuild/buildtools at this pseudo-version.
BUILDIFIER=github.com/bazelbuild/buildtools/buildifier@v0.0.0-20260904073137-eaa4d125b423

# "go run pkg@version" ignores the current module, so the main go.mod
# stays without requirements. native-sh-test is a Bazel-only warning: in
# Buck2, sh_test is a prelude rule reached through native.
buildifier() { go run "$BUILDIFIER" "$@"; }

echo "lint-buck: buildifier -mode=check -lint=warn"
buildifier -mode=check -lint=warn -warnings=-native-sh-test -type=bzl "$repo/buck/aorta_probe.bzl"
buildifier -mode=check -lint=warn -type=build "$repo/BUILD.buck"

echo "lint-buck: starlark evaluation against a mocked prelude (buck/starlarktest)"
(cd buck/starlarktest && go vet ./... && go test -count=1 ./...)
