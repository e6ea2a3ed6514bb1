package capture

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"aorta-probe/cli"
	"aorta-probe/cli/output"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/probe"
)

// Usage is the program's help: the capture's flags and the list of subcommands
// (aorta-probe --help, aorta-probe help).
const Usage = `Usage: aorta-probe [OUT|-] [flags]
       aorta-probe --summary [DOC|-]
       aorta-probe --field PATH... [DOC|-]
       aorta-probe validate FILE...
       aorta-probe diff [--format F] A.json B.json
       aorta-probe diff --fleet [--all] [--format F] DIR|FILE...
       aorta-probe diff --env-markers [--format text|json] A B
       aorta-probe env-names [OUT|-]
       aorta-probe capture ARCHIVE [--redact-hostname] [OUT|-] [flags]
       aorta-probe --root ARCHIVE [OUT|-] [flags]
       aorta-probe metrics [DOC|-] [OUT] [flags]
       aorta-probe labels [DOC|-] [OUT] [flags]
       aorta-probe help [SUBCOMMAND]

Capture the environment this process runs in (ROCm, amdgpu, GPUs, NICs,
Python/PyTorch, env knobs, container and namespace signals, Buck2) and write
it as one env.json document (aorta schema 1.16). OUT is written atomically;
without OUT, or with -, the document goes to stdout.

Subcommands (each takes --help):
  validate    check documents against the env.json schema (docs/schema.md)
  diff        did two runs probe the same place, and what differs; --fleet
              finds the outliers of many documents, --env-markers compares
              two env-names outputs (docs/triage.md)
  env-names   write this process's variable names (never values), for
              diff --env-markers (docs/triage.md)
  capture     run and record what was read and run into ARCHIVE, which
              --root ARCHIVE replays on any machine (docs/capture.md)
  metrics     a document as Prometheus metrics for node_exporter's
              textfile collector (docs/fleet.md)
  labels      a document as Kubernetes node labels, a Node Feature
              Discovery feature file (docs/fleet.md)
  help        this text, or a subcommand's: help diff (docs/usage.md)

Flags:
  -o, --output PATH          write the document to PATH (same as OUT)
  --out-dir DIR              write it atomically to DIR/NODE.json, NODE being
                             $SLURMD_NODENAME, else $NODE_NAME, else the host
                             name, escaped for a file name (docs/fleet.md)
  --extended                 keep the per-file catalog lists
  --execution-context LABEL  direct (default), buck2_run or buck2_action:
                             how the probe was invoked, as the caller asserts
  --summary                  print the human brief and partial reasons only
                             (to stdout: no OUT); with DOC (- for standard
                             input), those of that document, not a capture
  --field PATH               print one value (dotted path, [N] indexes a
                             list) as JSON on one line (to stdout: no OUT);
                             repeatable: one line per value, in order; with
                             DOC, from that document
  --deadline DURATION        bound the whole capture (default 60s)
  --root DIR|ARCHIVE         describe the filesystem under DIR instead of /,
                             or replay a capture ARCHIVE (docs/capture.md)
  --python PATH              the workload interpreter whose torch, triton,
                             fbgemm_gpu, torchrec and aiter are described
                             (default $AORTA_PROBE_PYTHON, else python3, else
                             python on PATH)
  --no-python                run no interpreter: the Python blocks describe
                             no interpreter
  --no-provenance            omit the probe_provenance extension block
  --tuning-state             add the GPUs' per-moment state to
                             probe_provenance.tuning (clocks, power,
                             temperatures, RAS error counts, PCIe replays:
                             reads that wake the GPUs; docs/tuning.md)
  --buck-target TARGET       resolve TARGET with buck2 cquery: buck_invocation,
                             library_introspection, likely_execution_platform
  --buck-option TYPE=VALUE   ordered context input (repeatable): mode=FILE,
                             config=KEY=VALUE or modifier=VALUE
  --buck-mode-file PATH      grouped mode file, leading @ optional (repeatable)
  --buck-config KEY=VALUE    grouped -c override (repeatable; value never stored)
  --buck-modifier MODIFIER   grouped -m modifier (repeatable)
  --buck-default-context     confirm the default Buck context
  --buck-timeout SECONDS     timeout of each buck2 cquery (integer >= 1, default 10)
  --version                  print the version and exit
  -h, --help                 print this help and exit

A flag that takes a value is given once (--field and the Buck inputs
repeat). A document written to a file named like a subcommand, or two
edits or fewer away from one, needs a path: ./diff, ./valdate. With
--summary or --field, the one argument is the DOC they read, and the
capture's flags are refused beside it.

Exit status: 0 when the document was written (partial or not), 1 when it
could not be written (stdout too: a closed pipe is one line, "failed to
write to stdout: [Errno 32] Broken pipe"), 2 for a usage error.
`

