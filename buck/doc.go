// Package buck is the Buck2 side of aorta-probe that needs no process or
// filesystem: the invocation context of buck_invocation (ordered and grouped
// inputs, the argv they become, the context fingerprint, redaction of config
// values: docs/buck2.md#buck-flag-errors, docs/buck2.md#context-fingerprint),
// the argv builders of the two cqueries (library_introspection and
// execution_context.likely_execution_platform), and the parsers of cquery
// output and configured labels (docs/buck2.md#3-the-buck-blocks).
// Running buck2 is the probe package's job; everything here is a pure
// function with table tests and fuzz targets.
//
// The .bzl macros that run the probe as a Buck2 action live next to this
// package (aorta_probe.bzl); buck/starlarktest evaluates them against a
// mocked prelude.
package buck
