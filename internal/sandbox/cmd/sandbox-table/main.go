// Command sandbox-table runs a built aorta-probe binary in every sandbox of
// package sandbox and prints a Markdown table of what each env.json says.
// scripts/sandbox-table.sh builds the binary and calls it:
//
//	sandbox-table [-v] [-skip docker] /path/to/aorta-probe
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"aorta-probe/internal/sandbox"
)

func main() {
	verbose := flag.Bool("v", false, "log every command and its output to stderr")
	skip := flag.String("skip", "", "comma-separated sandbox keys to leave out")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: sandbox-table [-v] [-skip KEY,...] AORTA_PROBE_BINARY")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	bin, err := filepath.Abs(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var log io.Writer = io.Discard
	if *verbose {
		log = os.Stderr
	}
	skipped := map[string]bool{}
	for _, k := range strings.Split(*skip, ",") {
		skipped[strings.TrimSpace(k)] = true
	}
	work, err := os.MkdirTemp("", "aorta-sandbox-table-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer os.RemoveAll(work)

	fmt.Println(sandbox.TableHeader)
	failed := false
	for _, sb := range sandbox.All() {
		if skipped[sb.Key] {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		row := runOne(ctx, sb, bin, filepath.Join(work, sb.Key), log)
		cancel()
		if strings.Contains(row, "| failed:") {
			failed = true
		}
		fmt.Println(row)
	}
	if failed {
		os.Exit(1)
	}
}

func runOne(ctx context.Context, sb sandbox.Sandbox, bin, dir string, log io.Writer) string {
	if why := sb.Unavailable(ctx); why != "" {
		return fmt.Sprintf("| %s | skipped: %s | | | |", sb.Label, cell(why))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Sprintf("| %s | failed: %s | | | |", sb.Label, cell(err.Error()))
	}
	doc, err := sb.Run(ctx, bin, dir, log)
	if err != nil {
		return fmt.Sprintf("| %s | failed: %s | | | |", sb.Label, cell(err.Error()))
	}
	s, err := sandbox.Summarize(doc)
	if err != nil {
		return fmt.Sprintf("| %s | failed: %s | | | |", sb.Label, cell(err.Error()))
	}
	return s.Row(sb.Label)
}

// cell keeps a message on one table line.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
