// Command testtimings reads `go test -json` output and says where the
// suite spends its time (scripts/test-timings.sh runs it):
//
//   - per package: the test binary's wall time, the sum of its sequential
//     top-level tests (they run one after another), the wall time of its
//     parallel phase (the top-level tests that called t.Parallel, run
//     together after the sequential ones), and how many tests passed,
//     failed and skipped;
//   - the slowest tests, top-level and subtests, marked "par" when they
//     called t.Parallel (their time excludes the wait before they ran);
//   - the critical path of each slow package: its sequential top-level
//     tests, longest first;
//   - every skipped test with the reason it gave.
//
// With -list it prints instead one "PACKAGE TEST STATUS" line per test,
// sorted: two such lists diffed show whether two runs covered the same
// tests (a subtest named after a t.TempDir has its random digits replaced
// by N; one named after the checkout's path still differs between two
// checkouts).
//
//	go run ./scripts/testtimings [-n 25] [-list] [FILE.json ...]   (stdin when no file)
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Time    time.Time
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

// test is what the events say of one test.
type test struct {
	pkg, name string
	status    string // pass, fail, skip, or "" when it never ended
	elapsed   float64
	parallel  bool      // it called t.Parallel (a pause event)
	cont, end time.Time // when it resumed after t.Parallel, when it ended
	output    []string
}

// pkg is what the events say of one package.
type pkg struct {
	name    string
	status  string
	elapsed float64
	tests   []*test
}