// config is the parsed command line.
type config struct {
	// cmd is the command as its messages name it: "aorta-probe", or
	// "aorta-probe capture" (whose help is `aorta-probe capture --help`).
	cmd     string
	options probe.Options
	out     string
	outFlag string // -o/--output as given; out once OUT is weighed
	outDir  string // --out-dir (outdir.go): out is DIR/NODE.json
	summary bool
	fields  []string // each --field, in order (docs/usage.md)
	// doc is the document --summary and --field print from instead of a
	// fresh capture ("-": standard input; "": capture): doc.go.
	doc     string
	help    bool
	version bool
	buck    buckFlags // raw --buck-* values (flags_buck.go)
	// archive and redact are capture's ARCHIVE and --redact-hostname
	// (capture.go).
	archive string
	redact  bool
	flags   []string // every flag given, by the name given, in order
}

// option is one command-line flag: its names, whether it takes a value
// (after "=" or as the next argument), and how it applies to the config.
// set gets the name as given and the value ("" for a flag without one).
// A flag that takes a value is given at most once (a second is a usage
// error naming it: docs/usage.md#flags) unless it is repeatable; one
// without a value may be repeated, to no further effect.
type option struct {
	names      []string
	value      bool
	repeatable bool
	set        func(c *config, name, v string) error
	// missing, when set, is the error of a value-taking option given
	// last with no value; otherwise "option NAME requires a value".
	missing func(name string) error
}

// flagTable is every flag of the command line: the general ones here, then
// the Python (flags_python.go), Buck (flags_buck.go) and --out-dir
// (outdir.go) ones.
var flagTable = slices.Concat(generalOptions, pythonOptions, buckOptions, outDirOptions)

var generalOptions = []option{
	{names: []string{"-o", "--output"}, value: true, set: func(c *config, name, v string) error {
		if v == "" {
			return errors.New("option " + name + " requires a non-empty path")
		}
		c.outFlag = v
		return nil
	}},
	{names: []string{"--extended"}, set: func(c *config, _, _ string) error { c.options.Extended = true; return nil }},
	{names: []string{"--execution-context"}, value: true, set: func(c *config, _, v string) error {
		c.options.ExecutionContext = v
		if !validLabel(v) {
			return executionContextError(v)
		}
		return nil
	}, missing: func(string) error { return executionContextError("(missing)") }},
	{names: []string{"--summary"}, set: func(c *config, _, _ string) error { c.summary = true; return nil }},
	// Each --field prints its value on its own line, in order
	// (docs/usage.md#output).
	{names: []string{"--field"}, value: true, repeatable: true, set: func(c *config, _, v string) error {
		c.fields = append(c.fields, v)
		return output.CheckField(v) // a path that names nothing anywhere: before collecting
	}},
	{names: []string{"--deadline"}, value: true, set: func(c *config, _, v string) error {
		// ParseDuration rejects what overflows (beyond ~292 years).
		d, err := time.ParseDuration(v)
		c.options.Deadline = d
		if err != nil || d <= 0 {
			return fmt.Errorf("--deadline needs a duration from 1ns to 2562047h47m16s, in Go syntax such as 30s or 2m (got %s)", pyfmt.Repr(cli.Clip(v)))
		}
		return nil
	}},
	{names: []string{"--root"}, value: true, set: func(c *config, _, v string) error { c.options.Root = v; return nil }},
	{names: []string{"--no-provenance"}, set: func(c *config, _, _ string) error { c.options.NoProvenance = true; return nil }},
	{names: []string{"--tuning-state"}, set: func(c *config, _, _ string) error { c.options.TuningState = true; return nil }},
	{names: []string{"--version"}, set: func(c *config, _, _ string) error { c.version = true; return nil }},
	{names: []string{"--help", "-h"}, set: func(c *config, _, _ string) error { c.help = true; return nil }},
}

func executionContextError(got string) error {
	return fmt.Errorf("--execution-context requires one of: direct, buck2_run, buck2_action (got %s)", pyfmt.Repr(cli.Clip(got)))
}

// captureOptions are the flags only `aorta-probe capture` takes
// (captureUsage, capture.go).
var captureOptions = []option{
	{names: []string{"--redact-hostname"}, set: func(c *config, _, _ string) error { c.redact = true; return nil }},
}

// optionTable is the flags of the plain capture, or of `capture`.
func optionTable(capture bool) []option {
	if capture {
		return slices.Concat(flagTable, captureOptions)
	}
	return flagTable
}

func lookupOption(name string, capture bool) (option, bool) {
	for _, o := range optionTable(capture) {
		if slices.Contains(o.names, name) {
			return o, true
		}
	}
	return option{}, false
}

// unknownFlag is the usage error of a flag none of the table's: with the
// flag it resembles, if any (cli.UnknownFlag).
func unknownFlag(name string, capture bool) error {
	var names []string
	for _, o := range optionTable(capture) {
		names = append(names, o.names...)
	}
	return cli.UnknownFlag(name, names)
}

// parseArgs parses the plain capture's command line (parse).
func parseArgs(args []string) (config, error) { return parse(args, false) }

