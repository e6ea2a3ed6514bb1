package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"aorta-probe/internal/pyfmt"
	"aorta-probe/probe"
)

const usage = `Usage: aorta-probe [OUT|-] [flags]
       aorta-probe validate FILE...  (check documents; see validate --help)

Capture the environment this process runs in (ROCm, amdgpu, GPUs, NICs,
Python/PyTorch, env knobs, container and namespace signals, Buck2) and write
it as one env.json document (aorta schema 1.16). OUT is written atomically;
without OUT, or with -, the document goes to stdout.

Flags:
  -o, --output PATH          write the document to PATH (same as OUT)
  --extended                 keep the per-file catalog lists
  --execution-context LABEL  direct (default), buck2_run or buck2_action:
                             how the probe was invoked, as the caller asserts
  --summary                  print the human brief and partial reasons only
  --field PATH               print one value (dotted path) as compact JSON
  --deadline DURATION        bound the whole capture (default 60s)
  --root DIR                 describe the filesystem under DIR instead of /
  --python PATH              the workload interpreter whose torch, triton,
                             fbgemm_gpu, torchrec and aiter are described
                             (default $AORTA_PROBE_PYTHON, else python3, else
                             python on PATH)
  --no-python                run no interpreter: the Python blocks describe
                             no interpreter
  --no-provenance            omit the probe_provenance extension block
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

Exit status: 0 when the document was written (partial or not), 1 when it
could not be written, 2 for a usage error.
`

// config is the parsed command line.
type config struct {
	options probe.Options
	out     string
	summary bool
	field   *string
	help    bool
	version bool
	buck    buckFlags // raw --buck-* values (flags_buck.go)
}

// parseArgs parses the command line. Flags and the positional OUT may come
// in any order; --name=value and --name value are both accepted, -oPATH and
// -o PATH too; "--" ends the flags. Everything that is wrong is a usage
// error (exit 2), never a silent fall-through.
func parseArgs(args []string) (config, error) {
	var c config
	var positional []string
	outFlag := ""
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
		// takeValue consumes the flag's value: after "=" or the next argument.
		takeValue := func() (string, error) {
			if hasValue {
				return value, nil
			}
			if i+1 >= len(args) {
				return "", fmt.Errorf("option %s requires a value", name)
			}
			i++
			return args[i], nil
		}
		flag := func() error {
			if hasValue {
				return fmt.Errorf("option %s does not take a value", name)
			}
			return nil
		}
		var err error
		switch name {
		case "-o", "--output":
			outFlag, err = takeValue()
			if err == nil && outFlag == "" {
				err = errors.New("option " + name + " requires a non-empty path")
			}
		case "--extended":
			err = flag()
			c.options.Extended = true
		case "--execution-context":
			var v string
			v, err = takeValue()
			if err != nil {
				err = fmt.Errorf("--execution-context requires one of: direct, buck2_run, buck2_action (got %s)", pyfmt.Repr("(missing)"))
			} else if !validLabel(v) {
				err = fmt.Errorf("--execution-context requires one of: direct, buck2_run, buck2_action (got %s)", pyfmt.Repr(v))
			}
			c.options.ExecutionContext = v
		case "--summary":
			err = flag()
			c.summary = true
		case "--field":
			var v string
			if v, err = takeValue(); err == nil {
				c.field = &v
			}
		case "--deadline":
			var v string
			if v, err = takeValue(); err == nil {
				// ParseDuration rejects what overflows (beyond ~292 years).
				c.options.Deadline, err = time.ParseDuration(v)
				if err != nil || c.options.Deadline <= 0 {
					err = fmt.Errorf("--deadline needs a positive duration such as 30s or 2m (got %s)", pyfmt.Repr(v))
				}
			}
		case "--root":
			c.options.Root, err = takeValue()
		case "--no-provenance":
			err = flag()
			c.options.NoProvenance = true
		case "--version":
			err = flag()
			c.version = true
		case "--help", "-h":
			err = flag()
			c.help = true
		default:
			var handled bool
			for _, area := range []func(string, func() (string, error), func() error, *config) (bool, error){pythonFlag, buckFlag} {
				if handled, err = area(name, takeValue, flag, &c); handled {
					break
				}
			}
			if !handled && err == nil {
				err = fmt.Errorf("unknown option %s", name)
			}
		}
		if err != nil {
			return c, err
		}
	}
	switch {
	case len(positional) > 1:
		return c, fmt.Errorf("unexpected extra argument %s (only one OUT path is taken)", pyfmt.Repr(positional[1]))
	case len(positional) == 1 && outFlag != "":
		return c, errors.New("give the output path once: as OUT or with -o, not both")
	case len(positional) == 1 && positional[0] == "":
		return c, errors.New("OUT must be a non-empty path (- or no OUT for stdout)")
	case len(positional) == 1:
		c.out = positional[0]
	case outFlag != "":
		c.out = outFlag
	default:
		c.out = "-"
	}
	return c, validateBuck(&c)
}

func validLabel(v string) bool {
	for _, l := range probe.ExecutionContexts {
		if v == l {
			return true
		}
	}
	return false
}
