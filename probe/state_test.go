package probe

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyjson"
	"aorta-probe/schema"
)

// TestAwaitOnlyAbove: a probe gets the typed block of a row above its own,
// and awaiting its own row or one below it panics (the probe's recover
// reports it) instead of risking a deadlock under few workers.
func TestAwaitOnlyAbove(t *testing.T) {
	s := &state{collector: newCollector(context.Background(), Options{Seams: machine.Seams{Cwd: "/"}})}
	finishBlock(s, theRockBlock, theRock{block: schema.TheRock{ManifestPath: "m"}}, "hipblaslt")
	if tr, ok := await(s, theRockBlock); !ok || tr.block.ManifestPath != "m" {
		t.Errorf("await therock from hipblaslt: %+v %v", tr, ok)
	}
	for _, tc := range []struct{ as, want string }{
		{"therock", "probe: therock awaits therock, which is not above it in the table"},
		{"rocm", "probe: rocm awaits hipblaslt, which is not above it in the table"},
		{"test", "probe: test awaits hipblaslt, which is not above it in the table"},
	} {
		func() {
			defer func() {
				if got := fmt.Sprint(recover()); got != tc.want {
					t.Errorf("%s: panic %q, want %q", tc.as, got, tc.want)
				}
			}()
			s.name = tc.as
			if tc.as == "therock" {
				await(s, theRockBlock)
			} else {
				await(s, hipBLASLtBlock)
			}
		}()
	}
}

// barrierRunner lifts every command's timeout to barrierWait+10 s: the
// barrier tools below wait for each other, and a 5 s spec timeout must not
// be what ends a wait on a loaded machine.
type barrierRunner struct{}

func (barrierRunner) Run(ctx context.Context, c machine.Command) machine.Result {
	c.Timeout = (barrierWait + 10) * time.Second
	return machine.ExecRunner{}.Run(ctx, c)
}

// barrier is a tool body that records its start in starts and then waits
// until at least n commands have started. Run one after another, the
// first tool of a wave would wait alone: it gives up after barrierWait
// seconds and fails loudly, which shows in the reasons.
func barrier(starts string, n int, then string) string {
	return `echo "$0 $*" >> '` + starts + `'
i=0
while [ "$(wc -l < '` + starts + `')" -lt ` + strconv.Itoa(n) + ` ]; do
  i=$((i+1)); [ $i -gt ` + strconv.Itoa(barrierWait*50) + ` ] && { echo "started alone: $(wc -l < '` + starts + `') of ` + strconv.Itoa(n) + `" >&2; exit 97; }
  sleep 0.02
done
` + then
}

