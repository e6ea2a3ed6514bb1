// Command aorta-probe captures the environment a GPU workload runs in and
// writes it as one env.json document, schema 1.16 of the aorta probe.
//
//	aorta-probe [OUT|-] [flags]
//	aorta-probe validate FILE...
//	aorta-probe capture ARCHIVE [--redact-hostname] [OUT|-] [flags]
//
// See docs/usage.md.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"syscall"

	"aorta-probe/probe"
	"aorta-probe/schema"
)

// version is set at link time (-ldflags "-X main.version=…"); otherwise the
// module version recorded by the go command, else "dev".
var version = ""

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the whole program behind main: parse, collect, write. It returns
// the exit status: 0 when the document was written (partial or not), 1 when
// it could not be, 2 for a usage error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "validate" {
		return runValidate(args[1:], os.Stdin, stdout, stderr) // validate_cmd.go
	}
	if len(args) > 0 && args[0] == "capture" {
		return runCapture(ctx, args[1:], stdout, stderr) // capture_cmd.go
	}
	return runWith(ctx, args, stdout, stderr, replayHook)
}

// runWith is run with a hook around the collection (capture_cmd.go): it
// may change the options, and what it returns runs after the collection.
func runWith(ctx context.Context, args []string, stdout, stderr io.Writer,
	hook func(probe.Options) (probe.Options, func(*schema.Snapshot) error, error)) int {
	cfg, err := parseArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "aorta-probe: %v\n", err)
		fmt.Fprintln(stderr, "Try 'aorta-probe --help' for help.")
		return 2
	}
	switch {
	case cfg.help:
		io.WriteString(stdout, usage)
		return 0
	case cfg.version:
		fmt.Fprintf(stdout, "aorta-probe %s (schema %s, %s)\n", binaryVersion(), schema.Version, runtime.Version())
		return 0
	case cfg.summary && cfg.field != nil:
		fmt.Fprintln(stderr, "Error: --summary and --field are mutually exclusive")
		return 1
	}

	opt := cfg.options
	opt.Version = binaryVersion()
	opt, after, err := hook(opt)
	if err != nil {
		fmt.Fprintf(stderr, "aorta-probe: %v\n", err)
		return 1
	}
	snap := probe.Collect(ctx, opt)
	if err := after(snap); err != nil {
		fmt.Fprintf(stderr, "aorta-probe: %v\n", err)
		return 1
	}
	if w := probe.Warning(snap, os.LookupEnv); w != "" {
		fmt.Fprintln(stderr, w)
	}

	switch {
	case cfg.field != nil:
		out, err := lookupField(snap, *cfg.field)
		if err != nil {
			fmt.Fprintf(stderr, "Error: %v\n", err)
			return 1
		}
		stdout.Write(append(out, '\n'))
		return 0
	case cfg.summary:
		fmt.Fprintln(stdout, schema.Brief(snap))
		if snap.Partial {
			fmt.Fprint(stdout, "\nPartial reasons:\n")
			for _, r := range snap.PartialReasons {
				fmt.Fprintf(stdout, "  - %s\n", r)
			}
		}
		return 0
	}

	doc := schema.Encode(snap)
	if cfg.out == "" || cfg.out == "-" {
		stdout.Write(append(doc, '\n'))
		return 0
	}
	if err := writeOutput(cfg.out, doc); err != nil {
		fmt.Fprintf(stderr, "aorta-probe: failed to write %s: %s\n", cfg.out, err)
		return 1
	}
	return 0
}

func binaryVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
