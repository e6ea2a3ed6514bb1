package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"aorta-probe/internal/fakeroot"
	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/testtree"
)

// TestDiffRealPlaces runs the static binary in real places and diffs the
// documents with the binary's own `diff`: two runs on the host are the same
// place (exit 0); a FROM-scratch podman container is a different place
// (TestDiffTruthTable has the other real pairs); a --root scenario with another ROCm, seen through this
// host's /proc and /dev, is another root on the same machine and boot
// (its root identity the one a chroot into it has); a
// document cut down to schema 1.7 cannot tell; garbage is trouble (exit 2,
// one line). Sandbox cases skip where the tool or root is missing, and
// fail instead under AORTA_PROBE_REQUIRE_SANDBOXES=1 (docs/triage.md).
// The cases after the host's own run in parallel.
func TestDiffRealPlaces(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the static binary")
	}
	bin := buildStaticProbe(t)
	dir := t.TempDir()
	run := func(t *testing.T, key string) string {
		t.Helper()
		scratch, err := os.MkdirTemp(dir, key+"-")
		if err != nil {
			t.Fatal(err)
		}
		_, doc := sandboxDoc(t, key, bin, scratch)
		p := filepath.Join(dir, key+".json")
		if err := os.WriteFile(p, doc, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	diff := func(t *testing.T, a, b string, wantCode int, wantFirst string) string {
		t.Helper()
		code, out, errs := runCmd(t, exec.Command(bin, "diff", a, b))
		first, _, _ := strings.Cut(out, "\n")
		if code != wantCode || !strings.HasPrefix(first, wantFirst) {
			t.Errorf("diff %s %s: exit %d, first line %q; want %d, %q\n%s%s", filepath.Base(a), filepath.Base(b), code, first, wantCode, wantFirst, out, errs)
		}
		for i, l := range strings.Split(out, "\n") {
			if len([]rune(l)) > 80 && !valueLine(l) || strings.Contains(l, "\x1b") {
				t.Errorf("line %d: %q", i+1, l)
			}
		}
		return out
	}

	var host string
	t.Run("same place", func(t *testing.T) {
		host = run(t, "host")
		again := filepath.Join(dir, "host-again.json")
		cmd := exec.Command(bin, again)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		diff(t, host, again, 0, "same place")
	})
	if host == "" {
		t.Fatal("no host document")
	}
	t.Run("podman FROM scratch", func(t *testing.T) {
		t.Parallel()
		diff(t, host, run(t, "podman"), 1, "different places")
	})
	t.Run("root with another ROCm", func(t *testing.T) {
		t.Parallel()
		if os.Geteuid() != 0 {
			skipOrFail(t, fmt.Sprintf("needs root to bind-mount /proc and /dev into the root (euid is %d)", os.Geteuid()))
		}
		root := filepath.Join(dir, "root")
		if _, err := fakeroot.Materialize(filepath.Join("testdata", "roots", "rocm-classic-7.2.txtar"), root); err != nil {
			t.Fatal(err)
		}
		// The same place: this host's own /proc and /dev, bind-mounted
		// (a symbolic link to them would be resolved inside the root, as
		// every read under --root is), and its container markers; only
		// the filesystem (ROCm) is another.
		for _, l := range []string{"proc", "dev"} {
			target := filepath.Join(root, l)
			if err := os.MkdirAll(target, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mount("/"+l, target, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
				t.Fatalf("bind-mount /%s on %s: %v", l, target, err)
			}
			t.Cleanup(func() { syscall.Unmount(target, syscall.MNT_DETACH) })
		}
		for _, m := range []string{".dockerenv", "run/.containerenv"} {
			if _, err := os.Stat("/" + m); err == nil {
				os.MkdirAll(filepath.Dir(filepath.Join(root, m)), 0o755)
				if err := os.WriteFile(filepath.Join(root, m), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		scen := filepath.Join(dir, "scenario.json")
		if out, err := exec.Command(bin, "--root", root, scen).CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		// The root is part of the place (docs/isolation.md#placement-identity):
		// the same machine, boot and namespaces, but another root, whose
		// identity is what a chroot into it sees.
		out := diff(t, host, scen, 1, "different places: same machine and boot, another root")
		if !strings.Contains(out, "rocm.version\n") {
			t.Errorf("rocm.version not among the differences:\n%s", out)
		}
		bin2 := filepath.Join(root, "aorta-probe")
		if b, err := os.ReadFile(bin); err != nil || testtree.WriteFile(bin2, b, 0o755) != nil {
			t.Fatalf("copy the binary into the root: %v", err)
		}
		if out, err := exec.Command("chroot", root, "/aorta-probe", "/chroot.json", "--no-python").CombinedOutput(); err != nil {
			t.Fatalf("chroot: %v\n%s", err, out)
		}
		rootOf := func(p string) string {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			v, err := pyjson.Decode(string(b))
			if err != nil {
				t.Fatal(err)
			}
			r, _ := v.(pyjson.Map[any]).Get("probe_provenance")
			id, _ := r.(pyjson.Map[any]).Get("identity")
			rid, _ := id.(pyjson.Map[any]).Get("root")
			return string(pyjson.Encode(rid))
		}
		if a, b := rootOf(scen), rootOf(filepath.Join(root, "chroot.json")); a != b || !strings.Contains(a, "STATX_MNT_ID") {
			t.Errorf("--root ROOT's identity.root %s, chroot ROOT's %s: want equal", a, b)
		}
	})
	t.Run("schema 1.7", func(t *testing.T) {
		t.Parallel()
		b, err := os.ReadFile(host)
		if err != nil {
			t.Fatal(err)
		}
		v, err := pyjson.Decode(string(b))
		if err != nil {
			t.Fatal(err)
		}
		var old pyjson.Map[any]
		for _, e := range v.(pyjson.Map[any]) {
			switch e.Key {
			case "probe_provenance", "amdgpu_driver", "container_detected", "execution_context", "probe_namespace",
				"buck_invocation", "torchrec", "tensile_catalog", "miopen_catalog", "rocfft_catalog", "therock":
				continue
			case "schema_version":
				e.Value = "1.7"
			}
			old = append(old, e)
		}
		p := filepath.Join(dir, "schema-1.7.json")
		os.WriteFile(p, pyjson.Encode(old), 0o644)
		out := diff(t, p, host, 1, "cannot tell")
		if !strings.Contains(out, "probe_namespace is absent in A (an older schema)") || !strings.Contains(out, "A: absent") {
			t.Errorf("absent keys not reported:\n%s", out)
		}
	})
	t.Run("garbage", func(t *testing.T) {
		t.Parallel()
		p := filepath.Join(dir, "garbage.json")
		os.WriteFile(p, []byte("<html>oops</html>\n"), 0o644)
		code, out, errs := runCmd(t, exec.Command(bin, "diff", host, p))
		want := "aorta-probe diff: " + p + ": not JSON: Expecting value: line 1 column 1 (char 0)\n"
		if code != 2 || out != "" || errs != want {
			t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, out, errs, want)
		}
	})
}
