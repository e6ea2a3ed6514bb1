package e2e

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"aorta-probe/internal/fusetest"
	"aorta-probe/internal/pyjson"
	"aorta-probe/probe"
)

// wedgedSys is a /sys with one GPU (kfd node 1, a CPU as node 0) whose
// DRM device renderD128 links to its PCI device 0000:03:00.0, as amdgpu
// lays it out, with two of the tuning block's settings there (its
// performance level and its hwmon power cap, reached through
// bus/pci/devices); the hang names the one entry whose operation is
// never answered.
func wedgedSys(hangPath, hangOp string) fusetest.Tree {
	const dev = "devices/pci0000:00/0000:03:00.0"
	t := fusetest.Tree{
		"class/kfd/kfd/topology/nodes/0/properties": {Data: "simd_count 0\ngfx_target_version 0\n"},
		"class/kfd/kfd/topology/nodes/1/properties": {Data: "simd_count 304\ngfx_target_version 90402\n" +
			"location_id 768\ndomain 0\ndrm_render_minor 128\nunique_id 42\n"},
		"class/drm/renderD128/device":              {Mode: fs.ModeSymlink, Data: "../../../" + dev},
		dev + "/vbios_version":                     {Data: "113-WEDGE-001\n"},
		dev + "/fw_version/mec_fw_version":         {Data: "0x00000071\n"},
		"bus/pci/devices/0000:03:00.0":             {Mode: fs.ModeSymlink, Data: "../../../" + dev},
		dev + "/power_dpm_force_performance_level": {Data: "auto\n"},
		dev + "/hwmon/hwmon3/power1_cap":           {Data: "750000000\n"},
	}
	if hangPath != "" {
		n, ok := t[hangPath]
		if !ok {
			n = fusetest.Node{Mode: fs.ModeDir} // a directory the paths imply
		}
		n.Hang = hangOp
		t[hangPath] = n
	}
	return t
}

