package e2e

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"aorta-probe/internal/fakeroot"
	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/testtree"
)

// gpusInNamespace puts a scenario's /sys/class and /sys/devices on tmpfs
// mounts in a private mount namespace (so the host's sysfs is untouched),
// then runs Debian's rocm_agent_enumerator and the probe there: both read
// the real kfd topology of the fixture through the paths they read on a
// real node. $1 is the expanded scenario, $2 the output folder, $3 the
// probe.
const gpusInNamespace = `set -e
mount --make-rprivate /
mount -t tmpfs aorta-gpus /sys/class
mount -t tmpfs aorta-gpus /sys/devices
cp -a "$1/sys/class/." /sys/class/
cp -a "$1/sys/devices/." /sys/devices/
/usr/bin/rocm_agent_enumerator > "$2/enumerator.txt"
PATH=/usr/bin:/bin "$3" --no-python "$2/env.json"
`

// TestGPUsAgreeWithRocmAgentEnumerator runs the built binary and Debian's
// real rocm_agent_enumerator (package rocminfo, a Python script reading
// /sys/class/kfd/kfd/topology/nodes/*/properties) over each real kfd
// capture in testdata/roots/gpus-*.txtar, each in a private mount
// namespace (unshare -m, tmpfs over /sys/class and /sys/devices). The gfx
// targets the enumerator prints must be exactly the probe's: each
// device's gfx_target once per partition, and the same in gpu_arch (which
// runs the same enumerator); the counts and hives are the issue's.
func TestGPUsAgreeWithRocmAgentEnumerator(t *testing.T) {
	t.Parallel()
	bin := e2eBinary(t)
	if os.Geteuid() != 0 {
		skipOrFail(t, "needs root to mount tmpfs over /sys/class in a private mount namespace")
	}
	if _, err := os.Stat("/usr/bin/rocm_agent_enumerator"); err != nil {
		skipOrFail(t, "Debian's rocm_agent_enumerator is not installed (/usr/bin/rocm_agent_enumerator missing): apt-get install rocminfo")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		skipOrFail(t, "unshare (util-linux) is not on PATH")
	}
	if out, err := exec.Command(unshare, "-m", "/bin/sh", "-c", "mount --make-rprivate / && mount -t tmpfs aorta-gpus /sys/class").CombinedOutput(); err != nil {
		skipOrFail(t, fmt.Sprintf("cannot mount tmpfs over /sys/class in a new mount namespace here (%v: %s)", err, strings.TrimSpace(string(out))))
	}
	for _, tc := range []struct {
		scenario        string
		physical, parts int
		gfx             string
		hives           []int
		compute, memory any
	}{
		{"gpus-mi308x-cpx", 8, 32, "gfx942", []int{8}, "CPX", "NPS1"},
		{"gpus-mi210-xgmi-pcie", 8, 8, "gfx90a", []int{4, 4}, nil, nil},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			root, out := testtree.TempDir(t), t.TempDir()
			if _, err := fakeroot.Materialize(filepath.Join("testdata/roots", tc.scenario+".txtar"), root); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(unshare, "-m", "/bin/sh", "-c", gpusInNamespace, "sh", root, out, bin)
			cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + out, "LC_ALL=C"}
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%v: %s", err, b)
			}
			enum, err := os.ReadFile(filepath.Join(out, "enumerator.txt"))
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, l := range strings.Fields(string(enum)) {
				if l != "gfx000" {
					want = append(want, l)
				}
			}
			doc, err := os.ReadFile(filepath.Join(out, "env.json"))
			if err != nil {
				t.Fatal(err)
			}
			m := checkDocument(t, string(doc))
			g, _ := field(m, "probe_provenance.gpus").(pyjson.Map[any])
			if g == nil {
				t.Fatalf("no probe_provenance.gpus in %.400s", doc)
			}
			var got []string
			devices, _ := get(g, "devices").([]any)
			for _, d := range devices {
				d := d.(pyjson.Map[any])
				parts, _ := get(d, "partitions").([]any)
				for range parts {
					got = append(got, fmt.Sprint(get(d, "gfx_target")))
				}
			}
			slices.Sort(want)
			slices.Sort(got)
			if len(want) == 0 || !slices.Equal(got, want) {
				t.Errorf("rocm_agent_enumerator: %v\nprobe_provenance.gpus: %v", want, got)
			}
			// gpu_arch ran the same enumerator in the same namespace.
			if n := field(m, "gpu_arch.agent_count"); fmt.Sprint(n) != fmt.Sprint(len(want)) {
				t.Errorf("gpu_arch.agent_count %v, the enumerator printed %d targets", n, len(want))
			}
			var hives []int
			hl, _ := get(g, "hives").([]any)
			for _, h := range hl {
				members, _ := get(h.(pyjson.Map[any]), "devices").([]any)
				hives = append(hives, len(members))
			}
			gfx := map[string]bool{}
			for _, x := range got {
				gfx[x] = true
			}
			summary := fmt.Sprintf("physical=%v partitions=%v gfx=%v hives=%v compute=%v memory=%v",
				get(g, "physical_count"), get(g, "partition_count"), slices.Sorted(maps.Keys(gfx)), hives,
				get(g, "compute_partition"), get(g, "memory_partition"))
			wantSummary := fmt.Sprintf("physical=%d partitions=%d gfx=[%s] hives=%v compute=%v memory=%v",
				tc.physical, tc.parts, tc.gfx, tc.hives, tc.compute, tc.memory)
			if summary != wantSummary {
				t.Errorf("got  %s\nwant %s", summary, wantSummary)
			}
			t.Logf("enumerator: %d × %s; %s", len(want), strings.Join(slices.Compact(slices.Clone(want)), ","), summary)
		})
	}
}
