package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"aorta-probe/internal/pyjson"
)

// TestRealDebianROCm runs the built binary on this machine with Debian's
// ROCm userspace installed (.ci/run installs rocminfo rocm-smi hipcc
// libamdhip64-5 librocsparse0 libhsa-runtime64-1 rocm-device-libs: HIP 5.2
// under /usr, docs/rocm-roots.md#every-install-rocm_installs). The
// document must name the /usr install with version 5.2 from dpkg, and the
// loader's libamdhip64 must be that install's; the 40 aorta keys keep the
// Python probe's answer (no /opt/rocm: root_source none, version null) and
// equal those of a replay of a capture of the same machine, so the new
// block changed nothing in them and everything it read is in the capture.
func TestRealDebianROCm(t *testing.T) {
	t.Parallel()
	bin := e2eBinary(t)
	for _, p := range []string{"/usr/bin/hipconfig", "/usr/bin/rocm_agent_enumerator", "/var/lib/dpkg/info/libamdhip64-5.list"} {
		if _, err := os.Stat(p); err != nil {
			skipOrFail(t, "Debian's ROCm packages are not installed ("+p+" missing): apt-get install rocminfo rocm-smi hipcc libamdhip64-5 librocsparse0 libhsa-runtime64-1 rocm-device-libs")
		}
	}
	if _, err := os.Stat("/opt/rocm"); err == nil {
		t.Skip("/opt/rocm exists here: the rocm block would describe it, not the Debian case")
	}
	dir := t.TempDir()
	env := []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "LC_ALL=C"}
	archive := filepath.Join(dir, "node.txtar")
	code, live, errs := runProbe(t, bin, dir, env, "capture", archive, "-", "--no-python")
	if code != 0 {
		t.Fatalf("capture exit %d: %s", code, errs)
	}
	m := checkDocument(t, live)

	// The 40 keys say what the Python probe says on this machine.
	for path, want := range map[string]any{"rocm.root": "/opt/rocm", "rocm.root_source": "none", "rocm.version": nil} {
		if got := field(m, path); got != want {
			t.Errorf("%s = %v, want %v (the Python probe's answer)", path, got, want)
		}
	}
	if v, _ := field(m, "hip.version").(string); !strings.HasPrefix(v, "5.2.") {
		t.Errorf("hip.version %q, want hipconfig's 5.2.x", v)
	}

	// rocm_installs names the /usr install, version 5.2 from dpkg.
	installs, _ := field(m, "probe_provenance.rocm_installs.installs").([]any)
	var usr pyjson.Map[any]
	for _, in := range installs {
		if in := in.(pyjson.Map[any]); get(in, "root") == "/usr" {
			usr = in
		}
	}
	if usr == nil {
		t.Fatalf("no /usr install in %s", pyjson.Encode(installs))
	}
	if v, _ := get(usr, "version").(string); get(usr, "kind") != "distro" || !strings.HasPrefix(v, "5.2") ||
		get(usr, "version_source") != "dpkg" || get(usr, "described") != false {
		t.Errorf("the /usr install: %s", pyjson.Encode(usr))
	}
	if d := field(m, "probe_provenance.rocm_installs.described"); d != nil {
		t.Errorf("described %v, want null (root_source none)", d)
	}
	loader, _ := field(m, "probe_provenance.rocm_installs.loader").([]any)
	if len(loader) == 0 || get(loader[0].(pyjson.Map[any]), "install") != "/usr" {
		t.Errorf("the loader's libamdhip64 is not the /usr install's: %s", pyjson.Encode(loader))
	}

	// A replay of the capture gives the same 40 keys and the same block.
	code, again, errs := runProbe(t, bin, dir, env, "--root", archive, "-", "--no-python")
	if code != 0 {
		t.Fatalf("replay exit %d: %s", code, errs)
	}
	r := checkDocument(t, again)
	for _, e := range m {
		if e.Key == "captured_at" || e.Key == "probe_provenance" {
			continue
		}
		x, _ := r.Get(e.Key)
		if a, b := string(pyjson.Encode(e.Value)), string(pyjson.Encode(x)); a != b {
			t.Errorf("%s differs between the machine and the replay of its capture:\n%s", e.Key, firstDiff(a, b))
		}
	}
	a := pyjson.Encode(field(m, "probe_provenance.rocm_installs"))
	if b := pyjson.Encode(field(r, "probe_provenance.rocm_installs")); string(a) != string(b) {
		t.Errorf("rocm_installs differs in the replay:\n%s", firstDiff(string(a), string(b)))
	}
	if n := len(m); n != 41 { // the 40 keys and probe_provenance
		t.Errorf("%d top-level keys, want 40 + probe_provenance", n)
	}

	// The brief does not read as no ROCm: its rocm line names the /usr
	// install beside the described /opt/rocm (issue 28).
	code, brief, errs := runProbe(t, bin, dir, env, "--root", archive, "--no-python", "--summary")
	if v, _ := get(usr, "version").(string); code != 0 ||
		!strings.Contains(brief, "\n  rocm:      None (dev: None)  [describes /opt/rocm: no install there; found: /usr distro "+v+"(dpkg)]\n") {
		t.Errorf("the brief's rocm line (exit %d, %s):\n%s", code, errs, brief)
	}
}

func get(m pyjson.Map[any], k string) any { v, _ := m.Get(k); return v }
