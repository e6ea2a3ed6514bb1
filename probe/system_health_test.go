package probe

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyjson"
)

func TestParseRDHCJSON(t *testing.T) {
	for _, tc := range []struct {
		name, in, want, err string
	}{
		{"object", `{"rdhc_version": "1.4.0", "t": 1e5, "n": 12.50, "big": 123456789012345678901234567890}`,
			"{\n  \"rdhc_version\": \"1.4.0\",\n  \"t\": 100000.0,\n  \"n\": 12.5,\n  \"big\": 123456789012345678901234567890\n}", ""},
		{"empty object is success", "{}", "{}", ""},
		{"any value", "[1, NaN, -Infinity]", "[\n  1,\n  NaN,\n  -Infinity\n]", ""},
		{"last duplicate wins", `{"a": 1, "b": 2, "a": 3}`, "{\n  \"a\": 3,\n  \"b\": 2\n}", ""},
		{"empty file", "", "", "Expecting value: line 1 column 1 (char 0)"},
		{"bom", "\ufeff{}", "", "Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)"},
		{"invalid start byte", "{\"a\": \"\xff\"}", "", "'utf-8' codec can't decode byte 0xff in position 7: invalid start byte"},
		{"invalid continuation", "ab\xe2\x82x", "", "'utf-8' codec can't decode bytes in position 2-3: invalid continuation byte"},
		{"invalid first continuation", "\xe2x", "", "'utf-8' codec can't decode byte 0xe2 in position 0: invalid continuation byte"},
		{"surrogate", "\xed\xa0\x80", "", "'utf-8' codec can't decode byte 0xed in position 0: invalid continuation byte"},
		{"truncated at end", "ab\xe2\x82", "", "'utf-8' codec can't decode bytes in position 2-3: unexpected end of data"},
		{"truncated single", "ab\xf0", "", "'utf-8' codec can't decode byte 0xf0 in position 2: unexpected end of data"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := parseRDHCJSON([]byte(tc.in))
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := string(pyjson.Encode(v)); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func FuzzParseRDHCJSON(f *testing.F) {
	f.Add([]byte(`{"a": [1, 2.0, "x"]}`))
	f.Add([]byte("\xe2\x82"))
	f.Fuzz(func(t *testing.T, in []byte) {
		v, err := parseRDHCJSON(in)
		if err == nil {
			_ = pyjson.Encode(v)
		} else if utf8.Valid(in) != !strings.HasPrefix(err.Error(), "'utf-8' codec") {
			t.Fatalf("utf-8 error %v for valid=%v", err, utf8.Valid(in))
		}
	})
}

func TestSystemHealthHostile(t *testing.T) {
	const rdhc = "echo 'must run via sudo' >&2; exit 99"
	for _, tc := range []struct{ name, sudo, reason string }{
		{"never exits", rdhcSudo("exec sleep 600"), "system_health: rdhc exceeded 30s timeout"},
		{"sudo refuses", rdhcSudo("echo 'sudo: a password is required' >&2; exit 1"), "system_health: rdhc exited 1 (stderr: sudo: a password is required)"},
		{"silent refusal", rdhcSudo("exit 1"), "system_health: rdhc exited 1 (no stderr; likely sudo-n unavailable (see docs/env-probe.md#installing-rdhc))"},
		{"dies by SIGSEGV", rdhcSudo("echo 'x' >&2\necho '   ' >&2\nkill -SEGV $$"), "system_health: rdhc exited -11 (stderr: x)"},
		{"writes nothing", rdhcSudo("exit 0"), "system_health: rdhc output not parseable (Expecting value: line 1 column 1 (char 0))"},
		{"garbage", rdhcSudo(`echo '{"a": 1,}' > "$4"`), "system_health: rdhc output not parseable (Expecting property name enclosed in double quotes: line 1 column 9 (char 8))"},
		{"megabytes of stderr", rdhcSudo("yes 'sudo: a password is required' | head -c 6000000 >&2; exit 1"), "system_health: rdhc exited 1 (stderr: sudo: a password is required)"},
		// Out of bounds (bounds.go): written as it is, the document would
		// be one its readers cannot load, or huge.
		{"nested 300 deep", rdhcSudo(`{ printf '%.0s[' $(seq 300); printf 1; printf '%.0s]' $(seq 300); } > "$4"`), "system_health: rdhc output nested deeper than 32 levels; not recorded"},
		{"a 2 MB string", rdhcSudo(`{ printf '{"a": "'; head -c 2000000 /dev/zero | tr '\0' a; printf '"}'; } > "$4"`), "system_health: rdhc output larger than 1048576 bytes; not recorded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hang []string
			if strings.HasSuffix(tc.reason, "timeout") {
				hang = []string{"rdhc"}
			}
			s, root := toolState(t, map[string]string{"rdhc": rdhc, "sudo": tc.sudo}, hang...)
			if v := collectSystemHealth(s); v.value != nil {
				t.Errorf("system_health = %s, want null", pyjson.Encode(v.value))
			}
			wantReasons(t, s, tc.reason)
			if left, _ := filepath.Glob(filepath.Join(root, "tmp", "*")); len(left) != 0 {
				t.Errorf("temp files left behind: %q", left)
			}
		})
	}
	t.Run("rdhc removes its output", func(t *testing.T) {
		s, root := toolState(t, map[string]string{"rdhc": rdhc, "sudo": rdhcSudo(`rm "$4"`)})
		collectSystemHealth(s)
		tmp := filepath.Join(root, "tmp", "rdhc_quick_test0000.json")
		wantReasons(t, s, "system_health: rdhc output not parseable ([Errno 2] No such file or directory: '"+tmp+"')")
	})
	// rdhc swaps its output file for a FIFO with a writer that never
	// writes, or for a link to /dev/zero: the read is refused at once,
	// and the file (whatever it now is) is removed.
	for name, swap := range map[string]string{
		"rdhc swaps its output for a FIFO":    `rm "$4"; mkfifo "$4"; sleep 600 > "$4" & exit 0`,
		"rdhc swaps its output for /dev/zero": `rm "$4"; ln -s /dev/zero "$4"`,
	} {
		t.Run(name, func(t *testing.T) {
			s, root := toolState(t, map[string]string{"rdhc": rdhc, "sudo": rdhcSudo(swap)})
			within(t, "system_health", func() { collectSystemHealth(s) })
			tmp := filepath.Join(root, "tmp", "rdhc_quick_test0000.json")
			wantReasons(t, s, "system_health: rdhc output not parseable ([Errno 22] Invalid argument: '"+tmp+"')")
			if left, _ := filepath.Glob(filepath.Join(root, "tmp", "*")); len(left) != 0 {
				t.Errorf("temp files left behind: %q", left)
			}
		})
	}
	t.Run("no sudo", func(t *testing.T) {
		s, root := toolState(t, map[string]string{"rdhc.py": rdhc})
		collectSystemHealth(s)
		wantReasons(t, s, "system_health: failed to invoke rdhc ([Errno 2] No such file or directory: 'sudo') (see docs/env-probe.md#installing-rdhc)")
		if got := s.commands[0].Argv; got[3] != filepath.Join(root, "bin", "rdhc.py") {
			t.Errorf("rdhc.py is looked up first and run by absolute path: %q", got)
		}
	})
	t.Run("success: 0600 file, verbatim JSON, removed", func(t *testing.T) {
		s, root := toolState(t, map[string]string{"rdhc": rdhc, "sudo": rdhcSudo(`m=$(stat -c %a "$4"); printf '{"mode": "%s", "x": 1.50, "l": []}' "$m" > "$4"`)})
		v := collectSystemHealth(s)
		wantReasons(t, s)
		if got, want := string(pyjson.Encode(v.value)), "{\n  \"mode\": \"600\",\n  \"x\": 1.5,\n  \"l\": []\n}"; got != want {
			t.Errorf("system_health = %s, want %s", got, want)
		}
		if left, _ := filepath.Glob(filepath.Join(root, "tmp", "*")); len(left) != 0 {
			t.Errorf("temp files left behind: %q", left)
		}
	})
	t.Run("temp dir candidates", func(t *testing.T) {
		s, root := toolState(t, nil)
		env := map[string]string{"TMPDIR": filepath.Join(root, "missing"), "TMP": filepath.Join(root, "tmp")}
		s.opt.Env = func(k string) (string, bool) { v, ok := env[k]; return v, ok }
		p, err := createRDHCTemp(s)
		if err != nil {
			t.Fatal(err)
		}
		defer os.Remove(p)
		if want := filepath.Join(root, "tmp", "rdhc_quick_test0000.json"); p != want {
			t.Errorf("temp file %s, want %s", p, want)
		}
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 || fi.Size() != 0 {
			t.Errorf("temp file mode/size: %v %v", fi, err)
		}
		// A name clash moves on to the next name, as mkstemp does.
		q, err := createRDHCTemp(s)
		if err != nil {
			t.Fatal(err)
		}
		defer os.Remove(q)
		if filepath.Base(q) != "rdhc_quick_test0001.json" {
			t.Errorf("second temp file %s", q)
		}
	})
	t.Run("no usable temp dir message", func(t *testing.T) {
		if got, want := noTempDirError("No usable temporary directory found in ['/x', '/tmp']").Error(), "[Errno 2] No usable temporary directory found in ['/x', '/tmp']"; got != want {
			t.Errorf("%q", got)
		}
	})
}

// TestRDHCTempRemovedWhenAbandoned: the rdhc temp file is removed when
// Collect returns even if the system_health probe was abandoned at the
// deadline and has not reached its own cleanup.
func TestRDHCTempRemovedWhenAbandoned(t *testing.T) {
	t.Parallel()
	_, root := toolState(t, map[string]string{"rdhc": "exit 99", "sudo": "exit 99"})
	release := make(chan struct{})
	defer close(release)
	env := map[string]string{"TMPDIR": filepath.Join(root, "tmp")}
	snap := Collect(context.Background(), Options{
		Seams: machine.Seams{
			Root: root, Path: []string{filepath.Join(root, "bin")}, Cwd: "/", Runner: stuckRDHC{release},
			Env: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		},
		Now: fixedNow, Deadline: 300 * time.Millisecond,
	})
	if !snap.Provenance.DeadlineHit {
		t.Fatal("the deadline did not cut system_health")
	}
	if left, _ := filepath.Glob(filepath.Join(root, "tmp", "*")); len(left) != 0 {
		t.Errorf("temp files left behind when Collect returned: %q", left)
	}
}
