package triage

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"aorta-probe/internal/visible"
	"aorta-probe/schema"
)

// Metrics renders d in the Prometheus text exposition format (version
// 0.0.4), for node_exporter's textfile collector: `aorta-probe metrics`
// (docs/fleet.md, "Prometheus"). Every family has HELP and TYPE; identity
// is carried by constant-1 `_info` gauges whose labels hold the values
// (escaped, bounded by LabelValueMax); a value the document does not hold
// (absent, null) is the empty label value, which Prometheus treats as no
// label. A gauge whose value the document does not hold has no sample.
func Metrics(d *Document) []byte {
	var e exposition
	str := func(path string) string { return d.text(path) }

	e.family("aorta_env_info", "gauge", "The environment an aorta-probe document describes; always 1 (docs/fleet.md).")
	e.sample("aorta_env_info", []label{
		{"schema_version", d.Schema},
		{"rocm_version", str("rocm.version")},
		{"hip_version", str("hip.version")},
		{"kernel_release", str("host.kernel_release")},
		{"gfx_targets", d.list("gpu_arch.gfx_targets", ",")},
		{"torch_version", str("pytorch_version")},
		{"runtime", str("runtime_context.type")},
		{"container_detected", str("container_detected")},
	}, "1")

	e.family("aorta_env_partial", "gauge", "1 when the document is partial (some field could not be read; see partial_reasons), else 0.")
	if v, ok := d.Lookup("partial"); ok {
		if b, ok := v.(bool); ok {
			e.sample("aorta_env_partial", nil, map[bool]string{true: "1", false: "0"}[b])
		}
	}
	e.family("aorta_env_partial_reasons", "gauge", "How many partial_reasons the document lists.")
	if v, ok := d.Lookup("partial_reasons"); ok {
		if l, ok := v.([]any); ok {
			e.sample("aorta_env_partial_reasons", nil, strconv.Itoa(len(l)))
		}
	}

	e.family("aorta_env_captured_timestamp_seconds", "gauge", "When the document was captured (captured_at), in seconds since the Unix epoch.")
	if t, err := time.Parse(time.RFC3339Nano, str("captured_at")); err == nil {
		e.sample("aorta_env_captured_timestamp_seconds", nil, formatFloat(float64(t.UnixNano())/1e9))
	}
	e.family("aorta_env_capture_duration_seconds", "gauge", "How long the capture took (probe_provenance.duration_us), in seconds.")
	if us, ok := d.number("probe_provenance.duration_us"); ok {
		e.sample("aorta_env_capture_duration_seconds", nil, formatFloat(us/1e6))
	}

	e.family("aorta_env_fingerprint_info", "gauge", "The digest of each drift group diff ranks (triage.Fingerprints): equal hashes, no difference in that group; always 1.")
	for _, f := range Fingerprints(d) {
		e.sample("aorta_env_fingerprint_info", []label{{"group", string(f.Group)}, {"hash", f.Hash}}, "1")
	}

	e.family("aorta_env_knob_info", "gauge", "Each canonical knob of env_vars that is set, with its value (docs/env-knobs.md); always 1.")
	if v, ok := d.Lookup("env_vars"); ok {
		if m, ok := v.(object); ok {
			for _, kv := range m {
				if kv.Value == nil || !canonicalKnob(kv.Key) {
					continue
				}
				e.sample("aorta_env_knob_info", []label{{"name", kv.Key}, {"value", scalarText(kv.Value)}}, "1")
			}
		}
	}
	e.gpus(d)
	e.tuning(d)
	return e.b
}