// TestWedgedGPUReadExits runs the built binary over a root whose /sys is a
// FUSE file system served by this test (internal/fusetest), in which one
// read of the gpus block is never answered, as a wedged GPU's sysfs or a
// hung FUSE daemon never answers (issue 32, docs/hardware.md, "A read that
// never returns"), or one of the tuning block's reads of the GPU (its
// amdgpu pm and hwmon files, made by the same reader after the gpus
// block). The probe, its stdout and stderr pipes held by this test as a
// $(...) or a Buck2 action holds them, must exit at its deadline with the
// document written and both blocks cut, and the pipes
// must reach end of file: no process left behind holds them. The child
// left blocked in the kernel must go once the server goes. One case binds
// the FUSE kfd over /sys/class/kfd in a private mount namespace and
// probes the live root instead (liveKFD). Without /dev/fuse or root it
// skips (fails under AORTA_PROBE_REQUIRE_SANDBOXES=1).
func TestWedgedGPUReadExits(t *testing.T) {
	t.Parallel()
	bin := e2eBinary(t)
	if why := fusetest.Available(); why != "" {
		skipOrFail(t, why)
	}
	for _, tc := range []struct {
		name, path, op string
		wantHung       string // the request the server was left with
		live           bool   // the FUSE kfd bound over /sys/class/kfd, no --root
		orphan         bool   // live, with a rocm_agent_enumerator that leaves a reader of it
	}{
		{name: "answered"},
		{"properties read", "class/kfd/kfd/topology/nodes/1/properties", "read", "read class/kfd/kfd/topology/nodes/1/properties", false, false},
		{"properties lookup", "class/kfd/kfd/topology/nodes/1/properties", "lookup", "lookup class/kfd/kfd/topology/nodes/1/properties", false, false},
		{"nodes listing", "class/kfd/kfd/topology/nodes", "read", "read class/kfd/kfd/topology/nodes", false, false},
		{"device readlink", "class/drm/renderD128/device", "read", "read class/drm/renderD128/device", false, false},
		{"vbios_version read", "devices/pci0000:00/0000:03:00.0/vbios_version", "read", "read devices/pci0000:00/0000:03:00.0/vbios_version", false, false},
		{"fw_version listing", "devices/pci0000:00/0000:03:00.0/fw_version", "read", "read devices/pci0000:00/0000:03:00.0/fw_version", false, false},
		{"tuning performance level read", "devices/pci0000:00/0000:03:00.0/power_dpm_force_performance_level", "read", "read devices/pci0000:00/0000:03:00.0/power_dpm_force_performance_level", false, false},
		{"tuning power cap read", "devices/pci0000:00/0000:03:00.0/hwmon/hwmon3/power1_cap", "read", "read devices/pci0000:00/0000:03:00.0/hwmon/hwmon3/power1_cap", false, false},
		{"tuning hwmon listing", "devices/pci0000:00/0000:03:00.0/hwmon", "read", "read devices/pci0000:00/0000:03:00.0/hwmon", false, false},
		{"live properties read", "class/kfd/kfd/topology/nodes/1/properties", "read", "read class/kfd/kfd/topology/nodes/1/properties", true, false},
		{"live tool orphan", "class/kfd/kfd/topology/nodes/1/properties", "read", "read class/kfd/kfd/topology/nodes/1/properties", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.live {
				// The live cases probe "/", as their readers show in
				// their argv (readers): one at a time, before the others.
				t.Parallel()
			}
			root := t.TempDir()
			sys := filepath.Join(root, "sys")
			if err := os.Mkdir(sys, 0o755); err != nil {
				t.Fatal(err)
			}
			srv, err := fusetest.Mount(sys, wedgedSys(tc.path, tc.op))
			if err != nil {
				skipOrFail(t, fmt.Sprintf("cannot mount a FUSE file system here: %v", err))
			}
			served := true
			defer func() {
				if served {
					srv.Close()
				}
			}()
			// The reader's pid, taken while its argv is readable: once
			// killed, a thread other than the first may be the one the
			// kernel holds, and a process whose first thread exited shows
			// no argv.
			probed, name := root, bin
			args := []string{"-", "--root", root, "--no-python", "--deadline", "1s"}
			if tc.live {
				probed = "/"
				tools := ""
				if tc.orphan {
					tools = fakeTools(t, map[string]string{"rocm_agent_enumerator": orphanEnumerator})
				}
				name, args = liveKFD(t, sys, bin, tools)
			}
			found := make(chan []int, 1)
			go func() {
				select {
				case <-srv.Heard():
					// The first request may be a tool's (the orphan case's
					// rocm_agent_enumerator) before the reader has started.
					pids := readers(probed)
					for i := 0; len(pids) == 0 && i < 100; i++ {
						time.Sleep(20 * time.Millisecond)
						pids = readers(probed)
					}
					found <- pids
				case <-time.After(2 * time.Minute):
					found <- nil
				}
			}()
			doc, stderr, err := runHeld(name, args...)
			if err != nil {
				t.Fatalf("%v\nstderr: %s\nthe server was left with %q", err, stderr, srv.Hung())
			}
			got := wedgedDoc(t, doc)
			g, tu := got.Provenance.GPUs, got.Provenance.Tuning
			hung := srv.Hung()
			if tc.path == "" {
				if g.PhysicalCount == nil || *g.PhysicalCount != 1 || len(g.Devices) != 1 ||
					g.Devices[0].VBIOS == nil || *g.Devices[0].VBIOS != "113-WEDGE-001" || len(hung) > 0 {
					t.Fatalf("gpus over the answering tree: %s (unanswered: %q)", pyjson.EncodeCompact(g), hung)
				}
				if tu.Reason != nil || len(tu.GPUs) != 1 || setting(tu.GPUs[0].Settings, "performance_level") != "auto" ||
					setting(tu.GPUs[0].Settings, "power_cap_uw") != "750000000" {
					t.Fatalf("tuning over the answering tree: %s", pyjson.EncodeCompact(tu))
				}
				return
			}
			if !slices.Contains(hung, tc.wantHung) {
				t.Fatalf("the server was left with %q, not %q: the read under test was never made", hung, tc.wantHung)
			}
			if g.PhysicalCount != nil || g.Reason == nil || *g.Reason != "not finished (deadline of 1s exceeded)" || !got.Provenance.DeadlineHit {
				t.Errorf("gpus %s, deadline_hit %v: want the block cut by the deadline", pyjson.EncodeCompact(g), got.Provenance.DeadlineHit)
			}
			if tu.Reason == nil || *tu.Reason != "not finished (deadline of 1s exceeded)" || len(tu.GPUs) != 0 {
				t.Errorf("tuning %s: want the block cut by the deadline", pyjson.EncodeCompact(tu))
			}
			pids := <-found
			if len(liveOnly(pids)) == 0 {
				t.Errorf("no GPU reader of %s left in the kernel (%v): was the read made in the probe?", root, pids)
			}
			t.Logf("left in the kernel: GPU reader %v (threads %s)", pids, procStates(pids))
			served = false
			if err := srv.Close(); err != nil {
				t.Error(err)
			}
			awaitGone(t, pids)
		})
	}
}

