package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"aorta-probe/internal/fakeroot"
	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/testtree"
)

// Bounds the built binary must keep over every hostile GPU tree (issue
// 32 item 4, docs/hardware.md "Bounds"): peak resident memory and the
// size of the document. Neither is a timing; the times are logged.
const (
	hostilePeakRSS = 64 << 20
	hostileDocMax  = 4 << 20
)

// TestE2EHostileGPUBounds runs the binary with --root over the hostile
// GPU trees of fakeroot.HostileGPUs, each inside the documented bounds
// but large, and checks what it costs: peak RSS (wait4's ru_maxrss) at
// most 64 MiB, the document at most 4 MiB, and the cap that stopped the
// listing or the reads named where the block says why. Before the caps
// counted every entry, the shared-render tree took 64 s, 12 GB and a
// 3.4 GB document (docs/design-notes.md, "Bounds on a hostile tree").
func TestE2EHostileGPUBounds(t *testing.T) {
	t.Parallel()
	bin := e2eBinary(t)
	for _, tc := range []struct {
		name string
		tree fakeroot.HostileGPUs
		// want is in the block's reason or a device's drm_reason.
		want string
		// read and capped: devices whose amdgpu attributes were read,
		// and devices past the cap on DRM devices.
		read, capped int
	}{
		{"nodes/ of 5000 non-node names", fakeroot.HostileGPUs{GPUs: 2, NonNodes: 5000},
			"/sys/class/kfd/kfd/topology/nodes holds more than 1024 entries: not read (the cap on kfd nodes)", 0, 0},
		{"fw_version of FIFOs and directories", fakeroot.HostileGPUs{GPUs: 4, FIFOs: 300, Dirs: 30},
			"/sys/class/drm/renderD128/device/fw_version holds more than 128 entries: not read (the cap on firmware files)", 4, 0},
		{"fw_version of 5000 files", fakeroot.HostileGPUs{GPUs: 1, Firmware: 5000},
			"/sys/class/drm/renderD128/device/fw_version holds more than 128 entries: not read (the cap on firmware files)", 1, 0},
		{"1024 GPUs on one render device, page-sized values", fakeroot.HostileGPUs{GPUs: 1024, SharedRender: true, Firmware: 128, Page: true},
			"/sys/class/drm/renderD128/device: amdgpu values over 4096 bytes in all: vbios_version and the rest not kept (the cap on amdgpu values)", 64, 960},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := testtree.TempDir(t)
			if err := tc.tree.Build(root); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "env.json")
			p := startProbe(t, bin, t.TempDir(), baseEnv(t), "--root", root, "--no-python", out)
			start := time.Now()
			if code := p.wait(t); code != 0 {
				t.Fatalf("exit %d: %s", code, p.stderr.String())
			}
			wall := time.Since(start)
			rss := p.cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
			fi, err := os.Stat(out)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%v wall, peak RSS %.1f MiB, document %.2f MiB", wall.Round(time.Millisecond), float64(rss)/(1<<20), float64(fi.Size())/(1<<20))
			if rss > hostilePeakRSS {
				t.Errorf("peak RSS %d bytes, more than %d", rss, hostilePeakRSS)
			}
			if fi.Size() > hostileDocMax {
				t.Errorf("document of %d bytes, more than %d", fi.Size(), hostileDocMax)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			checkGPUReasons(t, checkDocument(t, string(b)), tc.want, tc.read, tc.capped)
		})
	}
}

// checkGPUReasons checks that want is the gpus block's reason or some
// device's drm_reason, and counts the devices whose amdgpu attributes
// were read (drm_device set) and those past the cap on DRM devices.
func checkGPUReasons(t *testing.T, doc pyjson.Map[any], want string, read, capped int) {
	t.Helper()
	found := field(doc, "probe_provenance.gpus.reason") == want
	devices, _ := field(doc, "probe_provenance.gpus.devices").([]any)
	gotRead, gotCapped := 0, 0
	for _, d := range devices {
		m, _ := d.(pyjson.Map[any])
		if v, _ := m.Get("drm_device"); v != nil {
			gotRead++
		}
		v, _ := m.Get("drm_reason")
		r, _ := v.(string)
		found = found || r == want
		if strings.HasSuffix(r, "(the cap on DRM devices)") {
			gotCapped++
		}
	}
	if !found {
		t.Errorf("no reason %q; block reason %v, %d devices", want, field(doc, "probe_provenance.gpus.reason"), len(devices))
	}
	if gotRead != read || gotCapped != capped {
		t.Errorf("%d devices read and %d past the cap, want %d and %d", gotRead, gotCapped, read, capped)
	}
}

