package sandbox

import (
	"bytes"
	"context"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	_ "aorta-probe/internal/golden" // -update, for go test ./... -update
)

func TestCheckStaticRejects(t *testing.T) {
	dir := t.TempDir()
	notELF := filepath.Join(dir, "script")
	if err := os.WriteFile(notELF, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := CheckStatic(notELF); err == nil {
		t.Errorf("CheckStatic(%s) = nil for a shell script", notELF)
	}
	if err := CheckStatic(filepath.Join(dir, "missing")); err == nil {
		t.Errorf("CheckStatic of a missing file = nil")
	}
	// A dynamically linked system binary, where there is one.
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on $PATH")
	}
	sh, _ = filepath.EvalSymlinks(sh)
	f, err := elf.Open(sh)
	if err != nil {
		t.Skipf("%s is not ELF: %v", sh, err)
	}
	defer f.Close()
	dynamic := false
	for _, p := range f.Progs {
		dynamic = dynamic || p.Type == elf.PT_INTERP
	}
	if !dynamic {
		t.Skipf("%s is static here", sh)
	}
	err = CheckStatic(sh)
	if err == nil || !strings.Contains(err.Error(), "dynamically linked") {
		t.Errorf("CheckStatic(%s) = %v, want a dynamically linked error", sh, err)
	}
}

func TestSummarize(t *testing.T) {
	tests := []struct {
		name, doc, row, err string
	}{
		{name: "not json", doc: "{", err: "decoding env.json"},
		{name: "no provenance", doc: `{"container_detected": false}`, err: "no probe_provenance"},
		{
			name: "chroot-like",
			doc: `{"schema_version": "1.16", "container_detected": true, "probe_namespace": null,
			"runtime_context": {"type": "baremetal"}, "partial_reasons": ["x"],
			"probe_provenance": {"isolation": {"verdict": "isolated", "signals": [
			{"name": "dockerenv", "fired": false}, {"name": "procfs_missing", "fired": true}]}}}`,
			row: "| chroot | true | baremetal | `null` | procfs_missing |",
		},
		{
			name: "nothing fired",
			doc: `{"container_detected": false, "probe_namespace": "mnt:0123456789abcdef",
			"runtime_context": {"type": "baremetal"},
			"probe_provenance": {"isolation": {"verdict": "no_signal", "signals": [{"name": "dockerenv", "fired": false}]}}}`,
			row: "| chroot | false | baremetal | `mnt:0123456789abcdef` | (none) |",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Summarize([]byte(tt.doc))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Row("chroot"); got != tt.row {
				t.Errorf("Row = %q\nwant  %q", got, tt.row)
			}
		})
	}
}

func TestAllKeysUnique(t *testing.T) {
	seen := map[string]bool{}
	all := All()
	if all[0].Key != "host" {
		t.Errorf("first case is %q, want host", all[0].Key)
	}
	for _, sb := range all {
		if seen[sb.Key] {
			t.Errorf("duplicate key %q", sb.Key)
		}
		seen[sb.Key] = true
		if _, ok := Lookup(sb.Key); !ok {
			t.Errorf("Lookup(%q) failed", sb.Key)
		}
	}
}

// TestMissingSaysNeedsRoot: a root-only case whose tool lives in /usr/sbin
// (not on a user's $PATH) must say "needs root", not "not found".
func TestMissingSaysNeedsRoot(t *testing.T) {
	notFound := func(string) (string, error) { return "", exec.ErrNotFound }
	found := func(p string) (string, error) { return "/usr/sbin/" + p, nil }
	chroot, _ := Lookup("chroot")
	tests := []struct {
		name   string
		sb     Sandbox
		euid   int
		lookup func(string) (string, error)
		want   string
	}{
		{"user, tool off PATH", chroot, 1000, notFound, "chroot (binary only): needs root (euid is 1000)"},
		{"user, tool on PATH", chroot, 1000, found, "chroot (binary only): needs root (euid is 1000)"},
		{"root, tool missing", chroot, 0, notFound, "chroot (binary only): chroot not found on $PATH"},
		{"root, tool present", chroot, 0, found, ""},
		{"no root needed, tool missing", Sandbox{Label: "proot", Tools: []string{"proot"}}, 1000, notFound, "proot: proot not found on $PATH"},
	}
	for _, tt := range tests {
		if got := tt.sb.missing(tt.euid, tt.lookup); got != tt.want {
			t.Errorf("%s: missing = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestBinaryRoot: the root the chroot and nspawn cases run in holds the
// binary (executable, same bytes) and the empty directories asked for.
func TestBinaryRoot(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "built")
	if err := os.WriteFile(bin, []byte("\x7fELF fake"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := binaryRoot(bin, dir, "out", "usr", "etc")
	if err != nil {
		t.Fatal(err)
	}
	if root != filepath.Join(dir, "root") {
		t.Errorf("root %s", root)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "aorta-probe etc out usr" {
		t.Errorf("root holds %s", got)
	}
	fi, err := os.Stat(filepath.Join(root, ProbeName))
	if err != nil || fi.Mode().Perm()&0o100 == 0 {
		t.Errorf("binary: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, ProbeName)); string(b) != "\x7fELF fake" {
		t.Errorf("binary bytes %q", b)
	}
	if _, err := binaryRoot(filepath.Join(dir, "missing"), t.TempDir()); err == nil {
		t.Errorf("no error for a missing binary")
	}
}

// TestInRoot: a case run in a root of its own gets the root with the
// binary, out/ and its directories, set up before argv runs, and returns
// what argv wrote to out/env.json.
func TestInRoot(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "built")
	if err := os.WriteFile(bin, []byte("binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	run := inRoot([]string{"etc"}, func(root string) error {
		return os.WriteFile(filepath.Join(root, "etc", "os-release"), []byte("ID=x\n"), 0o644)
	}, func(root string) []string {
		// The "document" proves each part: the binary, etc/ set up, out/.
		return []string{"sh", "-c", `cat "$0/aorta-probe" "$0/etc/os-release" >"$0/out/env.json"`, root}
	})
	var log bytes.Buffer
	doc, err := run(context.Background(), bin, dir, &log)
	if err != nil || string(doc) != "binaryID=x\n" {
		t.Errorf("doc %q, err %v\n%s", doc, err, log.String())
	}
	fails := inRoot(nil, nil, func(string) []string { return []string{"true"} })
	if _, err := fails(context.Background(), bin, t.TempDir(), &log); err == nil || !strings.Contains(err.Error(), "wrote no document") {
		t.Errorf("no document: err %v", err)
	}
}