// TestNICsRunConcurrently runs the NIC block with tools that each wait for
// the others of their wave: the three vendors' lspci; then, per vendor,
// ibv_devices and rdma plus, for AINIC, four nicctl queries (3×2+4 = 10);
// then the nicctl profile and dcqcn. Had any wave run one command after
// another, its first command would wait alone and fail. The reasons and the
// command records must still come in the spec's order.
func TestNICsRunConcurrently(t *testing.T) {
	dir := t.TempDir()
	starts := filepath.Join(dir, "starts")
	os.WriteFile(starts, nil, 0o644)
	const uuid = "42424650-4c32-3533-3530-314130000000"
	scripts := map[string]string{
		"lspci":       barrier(starts, 3, `echo "c1:00.0 Ethernet controller"`),
		"ibv_devices": barrier(starts, 9, "printf '    device\\n    ------\\n    ionic_0\\n'"),
		"rdma":        barrier(starts, 9, `[ "$1" = link ] || exit 99; echo "link ionic_0/1 state ACTIVE physical_state LINK_UP netdev enp1"`),
		"nicctl":      "exit 99",
		"sudo": `[ "$1 $2 $3" = "-n -E nicctl" ] || exit 99; shift 3
case "$*" in
"--version"|"show version firmware --json"|"show version host-software --json") ` + barrier(starts, 9, `echo 1.117.5-a-74`) + `;;
"show card --detail") ` + barrier(starts, 9, `echo "Id : `+uuid+`"`) + `;;
"show card profile -c ` + uuid + `"|"show dcqcn --roce-device ionic_0 --profile-id 1") ` + barrier(starts, 11, `echo ok`) + `;;
*) exit 99;;
esac`,
	}
	s, root := toolState(t, scripts)
	s.opt.Runner = barrierRunner{}
	drv := filepath.Join(root, "sys/bus/pci/drivers/ionic")
	os.MkdirAll(drv, 0o755)
	os.MkdirAll(filepath.Join(root, "sys/class/infiniband/ionic_0/device"), 0o755)
	if err := os.Symlink(drv, filepath.Join(root, "sys/class/infiniband/ionic_0/device/driver")); err != nil {
		t.Fatal(err)
	}
	n := collectNICs(s)
	// Only nicctl's absence of parsable JSON and the other vendors' empty
	// RDMA views are expected; no tool may have waited alone.
	for _, r := range s.reasons {
		if strings.Contains(r, "exited 97") || strings.Contains(r, "started alone") {
			t.Errorf("a command ran alone: %s", r)
		}
	}
	if len(s.reasons) != 0 {
		t.Errorf("reasons %q", s.reasons)
	}
	if n.AINIC.NICDetail == nil || n.AINIC.AINICDetail == nil || derefOr(n.AINIC.AINICDetail.Card.UUID, "") != uuid {
		t.Fatalf("ainic = %s", pyjson.Encode(n.AINIC))
	}
	b, _ := os.ReadFile(starts)
	// ibv_devices and rdma link are asked by each vendor and run once
	// (run_once.go): 15 asks, 11 starts.
	if got := strings.Count(string(b), "\n"); got != 11 {
		t.Errorf("%d commands started, want 11:\n%s", got, b)
	}
	// The records are in the spec's order: vendor by vendor, lspci first,
	// then ibv_devices, rdma, nicctl's identity, then profile and dcqcn.
	var got []string
	for _, c := range s.commands {
		a := append([]string{filepath.Base(c.Argv[0])}, c.Argv[1:]...)
		if a[0] == "sudo" {
			a = a[3:]
		}
		got = append(got, strings.Join(a, " "))
	}
	want := []string{
		"lspci -d 1dd8:1002", "ibv_devices", "rdma link",
		"nicctl --version", "nicctl show version firmware --json", "nicctl show version host-software --json", "nicctl show card --detail",
		"nicctl show card profile -c " + uuid, "nicctl show dcqcn --roce-device ionic_0 --profile-id 1",
		"lspci -d 14e4:1760", "ibv_devices", "rdma link",
		"lspci -d 15b3:1021", "ibv_devices", "rdma link",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("command records\n got %q\nwant %q", got, want)
	}
	// In probe_provenance.commands each shared run is listed once, where
	// it was first asked, naming its three askers.
	var merged []string
	for _, c := range mergeShared(s.commands) {
		line := strings.Join(append([]string{filepath.Base(c.Argv[0])}, c.Argv[1:]...), " ")
		if c.SharedBy != nil {
			line += " shared_by " + strings.Join(*c.SharedBy, ",")
		}
		merged = append(merged, line)
	}
	if len(merged) != 11 || merged[1] != "ibv_devices shared_by test,test,test" || merged[2] != "rdma link shared_by test,test,test" {
		t.Errorf("merged records %q", merged)
	}
}

// TestHIPRunsConcurrently: the two combined hipconfig runs wait for each
// other, then the five single runs that follow combined runs which did not
// split (docs/hardware.md#hip--hipconfig) wait for each other.
func TestHIPRunsConcurrently(t *testing.T) {
	starts := filepath.Join(t.TempDir(), "starts")
	os.WriteFile(starts, nil, 0o644)
	s, _ := toolState(t, map[string]string{"hipconfig": `if [ $# -gt 1 ]; then
` + barrier(starts, 2, `echo "v$1"`) + `
else
` + barrier(starts, 7, `echo "v$1"`) + `
fi`})
	s.opt.Runner = barrierRunner{}
	h := collectHIP(s)
	wantReasons(t, s)
	if derefOr(h.Version, "") != "v--version" || derefOr(h.CppConfig, "") != "v--cpp_config" || derefOr(h.Platform, "") != "v--platform" {
		t.Errorf("hip = %s", pyjson.Encode(h))
	}
	var flags []string
	for _, c := range s.commands {
		flags = append(flags, strings.Join(c.Argv[1:], " "))
	}
	if strings.Join(flags, ",") != "--cpp_config --platform --runtime,--compiler --platform --version,--cpp_config,--runtime,--compiler,--version,--platform" {
		t.Errorf("command records out of order: %q", flags)
	}
}

const barrierWait = 20 // seconds a tool waits for the others
