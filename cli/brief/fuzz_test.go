package brief

import (
	"strings"
	"testing"

	"aorta-probe/internal/visible"
	"aorta-probe/schema"
)

// hostileSnapshot is the not-captured document with the MI210 gpus block
// (mi210) and s in the strings a machine writes: every GPU's
// vbios_version, product_name, memory partition and link speed, the
// first one's render-node reason, the kernel release, the ROCm version
// and a partial reason.
func hostileSnapshot(s string) *schema.Snapshot {
	snap := schema.NotCaptured()
	g := mi210()
	for i := range g.Devices {
		d := &g.Devices[i]
		d.VBIOSVersion, d.ProductName, d.MemoryPartition = schema.Str(s), schema.Str(s), schema.Str(s)
		d.PCIe.CurrentLinkSpeed = schema.Str(s)
	}
	g.Devices[0].DRMDevice, g.Devices[0].DRMReason = nil, schema.Str("/sys/class/drm/renderD128/device is "+s)
	snap.Provenance = &schema.Provenance{GPUs: g}
	snap.Host.KernelRelease, snap.ROCm.Version = schema.Str(s), schema.Str(s)
	snap.Partial, snap.PartialReasons = true, []string{"rocm.version: " + s + " is no version"}
	return snap
}

// FuzzSummary (issue 32.2): whatever the machine's strings hold, the
// summary has the lines of the same document with plain strings, one
// rocm: line, and no raw control or bidi character.
func FuzzSummary(f *testing.F) {
	for _, s := range []string{
		"113-D67301-063\x1b]0;owned\x07\x1b[2J\r\n  rocm:      FORGED 9.9", "AMD Instinct MI210\u009b2J\u202eX",
		"NPS1\x1b[31m", "16.0 GT/s PCIe\x07\r", "\xff", "\u2028\u2029\u0085", "",
	} {
		f.Add(s)
	}
	want := strings.Count(Summary(hostileSnapshot("x")), "\n")
	f.Fuzz(func(t *testing.T, s string) {
		out := Summary(hostileSnapshot(s))
		if n := strings.Count(out, "\n"); n != want {
			t.Fatalf("%q: %d lines, want %d:\n%s", s, n, want, out)
		}
		if n := strings.Count(out, "\n  rocm:"); n != 1 {
			t.Fatalf("%q: %d rocm: lines:\n%s", s, n, out)
		}
		if i := strings.IndexFunc(out, func(r rune) bool { return r != '\n' && !visible.Shown(r) }); i >= 0 {
			t.Fatalf("%q: a raw control or bidi character at byte %d:\n%s", s, i, out)
		}
	})
}
