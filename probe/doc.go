// Package probe collects one env.json document: the environment a GPU
// workload runs in, as the process that runs the probe sees it.
//
// # What it collects
//
// Collect fills a schema.Snapshot: the isolation and placement evidence
// (runtime_context, container_detected, probe_namespace,
// execution_context; docs/isolation.md), the host and OS, the ROCm roots
// and release (docs/rocm-roots.md), the amdgpu driver, the ROCm libraries
// and their kernel catalogs (docs/rocm-libraries.md), the command-driven
// hardware blocks system_health, hip, gpu_arch and nics
// (docs/hardware.md), the environment knobs (docs/env-knobs.md), the
// workload interpreter's Python, PyTorch, Triton and friends
// (docs/python.md), the Buck2 context (docs/buck2.md) and the
// probe_provenance extension block. docs/fields-process.md says, field by
// field, which machine or process each value describes. Nothing fails a
// collection: what cannot be read becomes null plus a partial_reasons
// line in the wording docs/env-probe.md points at.
//
// # The table
//
// Every block is one row of probeTable (table.go), a plain slice in the
// document's order. The rows run concurrently, at most Options.Workers at
// a time; each writes only its own block and reasons, and a row may await
// only rows above it, through a typed key, so reasons are in table order
// whatever finishes first (docs/design-notes.md, "Coupling by type, rules
// by table").
//
// # Seams
//
// Nothing is global: everything a collection reads from outside comes
// through Options — its embedded machine.Seams, Root (the filesystem),
// Env (variables, looked up by name, never listed), Path (where tools are
// found), Runner (commands), Uname, NamespaceID (the kernel's namespace
// ids), RootID (statx of the root), Cwd, TempName (rdhc's temp file
// name), and Now — and tests, capture and replay swap those, never a
// package variable. The probed machine
// itself is internal/machine: the filesystem under a root, the runner,
// and the capture Recorder (Options.Record) and Replay that wrap them;
// CollectRoot replays a --root archive. What they need of the
// collectors is one archive.Policy (capture.go; docs/capture.md,
// docs/design-notes.md "The probed machine"); a capture cut short by its
// deadline or a signal records the cut, which a replay re-enacts
// (cut.go).
//
// # The machine.FS rule
//
// Every file of the probed machine is read through the collection's
// machine.FS (machine.FS) and only through it: under a root other than "/"
// every path resolves inside the root as chroot(2) would (docs/rocm-roots.md,
// "Reading under --root"), and the Recorder of a capture sees each read.
// The one exception is a file of the machine the probe runs on that a tool
// it ran wrote (rdhc's report), read with a fresh machine.FS on "/".
//
// # The runner rule
//
// Every external program runs through state.run and Options.Runner
// (machine.ExecRunner): no shell, the tool found by which on the absolute entries of
// the search path, stdin /dev/null, its own process group, killed with
// the group at its timeout or the collection's deadline, stdout and
// stderr capped, and its argv, exit and timing recorded in
// probe_provenance.commands (docs/design-notes.md, "Fail-soft machinery").
//
// # Where the docs are
//
// docs/usage.md is the command line; docs/design-notes.md the choices the
// spec leaves open; the pages named above are the field references.
package probe