// memoryHog is a fake rocm_agent_enumerator that grows as the real one
// does over an endless properties line: 1 MiB after 1 MiB, touched, to
// 1 GiB, then it would print a target. Arguments are unexpected.
const memoryHog = `package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) > 1 {
		fmt.Fprintln(os.Stderr, "fake rocm_agent_enumerator: unexpected arguments", os.Args[1:])
		os.Exit(3)
	}
	var keep [][]byte
	for range 1024 {
		b := make([]byte, 1<<20)
		for i := range b {
			b[i] = 1
		}
		keep = append(keep, b)
	}
	fmt.Println("gfx942", len(keep))
}
`

// buildGoTool compiles the one-file Go program src into dir as name.
func buildGoTool(t *testing.T, dir, name, src string) {
	t.Helper()
	srcDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(srcDir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	goTool, err := exec.LookPath("go") // as the binary is built (static_build_test.go)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goTool, "build", "-o", filepath.Join(dir, name), "main.go")
	cmd.Dir, cmd.Env = srcDir, append(os.Environ(), "CGO_ENABLED=0", "GO111MODULE=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", name, err, out)
	}
}

// TestE2EToolMemoryLimit: a tool that grows past its memory limit
// (RLIMIT_DATA 256 MiB, docs/design-notes.md "A tool's memory") is
// stopped there, not at its timeout, and its reason says the limit
// stopped it; the probe's own peak RSS stays small. Without the limit
// the fake would print a target and gpu_arch would hold it.
func TestE2EToolMemoryLimit(t *testing.T) {
	t.Parallel()
	bin := e2eBinary(t)
	tools := t.TempDir()
	buildGoTool(t, tools, "rocm_agent_enumerator", memoryHog)
	code, stdout, stderr := runProbe(t, bin, t.TempDir(), baseEnv(t, tools), "--no-python", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	doc := checkDocument(t, stdout)
	var got []string
	for _, r := range reasonsOf(doc) {
		if strings.HasPrefix(r, "gpu_arch:") {
			got = append(got, r)
		}
	}
	want := "gpu_arch: rocm_agent_enumerator exited 2 (aorta-probe: stopped by its memory limit (RLIMIT_DATA 256 MiB; peak RSS "
	if len(got) != 1 || !strings.HasPrefix(got[0], want) || !strings.HasSuffix(got[0], " MiB))") {
		t.Errorf("gpu_arch reasons %q, want one starting %q", got, want)
	}
	if v := field(doc, "gpu_arch.agent_count"); v != nil {
		t.Errorf("gpu_arch.agent_count %v: the fake ran to its end", v)
	}
}

// TestE2EInterpreterLoopOneLevel: AORTA_PROBE_PYTHON names a wrapper that
// starts the probe (or a copy of it) without the helper-run marker, as
// sudo or `env -i` would: the probe it starts runs no interpreter (one of
// its ancestors is this binary, or a copy), so the wrapper runs exactly
// once, and the outer document names the copy's answer. Before the
// ancestor check the chain grew until the deadline (20 copies at once
// after 3 s). The deadline only bounds a regression.
func TestE2EInterpreterLoopOneLevel(t *testing.T) {
	bin := e2eBinary(t)
	dir := t.TempDir()
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(dir, "aorta-probe-copy")
	if err := testtree.WriteFile(cp, data, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, wrapper string }{
		{"the binary, marker dropped", `exec env -u ` + "AORTA_PROBE_HELPER_OF" + ` "` + bin + `" "$@"`},
		{"a copy, environment cleared", `exec env -i AORTA_PROBE_PYTHON="$AORTA_PROBE_PYTHON" E2E_PIDS="$E2E_PIDS" PATH="$PATH" "` + cp + `" "$@"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tools := fakeTools(t, map[string]string{"python-wrapper": "#!/bin/sh\necho $$ >> \"$E2E_PIDS\"\n" + tc.wrapper + "\n"})
			pids, env := pidFile(t, baseEnv(t))
			env = append(env, "AORTA_PROBE_PYTHON="+filepath.Join(tools, "python-wrapper"))
			code, stdout, stderr := runProbe(t, bin, dir, env, "--deadline", "8s", "-")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if n := len(readPids(t, pids)); n != 1 {
				t.Errorf("the wrapper ran %d times, want once", n)
			}
			want := "python_version: interpreter " + filepath.Join(tools, "python-wrapper") + " printed no complete helper document (an aorta-probe document: the interpreter runs a copy of this probe, which ran no interpreter itself)"
			var got []string
			for _, r := range reasonsOf(checkDocument(t, stdout)) {
				if strings.HasPrefix(r, "python_version:") {
					got = append(got, r)
				}
			}
			if len(got) != 1 || got[0] != want {
				t.Errorf("python_version reasons %q, want %q", got, want)
			}
		})
	}
}