// parseCaptureArgs parses `aorta-probe capture`'s command line (parse):
// the plain one, whose first positional argument is ARCHIVE, and
// --redact-hostname.
func parseCaptureArgs(args []string) (config, error) { return parse(args, true) }

// parse parses the command line. Flags and the positional OUT may come
// in any order; --name=value and --name value are both accepted, -oPATH and
// -o PATH too; "--" ends the flags. Everything that is wrong is a usage
// error (exit 2), never a silent fall-through: every such error is the one
// parse returns. The config names its command for the messages either way
// (config.cmd).
func parse(args []string, capture bool) (config, error) {
	c, positional, err := parseFlags(args, capture)
	if err != nil {
		return c, err
	}
	if capture && c.help {
		return c, nil // capture --help needs no ARCHIVE
	}
	if capture {
		if len(positional) == 0 {
			return c, errors.New("no ARCHIVE given")
		}
		c.archive, positional = positional[0], positional[1:]
		if c.archive == "" || c.archive == "-" {
			return c, fmt.Errorf("ARCHIVE must be a file path (got %s)", pyfmt.Repr(c.archive))
		}
	}
	// --summary and --field print to stdout: a path given with them would
	// be silently ignored (docs/usage.md); their positional argument is
	// the DOC they print from (doc.go).
	field := len(c.fields) > 0
	flag := map[bool]string{true: "--summary", false: "--field"}[c.summary]
	switch {
	case c.summary && field:
		return c, errors.New("--summary and --field are mutually exclusive")
	case (c.summary || field) && c.outDir != "":
		return c, fmt.Errorf("%s prints to stdout and takes no --out-dir", flag)
	case (c.summary || field) && c.outFlag != "":
		return c, fmt.Errorf("%s prints to stdout and takes no output path (got %s)", flag, pyfmt.Repr(c.outFlag))
	case (c.summary || field) && capture && len(positional) > 0:
		return c, fmt.Errorf("%s prints to stdout and takes no output path (got %s)", flag, pyfmt.Repr(positional[0]))
	case c.summary || field:
		if err := c.setDoc(flag, positional); err != nil {
			return c, err
		}
		positional = nil
	}
	if err := c.setOut(positional); err != nil {
		return c, err
	}
	if err := c.checkOutDir(positional); err != nil {
		return c, err
	}
	return c, validateBuck(&c)
}

// parseFlags is parse's first half: the flags of args applied to a config
// that names its command (config.cmd), and the positional arguments, in
// order. The derived commands (derive.go) take the plain capture's flags
// through it.
func parseFlags(args []string, capture bool) (config, []string, error) {
	c := config{cmd: "aorta-probe"}
	if capture {
		c.cmd = "aorta-probe capture"
	}
	var positional []string
	given := map[string]string{} // a single-value flag's first name -> its value
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			positional = append(positional, args[i+1:]...)
			break
		}
		if a == "-" || !strings.HasPrefix(a, "-") {
			positional = append(positional, a)
			continue
		}
		name, value, hasValue := strings.Cut(a, "=")
		if strings.HasPrefix(a, "-o") && !strings.HasPrefix(a, "--") && len(a) > 2 {
			name, value, hasValue = "-o", a[2:], true
		}
		o, ok := lookupOption(name, capture)
		switch {
		case !ok:
			return c, nil, unknownFlag(name, capture)
		case !o.value && hasValue:
			return c, nil, fmt.Errorf("option %s does not take a value", name)
		case o.value && !hasValue && i+1 >= len(args):
			if o.missing != nil {
				return c, nil, o.missing(name)
			}
			return c, nil, fmt.Errorf("option %s requires a value", name)
		case o.value && !hasValue:
			i++
			value = args[i]
		}
		if first, twice := given[o.names[0]]; twice && o.value && !o.repeatable {
			return c, nil, fmt.Errorf("%s given twice (%s, then %s): give it once", strings.Join(o.names, "/"), pyfmt.Repr(cli.Clip(first)), pyfmt.Repr(cli.Clip(value)))
		}
		given[o.names[0]] = value
		if err := o.set(&c, name, value); err != nil {
			return c, nil, err
		}
		c.flags = append(c.flags, name)
	}
	return c, positional, nil
}

// setOut takes the output path from OUT or -o (once), "-" for stdout.
func (c *config) setOut(positional []string) error {
	switch {
	case len(positional) > 1:
		return fmt.Errorf("unexpected extra argument %s (only one OUT path is taken)", pyfmt.Repr(cli.Clip(positional[1])))
	case len(positional) == 1 && c.outFlag != "":
		return errors.New("give the output path once: as OUT or with -o, not both")
	case len(positional) == 1 && positional[0] == "":
		return errors.New("OUT must be a non-empty path (- or no OUT for stdout)")
	case len(positional) == 1:
		c.out = positional[0]
	case c.outFlag != "":
		c.out = c.outFlag
	default:
		c.out = "-"
	}
	return nil
}

func validLabel(v string) bool {
	for _, l := range probe.ExecutionContexts {
		if v == l {
			return true
		}
	}
	return false
}