func main() {
	n := flag.Int("n", 25, "how many of the slowest tests to print")
	list := flag.Bool("list", false, "print one sorted PACKAGE TEST STATUS line per test and nothing else")
	flag.Parse()
	var readers []io.Reader
	for _, f := range flag.Args() {
		file, err := os.Open(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer file.Close()
		readers = append(readers, file)
	}
	if len(readers) == 0 {
		readers = append(readers, os.Stdin)
	}
	pkgs, err := read(io.MultiReader(readers...))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *list {
		printList(os.Stdout, pkgs)
		return
	}
	report(os.Stdout, pkgs, *n)
}

// read folds the event stream into packages and tests, in the order they
// first appear.
func read(r io.Reader) ([]*pkg, error) {
	var order []*pkg
	pkgs := map[string]*pkg{}
	tests := map[[2]string]*test{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(b) == 0 || b[0] != '{' {
			continue // build output mixed in by the shell
		}
		var e event
		if err := json.Unmarshal(b, &e); err != nil {
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
		if e.Package == "" {
			continue
		}
		p := pkgs[e.Package]
		if p == nil {
			p = &pkg{name: e.Package}
			pkgs[e.Package] = p
			order = append(order, p)
		}
		if e.Test == "" {
			switch e.Action {
			case "pass", "fail", "skip":
				p.status, p.elapsed = e.Action, e.Elapsed
			}
			continue
		}
		k := [2]string{e.Package, e.Test}
		t := tests[k]
		if t == nil {
			t = &test{pkg: e.Package, name: e.Test}
			tests[k] = t
			p.tests = append(p.tests, t)
		}
		switch e.Action {
		case "pause":
			t.parallel = true
		case "cont":
			t.cont = e.Time
		case "pass", "fail", "skip":
			t.status, t.elapsed, t.end = e.Action, e.Elapsed, e.Time
		case "output":
			t.output = append(t.output, e.Output)
		}
	}
	return order, sc.Err()
}

// tempDigits are the random digits of a t.TempDir name inside a test name.
var tempDigits = regexp.MustCompile(`(Test[A-Za-z0-9_]*?)[0-9]{5,}/`)

func topLevel(t *test) bool { return !strings.Contains(t.name, "/") }

func printList(w io.Writer, pkgs []*pkg) {
	var lines []string
	for _, p := range pkgs {
		for _, t := range p.tests {
			status := t.status
			if status == "" {
				status = "unfinished"
			}
			lines = append(lines, p.name+" "+tempDigits.ReplaceAllString(t.name, "${1}N/")+" "+status)
		}
	}
	slices.Sort(lines)
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}

// phases is a package's sequential sum and parallel-phase wall time.
func phases(p *pkg) (serial, parallel float64) {
	var first, last time.Time
	for _, t := range p.tests {
		if !topLevel(t) {
			continue
		}
		if !t.parallel {
			serial += t.elapsed
			continue
		}
		if !t.cont.IsZero() && (first.IsZero() || t.cont.Before(first)) {
			first = t.cont
		}
		if t.end.After(last) {
			last = t.end
		}
	}
	if !first.IsZero() && last.After(first) {
		parallel = last.Sub(first).Seconds()
	}
	return serial, parallel
}

func report(w io.Writer, pkgs []*pkg, n int) {
	byTime := slices.Clone(pkgs)
	slices.SortStableFunc(byTime, func(a, b *pkg) int { return cmpDesc(a.elapsed, b.elapsed) })
	fmt.Fprintf(w, "## packages (test binary wall time; serial = sum of sequential top-level tests; parallel = wall time of the t.Parallel phase)\n\n")
	fmt.Fprintf(w, "| package | status | wall s | serial s | parallel s | pass | fail | skip |\n| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	var total float64
	for _, p := range byTime {
		total += p.elapsed
		if len(p.tests) == 0 {
			continue
		}
		serial, parallel := phases(p)
		var pass, fail, skip int
		for _, t := range p.tests {
			switch t.status {
			case "pass":
				pass++
			case "fail", "":
				fail++
			case "skip":
				skip++
			}
		}
		fmt.Fprintf(w, "| %s | %s | %.1f | %.1f | %.1f | %d | %d | %d |\n", p.name, p.status, p.elapsed, serial, parallel, pass, fail, skip)
	}
	fmt.Fprintf(w, "\nsum of package wall times: %.1f s (packages run up to GOMAXPROCS at a time)\n", total)

	var all []*test
	for _, p := range pkgs {
		all = append(all, p.tests...)
	}
	slices.SortStableFunc(all, func(a, b *test) int { return cmpDesc(a.elapsed, b.elapsed) })
	fmt.Fprintf(w, "\n## the %d slowest tests\n\n| s | par | status | package | test |\n| ---: | --- | --- | --- | --- |\n", n)
	for i, t := range all {
		if i == n {
			break
		}
		fmt.Fprintf(w, "| %.2f | %s | %s | %s | %s |\n", t.elapsed, mark(t.parallel), t.status, short(t.pkg), t.name)
	}

	fmt.Fprintf(w, "\n## critical path: sequential top-level tests of the packages over 5 s, longest first (over 0.5 s)\n")
	for _, p := range byTime {
		if p.elapsed < 5 {
			break
		}
		serial, parallel := phases(p)
		fmt.Fprintf(w, "\n%s: wall %.1f s = sequential %.1f s + parallel phase %.1f s (+ set-up)\n", p.name, p.elapsed, serial, parallel)
		var seq []*test
		for _, t := range p.tests {
			if topLevel(t) && !t.parallel {
				seq = append(seq, t)
			}
		}
		slices.SortStableFunc(seq, func(a, b *test) int { return cmpDesc(a.elapsed, b.elapsed) })
		for _, t := range seq {
			if t.elapsed < 0.5 {
				break
			}
			fmt.Fprintf(w, "  %7.2f  %s\n", t.elapsed, t.name)
		}
	}

	fmt.Fprintf(w, "\n## skipped\n\n")
	skipped := 0
	for _, p := range pkgs {
		for _, t := range p.tests {
			if t.status != "skip" {
				continue
			}
			skipped++
			fmt.Fprintf(w, "- %s %s: %s\n", short(p.name), t.name, skipReason(t.output))
		}
	}
	if skipped == 0 {
		fmt.Fprintf(w, "(none)\n")
	}
}

// skipReason is the last output line that is not the test's own
// "--- SKIP" / "=== RUN" framing.
func skipReason(out []string) string {
	for i := len(out) - 1; i >= 0; i-- {
		l := strings.TrimSpace(out[i])
		if l == "" || strings.HasPrefix(l, "---") || strings.HasPrefix(l, "===") {
			continue
		}
		return l
	}
	return "(no reason printed)"
}

func short(p string) string {
	if i := strings.IndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return "(root)"
}

func mark(b bool) string {
	if b {
		return "par"
	}
	return ""
}

func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}
