package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"aorta-probe/cli/capture"
)

// TestE2EOutDir runs the binary with --out-dir: the document lands in
// DIR/NODE.json and nowhere else, named as TestOutDirPath says; write
// errors are OUT's (exit 1, one line naming DIR/NODE.json); a second
// destination or an empty DIR is a usage error.
func TestE2EOutDir(t *testing.T) {
	t.Parallel()
	bin := e2eBinary(t)
	empty := t.TempDir()
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	probe := func(t *testing.T, extraEnv []string, args ...string) (int, string, string) {
		t.Helper()
		return runProbe(t, bin, empty, append(baseEnv(t), extraEnv...), append([]string{"--no-python", "--root", empty}, args...)...)
	}
	for _, tc := range []struct {
		name string
		env  []string
		file string
	}{
		{"slurm", []string{"SLURMD_NODENAME=node7", "NODE_NAME=k8s-a"}, "node7.json"},
		{"kubernetes", []string{"NODE_NAME=k8s-a"}, "k8s-a.json"},
		{"host name", nil, capture.NodeFileName(host) + ".json"},
		{"escaped", []string{"SLURMD_NODENAME=../up"}, "%2E.%2Fup.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent := t.TempDir()
			dir := filepath.Join(parent, "env")
			os.Mkdir(dir, 0o755)
			code, stdout, stderr := probe(t, tc.env, "--out-dir", dir)
			if code != 0 || stdout != "" || stderr != "" {
				t.Fatalf("exit %d, stdout %.80q, stderr %q", code, stdout, stderr)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 || entries[0].Name() != tc.file {
				t.Fatalf("wrote %v, want only %s", entries, tc.file)
			}
			if above, _ := os.ReadDir(parent); len(above) != 1 {
				t.Errorf("wrote beside DIR: %v", above)
			}
			b, err := os.ReadFile(filepath.Join(dir, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(string(b), "\n") {
				t.Error("the file ends in a newline, as OUT does not")
			}
			checkDocument(t, string(b))
		})
	}

	t.Run("write errors", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "file")
		os.WriteFile(file, nil, 0o644)
		busy := t.TempDir()
		os.Mkdir(filepath.Join(busy, "node7.json"), 0o755)
		missing := filepath.Join(t.TempDir(), "missing")
		for _, tc := range []struct{ dir, errno string }{
			{missing, "[Errno 2] No such file or directory"},
			{file, "[Errno 20] Not a directory"},
			{busy, "[Errno 21] Is a directory"},
		} {
			out := filepath.Join(tc.dir, "node7.json")
			code, stdout, stderr := probe(t, []string{"SLURMD_NODENAME=node7"}, "--out-dir", tc.dir)
			want := "aorta-probe: failed to write " + out + ": " + tc.errno + ": '" + out + "'\n"
			if code != 1 || stdout != "" || stderr != want {
				t.Errorf("exit %d, stdout %.80q, stderr %q; want exit 1 and %q", code, stdout, stderr, want)
			}
		}
		if _, err := os.Stat(missing); err == nil {
			t.Error("the missing directory was created")
		}
	})

	t.Run("usage errors", func(t *testing.T) {
		dir := t.TempDir()
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"--out-dir", dir, "x.json"}, "give one destination: OUT, -o or --out-dir"},
			{[]string{"-o", "x.json", "--out-dir=" + dir}, "give one destination: OUT, -o or --out-dir"},
			{[]string{"--out-dir", dir, "-"}, "give one destination: OUT, -o or --out-dir"},
			{[]string{"--out-dir", ""}, "option --out-dir requires a non-empty directory"},
			{[]string{"--out-dir"}, "option --out-dir requires a value"},
		} {
			code, stdout, stderr := probe(t, nil, tc.args...)
			if code != 2 || stdout != "" || stderr != "aorta-probe: "+tc.want+"\nTry 'aorta-probe --help' for help.\n" {
				t.Errorf("%q: exit %d, stdout %.80q, stderr %q; want exit 2 and %q", tc.args, code, stdout, stderr, tc.want)
			}
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("a usage error wrote %v", entries)
		}
		code, stdout, _ := probe(t, nil, "--help")
		if code != 0 || !strings.Contains(stdout, "\n  --out-dir DIR ") {
			t.Errorf("--help: exit %d, no --out-dir line", code)
		}
	})
}