// gpus writes the per-GPU families from probe_provenance.gpus.devices
// (schema.GPUDevice; docs/hardware.md), one series per physical GPU keyed
// by its pci label; a document without the block (an older probe,
// --no-provenance) has the families' HELP and TYPE only.
func (e *exposition) gpus(d *Document) {
	v, _ := d.Lookup("probe_provenance.gpus.devices")
	devices, _ := v.([]any)
	type gauge struct{ name, help, path string }
	gauges := []gauge{
		{"aorta_gpu_partitions", "The GPU's kfd nodes (compute partitions; 1 when unpartitioned).", ""},
		{"aorta_gpu_vram_bytes", "The GPU's VRAM (amdgpu mem_info_vram_total), in bytes.", "vram_bytes"},
		{"aorta_gpu_pcie_link_width_lanes", "The GPU's PCIe link width (current_link_width), in lanes.", "pcie.current_link_width"},
		{"aorta_gpu_pcie_link_max_width_lanes", "The GPU's maximum PCIe link width (max_link_width), in lanes.", "pcie.max_link_width"},
		{"aorta_gpu_pcie_link_speed_transfers_per_second", "The GPU's PCIe link speed (current_link_speed), in transfers per second per lane.", "pcie.current_link_speed"},
		{"aorta_gpu_pcie_link_max_speed_transfers_per_second", "The GPU's maximum PCIe link speed (max_link_speed), in transfers per second per lane.", "pcie.max_link_speed"},
	}
	e.family("aorta_gpu_info", "gauge", "One physical GPU of probe_provenance.gpus (docs/hardware.md); always 1.")
	for _, dev := range devices {
		m, _ := dev.(object)
		e.sample("aorta_gpu_info", []label{
			{"pci", textAt(m, "pci")},
			{"unique_id", textAt(m, "unique_id")},
			{"gfx", textAt(m, "gfx_target")},
			{"product", textAt(m, "product_name")},
			{"vbios", textAt(m, "vbios_version")},
			{"compute_partition", textAt(m, "compute_partition")},
			{"memory_partition", textAt(m, "memory_partition")},
		}, "1")
	}
	for _, g := range gauges {
		e.family(g.name, "gauge", g.help)
		for _, dev := range devices {
			m, _ := dev.(object)
			var value string
			switch {
			case g.path == "":
				if p, ok := lookupIn(m, "partitions").([]any); ok {
					value = strconv.Itoa(len(p))
				}
			case strings.HasSuffix(g.path, "_speed"):
				if gts, ok := schema.LinkSpeed(textAt(m, g.path)); ok {
					value = formatFloat(gts * 1e9) // transfers per second
				}
			default:
				if f, ok := finite(lookupIn(m, g.path)); ok {
					value = formatFloat(f)
				}
			}
			if value != "" {
				e.sample(g.name, []label{{"pci", textAt(m, "pci")}}, value)
			}
		}
	}
}

func lookupIn(m object, path string) any {
	v, _ := lookup(m, strings.Split(path, "."))
	return v
}

func textAt(m object, path string) string { return scalarText(lookupIn(m, path)) }

// text is the value at path as a label value: a string as is, a number
// or boolean as its JSON text, "" when absent or null, and an array or
// object as its compact JSON.
func (d *Document) text(path string) string {
	v, _ := d.Lookup(path)
	return scalarText(v)
}

func scalarText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	return compact(v)
}

// number is the JSON number at path as a finite float64.
func (d *Document) number(path string) (float64, bool) {
	v, _ := d.Lookup(path)
	return finite(v)
}

// finite is v, a JSON number, as a finite float64.
func finite(v any) (float64, bool) {
	n, ok := v.(number)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(n), 64)
	return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
}

// list joins the string items of the array at path with sep ("" when the
// value is not an array).
func (d *Document) list(path, sep string) string {
	v, _ := d.Lookup(path)
	l, _ := v.([]any)
	var parts []string
	for _, x := range l {
		parts = append(parts, scalarText(x))
	}
	return strings.Join(parts, sep)
}

// LabelValueMax bounds a label value in bytes: a longer value keeps its
// first bytes (whole UTF-8 characters) and ends in "…" and 12 hex digits
// of the SHA-256 of the whole value, so that distinct values stay
// distinct (docs/fleet.md, "Prometheus").
const LabelValueMax = 128

// boundValue is v as a label value: a control or bidi character, or a
// byte that is not UTF-8, written as visible.Escape writes it (the label
// holds the characters \x1b, so that a terminal showing the file, or a
// console showing the label, is not rewritten), no longer than
// LabelValueMax bytes.
func boundValue(v string) string {
	e := visible.Escape(v)
	if len(e) <= LabelValueMax {
		return e
	}
	sum := sha256.Sum256([]byte(v))
	suffix := "…" + hex.EncodeToString(sum[:6])
	keep := LabelValueMax - len(suffix)
	for keep > 0 && !utf8.RuneStart(e[keep]) {
		keep--
	}
	return e[:keep] + suffix
}

type label struct{ name, value string }

// exposition accumulates the text format.
type exposition struct{ b []byte }

// family writes HELP and TYPE of a metric family.
func (e *exposition) family(name, typ, help string) {
	e.b = append(e.b, "# HELP "+name+" "+help+"\n# TYPE "+name+" "+typ+"\n"...)
}

// sample writes one sample. Names are constants of this file (valid
// metric and label names); values are bounded and escaped as the format
// requires: backslash, double quote and line feed.
func (e *exposition) sample(name string, labels []label, value string) {
	e.b = append(e.b, name...)
	if len(labels) > 0 {
		e.b = append(e.b, '{')
		for i, l := range labels {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.b = append(e.b, l.name+`="`...)
			e.b = append(e.b, escapeLabelValue(boundValue(l.value))...)
			e.b = append(e.b, '"')
		}
		e.b = append(e.b, '}')
	}
	e.b = append(e.b, ' ')
	e.b = append(e.b, value...)
	e.b = append(e.b, '\n')
}

var labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

func escapeLabelValue(v string) string { return labelEscaper.Replace(v) }

// formatFloat is a sample value as the shortest decimal text of a float64 (no exponent), which
// the format's parser (strconv.ParseFloat) reads back exactly.
func formatFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
