package brief

import (
	"strings"
	"testing"

	"aorta-probe/internal/pyjson"
	"aorta-probe/schema"
)

func TestBriefTuning(t *testing.T) {
	mi300 := func(devs ...schema.TuningDeviation) schema.Tuning {
		return schema.Tuning{Family: schema.Str("MI300"), Product: schema.Str("MI300X"), Checked: 18, Deviations: devs,
			Node: pyjson.Map[any]{{Key: "numa_balancing", Value: int64(1)}}}
	}
	dev := func(setting, scope, value, guide string) schema.TuningDeviation {
		return schema.TuningDeviation{Setting: setting, Scope: scope, Value: value, GuideValue: guide, Guide: "AMD Instinct MI300X system optimization"}
	}
	for _, tc := range []struct {
		name string
		t    schema.Tuning
		want string
	}{
		{"as the guides say", mi300(), "  tuning:    as AMD's guides recommend (18 checked)"},
		{"two off", mi300(dev("numa_balancing", "node", "1", "0"), dev("gpus.vis_vram_total_bytes", "0000:a4:00.0", "256", "all")),
			"  tuning:    2 off AMD's MI300X guides (18 checked): numa_balancing=1 (guide: 0), gpus.vis_vram_total_bytes=256 on 0000:a4:00.0 (guide: all)"},
		{"family only", schema.Tuning{Family: schema.Str("MI350"), Deviations: []schema.TuningDeviation{dev("cmdline_pci_bfsort", "node", "absent", "pci=bfsort")}},
			"  tuning:    1 off AMD's MI350 guides (0 checked): cmdline_pci_bfsort=absent (guide: pci=bfsort)"},
		{"no Instinct GPU", schema.Tuning{Node: pyjson.Map[any]{{Key: "a", Value: 1}, {Key: "b"}}, NodeUnread: pyjson.Map[string]{{Key: "b", Value: "absent"}}},
			"  tuning:    no Instinct GPU seen: 1 node setting recorded, nothing judged"},
		{"not read", schema.Tuning{Reason: schema.Str("not finished (deadline of 1s exceeded)")}, "  tuning:    not read: not finished (deadline of 1s exceeded)"},
		// A value of the machine's is shown, never obeyed.
		{"escaped", mi300(dev("kernel_release", "node", "6.8\x1b[31m", "5.18")),
			`  tuning:    1 off AMD's MI300X guides (18 checked): kernel_release=6.8\x1b[31m (guide: 5.18)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &schema.Snapshot{Provenance: &schema.Provenance{Tuning: &tc.t}}
			if got := briefLine(t, s, "tuning:"); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
	if s := (&schema.Snapshot{Provenance: &schema.Provenance{}}); strings.Contains(Brief(s), "tuning:") {
		t.Error("a document without the block has a tuning line")
	}
}
