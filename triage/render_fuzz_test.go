package triage

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"aorta-probe/internal/visible"
)

// renderSeeds are the strings of issue 32's hostile trees and values
// issue 31 saw altered.
var renderSeeds = []string{
	"113-D67301-063\x1b]0;owned\x07\x1b[2J\r\n  rocm:      FORGED 9.9",
	"AMD Instinct MI210\u009b2J\u202eX", "NPS1\x1b[31m", "16.0 GT/s PCIe\x07\r",
	"HIP_VISIBLE_DEVICES='0|1`x`'", "```", " lead", "trail ", "", "\"quoted\"", "   ",
	"\xff\xfe", "\u2066\u2028\u0085", "\U000e0001\U000e0001\U000e0001", "sha256:" + strings.Repeat("0123456789abcdef", 4),
}

// str is s as a string Value.
func str(s string) Value { return Value{Present: true, JSON: compact(s)} }

// hostileResult is a diff result of a fixed shape (evidence, three
// placement rows, two differences) with s wherever a document's text
// reaches: names, values, the schema version, prose.
func hostileResult(s string) *Result {
	return &Result{
		A: Side{Name: s, Schema: "1.16", Provenance: true}, B: Side{Name: "b.json", Schema: s},
		Verdict: CannotTell, Level: LevelCannotTell, Grade: GradeNone,
		Because:  []string{"probe_namespace differs"},
		Evidence: []string{"container id " + s},
		Placement: []PlacementField{
			{Key: "probe_namespace", Role: RoleProof, State: StateDiffers, A: str(s), B: Value{Present: true, JSON: "7"}, Says: "namespace " + s},
			{Key: "container_detected", Role: RoleInfo, State: StateSame, A: str(s), B: str(s)},
			{Key: "docker.container_id", Role: RoleInfo, State: StateMissing, A: Value{}, B: str(s)},
		},
		Differences: []Difference{
			{Key: "rocm.version", Group: GroupROCm, A: str(s), B: Value{}, Why: "the ROCm release"},
			{Key: gpusKey + ".devices[].vbios_version", Group: GroupHardware, A: str(s), B: Value{Present: true, JSON: compact([]any{s})}, Why: "the VBIOS"},
			// A tuning deviation: the key and the text quote the document.
			{Key: tuningDeviationsKey + "[" + s + "]", Group: GroupTuning, A: Value{Present: true, JSON: "[]", text: "no deviation"},
				B: Value{Present: true, JSON: compact([]any{s}), text: s + "=1 (guide: " + s + "; " + s + ")"}, Why: "off AMD's guide: " + s},
		},
	}
}

// hostileFleet is a fleet result of a fixed shape (a majority field, an
// outlier with two fields, two groups, a place, a split field, an
// unreadable document) with s wherever a document's text reaches.
func hostileFleet(s string) *FleetResult {
	return &FleetResult{
		Documents: 5000,
		Majority:  []MajorityField{{Key: "rocm.version", Group: GroupROCm, Value: str(s), Count: 4999, Of: 5000}},
		Outliers: []Outlier{{Name: s, Differences: []FleetDifference{
			{Key: "rocm.version", Group: GroupROCm, Value: str(s), Majority: str("7.2.1"), Count: 4999, Of: 5000, Why: "the ROCm release"},
			{Key: gpusKey + ".devices[].vbios_version", Group: GroupHardware, Value: Value{}, Majority: str(s), Count: 4999, Of: 5000, Why: "the VBIOS"},
		}}},
		Groups: []FleetGroup{
			{Size: 2, Values: []FleetGroupValue{{Key: "hip.version", Value: str(s)}}, Names: []string{s, "b.json"}},
			{Size: 1, Values: []FleetGroupValue{{Key: "hip.version", Value: Value{}}}, Names: []string{"c.json"}},
		},
		Places:     []string{"boot " + s},
		Split:      []SplitField{{Key: "host.kernel_release", Distinct: 2, Top: 2, Of: 3}},
		Unreadable: []FleetDoc{{Name: s, Err: errors.New(s + ": not JSON")}},
	}
}

// renderAll is every format of hostileResult(s) and hostileFleet(s).
func renderAll(t *testing.T, s string) map[string]string {
	t.Helper()
	r, f := hostileResult(s), hostileFleet(s)
	out := map[string]string{}
	for name, write := range map[string]func(*bytes.Buffer) error{
		"diff text":   func(b *bytes.Buffer) error { return r.Text(b, RenderOptions{}) },
		"diff colour": func(b *bytes.Buffer) error { return r.Text(b, RenderOptions{Color: true}) },
		"diff md":     func(b *bytes.Buffer) error { return r.Markdown(b) },
		"diff json":   func(b *bytes.Buffer) error { return r.JSON(b) },
		"fleet text":  func(b *bytes.Buffer) error { return f.Text(b, RenderOptions{}) },
		"fleet md":    func(b *bytes.Buffer) error { return f.Markdown(b) },
		"fleet json":  func(b *bytes.Buffer) error { return f.JSON(b) },
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = b.String()
	}
	return out
}

// firstRunes is s cut to n characters (a byte that is not UTF-8 counts as
// one).
func firstRunes(s string, n int) string {
	i := 0
	for ; n > 0 && i < len(s); n-- {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

// FuzzRenderHostile (issue 32.2): whatever a document's strings hold, no
// format of a diff or fleet result carries a raw control or bidi
// character (the colour's own escapes aside), every value stays on its
// line, and the JSON keeps the value exactly: Markdown and JSON have the line count
// of the same shape with a plain value, and so has the text for values of
// up to 3 characters, which fit their lines whatever their escapes.
func FuzzRenderHostile(f *testing.F) {
	for _, s := range renderSeeds {
		f.Add(s)
	}
	lineCounts := func(t *testing.T, s string) map[string]int {
		n := map[string]int{}
		for name, out := range renderAll(t, s) {
			n[name] = strings.Count(out, "\n")
		}
		return n
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := lineCounts(t, "x")
		for name, out := range renderAll(t, s) {
			if name == "diff colour" {
				out = strings.NewReplacer(ansiBold, "", ansiRed, "", ansiGreen, "", ansiYellow, "", ansiReset, "").Replace(out)
			}
			if i := strings.IndexFunc(out, func(r rune) bool { return r != '\n' && !visible.Shown(r) }); i >= 0 {
				t.Fatalf("%s of %q: a raw control or bidi character at byte %d:\n%s", name, s, i, out)
			}
			if !utf8.ValidString(out) {
				t.Fatalf("%s of %q is not UTF-8", name, s)
			}
			if n := strings.Count(out, "\n"); !strings.Contains(name, "text") && !strings.Contains(name, "colour") && n != want[name] {
				t.Fatalf("%s of %q: %d lines, want %d:\n%s", name, s, n, want[name], out)
			}
		}
		var js struct {
			Differences []struct {
				A any `json:"a"`
			} `json:"differences"`
		}
		if err := json.Unmarshal([]byte(renderAll(t, s)["diff json"]), &js); err != nil || len(js.Differences) != 3 {
			t.Fatalf("diff json of %q: %v", s, err)
		}
		if utf8.ValidString(s) && js.Differences[0].A != s {
			t.Fatalf("diff json of %q holds %q", s, js.Differences[0].A)
		}
		short := firstRunes(s, 3)
		for name, out := range renderAll(t, short) {
			if n := strings.Count(out, "\n"); n != want[name] {
				t.Fatalf("%s of %q: %d lines, want %d:\n%s", name, short, n, want[name], out)
			}
			if strings.Contains(name, "text") {
				checkWidth(t, out)
			}
		}
	})
}
