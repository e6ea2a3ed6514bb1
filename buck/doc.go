// Package buck is the Buck2 side of aorta-probe that needs no process or
// filesystem: the invocation context of context.md §20 (ordered and grouped
// inputs, the argv they become, the context fingerprint, redaction of
// config values), the cquery argv builders of §21.1 and buck2.md §3.1, and
// the parsers of cquery output (§21.2–21.4) and configured labels
// (buck2.md §2.1). Running buck2 is the probe package's job; everything
// here is a pure function with table tests and fuzz targets.
//
// The .bzl macros that run the probe as a Buck2 action live next to this
// package (aorta_probe.bzl); buck/starlarktest evaluates them against a
// mocked prelude.
package buck