// wedgedDocument is what TestWedgedGPUReadExits reads of a document.
type wedgedDocument struct {
	Provenance struct {
		DeadlineHit bool `py:"deadline_hit"`
		GPUs        struct {
			PhysicalCount *int    `py:"physical_count"`
			Reason        *string `py:"reason"`
			Devices       []struct {
				VBIOS *string `py:"vbios_version"`
			} `py:"devices"`
		} `py:"gpus"`
		Tuning struct {
			Reason *string `py:"reason"`
			GPUs   []struct {
				Settings pyjson.Map[any] `py:"settings"`
			} `py:"gpus"`
		} `py:"tuning"`
	} `py:"probe_provenance"`
}

func wedgedDoc(t *testing.T, doc string) wedgedDocument {
	t.Helper()
	var got wedgedDocument
	if err := pyjson.Unmarshal(doc, &got); err != nil {
		t.Fatalf("document: %v\n%s", err, doc)
	}
	return got
}

// setting is a tuning setting's value as text, "<nil>" when null or absent.
func setting(m pyjson.Map[any], name string) string {
	v, _ := m.Get(name)
	return fmt.Sprint(v)
}

// awaitGone waits until the readers pids have no live thread: each goes
// once its read fails. It is no child of this test (the probe that
// started it is gone), so it may stay a zombie of whoever reaps orphans.
func awaitGone(t *testing.T, pids []int) {
	t.Helper()
	for i := 0; len(liveOnly(pids)) > 0; i++ {
		if i == 600 {
			t.Fatalf("GPU reader %v still there 30 s after the FUSE server went (threads %s)", pids, procStates(pids))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// liveKFDScript binds the kfd tree of the FUSE file system $1 over
// /sys/class/kfd in a private mount namespace (on a tmpfs over /sys/class:
// sysfs takes no new directory) and runs the probe $2 on the live root
// there, in place of the shell, with $3 (may be empty) first on its PATH.
const liveKFDScript = `set -e
mount --make-rprivate /
mount -t tmpfs aorta-wedge /sys/class
mkdir /sys/class/kfd
mount --bind "$1/class/kfd" /sys/class/kfd
PATH=$3:/usr/bin:/bin exec "$2" - --no-python --deadline 1s
`

// orphanEnumerator is a rocm_agent_enumerator that leaves, in a session
// of its own (so the kill of its process group misses it), a reader of a
// kfd properties file, then answers: the reader is re-parented to the
// probe, which kills it and must not wait for it while the kernel holds
// it (internal/machine/reap.go).
const orphanEnumerator = `#!/bin/sh
[ $# -eq 0 ] || { echo "rocm_agent_enumerator: unexpected arguments: $*" >&2; exit 99; }
setsid cat /sys/class/kfd/kfd/topology/nodes/1/properties </dev/null >/dev/null 2>&1 &
sleep 0.5
echo gfx942
`

// liveKFD is the command that runs bin with the FUSE kfd under sys bound
// over /sys/class/kfd (liveKFDScript), tools ("" none) first on its PATH;
// it skips (or fails) where unshare is missing or refused.
func liveKFD(t *testing.T, sys, bin, tools string) (name string, args []string) {
	t.Helper()
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		skipOrFail(t, "unshare (util-linux) is not on PATH")
	}
	if out, err := exec.Command(unshare, "-m", "/bin/sh", "-c", "mount --make-rprivate / && mount -t tmpfs aorta-wedge /sys/class").CombinedOutput(); err != nil {
		skipOrFail(t, fmt.Sprintf("cannot mount tmpfs over /sys/class in a new mount namespace here (%v: %s)", err, strings.TrimSpace(string(out))))
	}
	return unshare, []string{"-m", "/bin/sh", "-c", liveKFDScript, "sh", sys, bin, tools}
}

// runHeld runs bin with args the way a $(...) runs it: stdout and stderr
// pipes this process reads to their end, and a third pipe inherited as
// fds 3 and 4. It returns once both ended and
// the process exited, with stdout and stderr; err says which did not
// within two minutes (a process kept from exiting, or a pipe still held
// open by something it left behind), or a non-zero exit.
func runHeld(bin string, args ...string) (stdout, stderr string, err error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C", "HOME=/nonexistent"}
	outR, outW, err := os.Pipe()
	if err != nil {
		return "", "", err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		return "", "", err
	}
	// A pipe passed as fds 3 and 4 without close-on-exec: one a caller
	// leaks to what it runs (a jobserver, a prolog's pipe), held by
	// whatever keeps it.
	extraR, extraW, err := os.Pipe()
	if err != nil {
		return "", "", err
	}
	cmd.Stdout, cmd.Stderr, cmd.ExtraFiles = outW, errW, []*os.File{extraW, extraW}
	if err := cmd.Start(); err != nil {
		return "", "", err
	}
	outW.Close()
	errW.Close()
	extraW.Close()
	type read struct{ b string }
	outC, errC, extraC, exited := make(chan read, 1), make(chan read, 1), make(chan read, 1), make(chan error, 1)
	go func() { b, _ := io.ReadAll(outR); outC <- read{string(b)} }()
	go func() { b, _ := io.ReadAll(errR); errC <- read{string(b)} }()
	go func() { b, _ := io.ReadAll(extraR); extraC <- read{string(b)} }()
	go func() { exited <- cmd.Wait() }()
	bound := time.After(2 * time.Minute)
	fail := func(what string) error {
		cmd.Process.Kill()
		outR.Close()
		errR.Close()
		extraR.Close()
		return fmt.Errorf("no %s two minutes after the start (pid %d)", what, cmd.Process.Pid)
	}
	var werr error
	select {
	case werr = <-exited:
	case <-bound:
		return "", "", fail("exit")
	}
	var out, serr, extra read
	for _, w := range []struct {
		what string
		c    chan read
		r    *read
	}{{"end of stdout", outC, &out}, {"end of stderr", errC, &serr}, {"end of the pipe inherited as fds 3 and 4", extraC, &extra}} {
		select {
		case *w.r = <-w.c:
		case <-bound:
			return "", "", fail(w.what)
		}
	}
	if werr != nil {
		return out.b, serr.b, fmt.Errorf("%s: %v", bin, werr)
	}
	return out.b, serr.b, nil
}

// readers are the pids of the GPU readers started over root: processes
// whose argv is the binary's DetachedGPUsArg and root.
func readers(root string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		argv := strings.Split(string(b), "\x00")
		if len(argv) > 2 && argv[1] == probe.DetachedGPUsArg && argv[2] == root {
			pids = append(pids, pid)
		}
	}
	return pids
}

// procStates is the state letters of each pid's threads ("1234 ZD"),
// from /proc/PID/task/*/stat.
func procStates(pids []int) string {
	var out []string
	for _, pid := range pids {
		out = append(out, strconv.Itoa(pid)+" "+threadStates(pid))
	}
	return strings.Join(out, ", ")
}

// threadStates is the state letter of each thread of pid, "" when it is
// gone.
func threadStates(pid int) string {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, _ := os.ReadDir(dir)
	var states string
	for _, task := range tasks {
		b, err := os.ReadFile(dir + "/" + task.Name() + "/stat")
		if i := bytes.LastIndexByte(b, ')'); err == nil && i >= 0 {
			if f := strings.Fields(string(b[i+1:])); len(f) > 0 {
				states += f[0]
			}
		}
	}
	return states
}

// liveOnly is the pids that still have a thread neither dead nor a
// zombie.
func liveOnly(pids []int) []int {
	return slices.DeleteFunc(slices.Clone(pids), func(pid int) bool {
		return strings.Trim(threadStates(pid), "ZX") == ""
	})
}
