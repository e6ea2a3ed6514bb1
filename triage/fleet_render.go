package triage

import (
	"fmt"
	"io"
	"strings"

	"aorta-probe/internal/visible"
)

// headlineKeys are the majority fields the text report always shows: the
// identity users hunt for first (docs/triage.md, "Fleet").
var headlineKeys = []string{
	"runtime_context.type", "container_detected", "amdgpu_driver.kfd_device_present",
	"host.kernel_release", "rocm.kmd_version", "rocm.version", "rocm.version_dev", "hip.version",
	"amdgpu_driver.package_version", "amdgpu_driver.module_version",
	"gpu_arch.gfx_targets", "gpu_arch.agent_count",
	"probe_provenance.gpus.physical_count", "probe_provenance.gpus.partition_count",
	"probe_provenance.gpus.devices[].compute_partition", "probe_provenance.gpus.devices[].memory_partition",
	"probe_provenance.gpus.devices[].vbios_version",
	"hipblaslt.lib_hash", "rocblas.lib_hash", "miopen.lib_hash", "rccl.version", "rccl.lib_hash",
	"tensile_catalog.combined.kernel_db_combined_hash",
	"pytorch_version", "pytorch_build.git_commit", "triton.package_version",
}

func (f *FleetResult) headline() string {
	s := fmt.Sprintf("fleet: %d document%s, %d outlier%s", f.Documents, plural(f.Documents), len(f.Outliers), plural(len(f.Outliers)))
	if len(f.Groups) > 1 {
		s += fmt.Sprintf(", no majority: %d groups", len(f.Groups))
	}
	if len(f.Unreadable) > 0 {
		s += fmt.Sprintf(", %d unreadable", len(f.Unreadable))
	}
	return s
}

// Listed is how many items of a long list the text and Markdown reports
// show without --all (FleetResult.ListAll): a group's document names, the
// places' lines, the unreadable documents; the JSON lists every one.
const Listed = 3

// more is the note ending a list cut at Listed items.
func more(n int, what string) string {
	return fmt.Sprintf("… and %d more%s (--all lists them)", n, what)
}

// groupNames lists a group's document names: every one with --all, else
// the first Listed and how many more.
func (f *FleetResult) groupNames(g FleetGroup) string {
	n, note := f.cutList(len(g.Names), "")
	if note == "" {
		return strings.Join(g.Names, ", ")
	}
	return strings.Join(g.Names[:n], ", ") + ", " + note
}

// Shown is how many items of a list of n a report shows: every one with
// all (--all), else the first Listed (a list one longer is shown whole).
// The diff command names unreadable documents on stderr the same way.
func Shown(n int, all bool) int {
	if all || n <= Listed+1 {
		return n
	}
	return Listed
}

// cutList is how many of a list of n items to show (Shown) and the note
// on the rest, "" when none is left out.
func (f *FleetResult) cutList(n int, what string) (shown int, note string) {
	if shown = Shown(n, f.ListAll); shown == n {
		return n, ""
	}
	return shown, more(n-shown, what)
}

// placesListed is how many lines of Places the text and Markdown reports
// show without --all: the summary lines come first (placeNotes), then one
// line per boot.
const placesListed = 8

func (f *FleetResult) cutPlaces() (shown int, note string) {
	n := len(f.Places)
	if f.ListAll || n <= placesListed+1 {
		return n, ""
	}
	return placesListed, more(n-placesListed, " boots")
}

func (f *FleetResult) majority(key string) (MajorityField, bool) {
	for _, m := range f.Majority {
		if m.Key == key {
			return m, true
		}
	}
	return MajorityField{}, false
}

// Text writes the fleet report: the headline, the majority identity, the
// outliers, then, where there are any, the GPUs that differ, the groups,
// the places, the fields with no majority and the unreadable documents.
// Every line fits Width columns except one holding a long value, which is
// never broken or cut (valueLines).
func (f *FleetResult) Text(w io.Writer, o RenderOptions) error {
	var l lines
	head := f.headline()
	if o.Color {
		c := ansiGreen
		if len(f.Outliers) > 0 || len(f.Unreadable) > 0 || len(f.Groups) > 1 {
			c = ansiRed
		}
		l.b.WriteString(ansiBold + c + head + ansiReset + "\n")
	} else {
		l.add(head)
	}
	l.add("")
	l.add(fmt.Sprintf("Majority identity (%d fields with a strict majority; headline fields)", len(f.Majority)))
	for _, k := range headlineKeys {
		if m, ok := f.majority(k); ok {
			kv(&l, fmt.Sprintf("  %s (%d/%d)", k, m.Count, m.Of), display(m.Value))
		}
	}
	l.add("")
	f.textOutliers(&l)
	textNamed(&l, "GPUs differ from the majority", "hardware", f.GPUOutliers())
	textNamed(&l, "Settings differ from the majority", "tuning", f.TuningOutliers())
	f.textGroups(&l)
	f.textPlaces(&l)
	if len(f.Split) > 0 {
		l.add("")
		l.add(fmt.Sprintf("No majority (%d field%s; host fields vary by node and split nothing)", len(f.Split), plural(len(f.Split))))
		for _, s := range f.Split {
			kv(&l, "  "+s.Key, fmt.Sprintf("%d distinct, commonest %d/%d", s.Distinct, s.Top, s.Of))
		}
	}
	if len(f.Unreadable) > 0 {
		l.add("")
		l.add(fmt.Sprintf("Unreadable (%d, not counted)", len(f.Unreadable)))
		n, note := f.cutList(len(f.Unreadable), " unreadable")
		for _, u := range f.Unreadable[:n] {
			l.add("  " + OneLine(u.Err)) // whole: it names the file
		}
		if note != "" {
			l.add("  " + note)
		}
	}
	_, err := io.WriteString(w, l.b.String())
	return err
}

// textOutliers writes each outlier with the fields that leave the
// majority: the field's line wraps between its key, its group and the
// majority's count, never inside one of them.
func (f *FleetResult) textOutliers(l *lines) {
	if len(f.Outliers) == 0 {
		l.add("Outliers: none")
		return
	}
	l.add(fmt.Sprintf("Outliers (%d), each with the fields that leave the majority", len(f.Outliers)))
	for _, o := range f.Outliers {
		n := len(o.Differences)
		l.add(fmt.Sprintf("  %s: %d field%s", o.Name, n, plural(n)))
		for i, d := range o.Differences {
			words := []string{visible.Escape(d.Key), "[" + string(d.Group) + "]", fmt.Sprintf("(majority %d/%d)", d.Count, d.Of)}
			for _, s := range wrapWords("    ", 2, words, Width) {
				l.add(s)
			}
			valueLines(l, "      node:     ", display(d.Value))
			valueLines(l, "      majority: ", display(d.Majority))
			if i+1 == n || o.Differences[i+1].Why != d.Why {
				for _, s := range wrap("      why: ", d.Why, Width) {
					l.add(s)
				}
			}
		}
	}
}

// textNamed names the outliers of one group (GPUOutliers,
// TuningOutliers) with the group's fields, under title.
func textNamed(l *lines, title string, group Group, gs []GPUOutlier) {
	if len(gs) == 0 {
		return
	}
	l.add("")
	l.add(fmt.Sprintf("%s (%d node%s, group %s)", title, len(gs), plural(len(gs)), group))
	for _, g := range gs {
		words := []string{visible.Escape(g.Name) + ":"}
		for i, k := range g.Keys {
			if i+1 < len(g.Keys) {
				k += ","
			}
			words = append(words, visible.Escape(k))
		}
		for _, s := range wrapWords("  ", 2, words, Width) {
			l.add(s)
		}
	}
}

// textGroups writes the groups when no strict majority: each group's
// size, the values that split them, and its document names (each whole).
func (f *FleetResult) textGroups(l *lines) {
	if len(f.Groups) <= 1 {
		return
	}
	l.add("")
	l.add(fmt.Sprintf("Groups (%d): no strict majority; the fields that split them", len(f.Groups)))
	for i, g := range f.Groups {
		l.add(fmt.Sprintf("  group %d: %d document%s", i+1, g.Size, plural(g.Size)))
		for _, v := range g.Values {
			valueLines(l, "    "+v.Key+": ", display(v.Value))
		}
		for _, s := range wrapWords("    ", 0, f.groupWords(g), Width) {
			l.add(s)
		}
	}
}

// groupWords is groupNames as words to wrap: each name with its comma, a
// name never broken; the note on the rest broken at its spaces.
func (f *FleetResult) groupWords(g FleetGroup) []string {
	n, note := f.cutList(len(g.Names), "")
	var words []string
	for i, name := range g.Names[:n] {
		if i+1 < n || note != "" {
			name += ","
		}
		words = append(words, visible.Escape(name))
	}
	return append(words, strings.Fields(note)...)
}

// textPlaces writes the boots and places (placeNotes' lines).
func (f *FleetResult) textPlaces(l *lines) {
	if len(f.Places) == 0 {
		return
	}
	l.add("")
	l.add("Places (boot fingerprints, mount namespace ids and roots)")
	n, note := f.cutPlaces()
	for _, p := range f.Places[:n] {
		for _, s := range wrap("  - ", p, Width) {
			l.add(s)
		}
	}
	if note != "" {
		l.add("  " + note)
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Markdown writes the fleet report for a bug report.
func (f *FleetResult) Markdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**\n\n### Majority identity (headline fields)\n\n| field | majority value | documents |\n|---|---|---|\n", f.headline())
	for _, k := range headlineKeys {
		if m, ok := f.majority(k); ok {
			fmt.Fprintf(&b, "| %s | %s | %d/%d |\n", mdCode(k, true), mdCell(m.Value), m.Count, m.Of)
		}
	}
	b.WriteString("\n### Outliers\n\n")
	if len(f.Outliers) == 0 {
		b.WriteString("None.\n")
	} else {
		b.WriteString("| document | field | this node | majority | why it matters |\n|---|---|---|---|---|\n")
		for _, o := range f.Outliers {
			for _, d := range o.Differences {
				fmt.Fprintf(&b, "| %s | %s | %s | %s (%d/%d) | %s |\n", mdCode(o.Name, true), mdCode(d.Key, true), mdCell(d.Value), mdCell(d.Majority), d.Count, d.Of, mdText(d.Why))
			}
		}
	}
	for _, sec := range []struct {
		title string
		gs    []GPUOutlier
	}{{"GPUs differ from the majority", f.GPUOutliers()}, {"Settings differ from the majority", f.TuningOutliers()}} {
		if len(sec.gs) == 0 {
			continue
		}
		b.WriteString("\n### " + sec.title + "\n\n")
		for _, g := range sec.gs {
			keys := make([]string, len(g.Keys))
			for i, k := range g.Keys {
				keys[i] = mdCode(k, false)
			}
			fmt.Fprintf(&b, "- %s: %s\n", mdCode(g.Name, false), strings.Join(keys, ", "))
		}
	}
	if len(f.Groups) > 1 {
		b.WriteString("\n### Groups (no strict majority)\n\n| group | documents | field | value |\n|---|---|---|---|\n")
		for i, g := range f.Groups {
			for _, v := range g.Values {
				fmt.Fprintf(&b, "| %d | %d (%s) | %s | %s |\n", i+1, g.Size, mdText(f.groupNames(g)), mdCode(v.Key, true), mdCell(v.Value))
			}
		}
	}
	if len(f.Places) > 0 {
		b.WriteString("\n### Places\n\n")
		n, note := f.cutPlaces()
		for _, p := range f.Places[:n] {
			fmt.Fprintf(&b, "- %s\n", mdText(p))
		}
		if note != "" {
			fmt.Fprintf(&b, "- %s\n", mdText(note))
		}
	}
	if len(f.Unreadable) > 0 {
		b.WriteString("\n### Unreadable\n\n")
		n, note := f.cutList(len(f.Unreadable), " unreadable")
		for _, u := range f.Unreadable[:n] {
			fmt.Fprintf(&b, "- %s\n", mdText(OneLine(u.Err)))
		}
		if note != "" {
			fmt.Fprintf(&b, "- %s\n", mdText(note))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// FleetJSONFormat names the shape of the fleet --format json result.
const FleetJSONFormat = "aorta-probe-diff-fleet/1"

// The members of the fleet --format json result (FleetResult.JSON).
type fleetJSONMaj struct {
	Key     string `json:"key"`
	Group   Group  `json:"group"`
	Value   any    `json:"value"`
	Present bool   `json:"present"`
	Count   int    `json:"count"`
	Of      int    `json:"compared"`
}
type fleetJSONDiff struct {
	Key             string `json:"key"`
	Group           Group  `json:"group"`
	Value           any    `json:"value"`
	Present         bool   `json:"present"`
	Majority        any    `json:"majority"`
	MajorityPresent bool   `json:"majority_present"`
	MajorityCount   int    `json:"majority_count"`
	Of              int    `json:"compared"`
	Why             string `json:"why"`
}
type fleetJSONOutlier struct {
	Name        string          `json:"name"`
	Differences []fleetJSONDiff `json:"differences"`
}
type fleetJSONSplit struct {
	Key      string `json:"key"`
	Distinct int    `json:"distinct"`
	Top      int    `json:"top_count"`
	Of       int    `json:"compared"`
}
type fleetJSONUnreadable struct {
	Name  string `json:"name"`
	Error string `json:"error"`
}
type fleetJSONGroupValue struct {
	Key     string `json:"key"`
	Value   any    `json:"value"`
	Present bool   `json:"present"`
}
type fleetJSONGroup struct {
	Size      int                   `json:"size"`
	Values    []fleetJSONGroupValue `json:"values"`
	Documents []string              `json:"documents"`
}

// JSON writes the machine-readable fleet result (docs/triage.md).
func (f *FleetResult) JSON(w io.Writer) error {
	out := struct {
		Format     string                `json:"format"`
		Documents  int                   `json:"documents"`
		ExitStatus int                   `json:"exit_status"`
		Majority   []fleetJSONMaj        `json:"majority"`
		Outliers   []fleetJSONOutlier    `json:"outliers"`
		Split      []fleetJSONSplit      `json:"split"`
		Groups     []fleetJSONGroup      `json:"groups"`
		Places     []string              `json:"places"`
		Unreadable []fleetJSONUnreadable `json:"unreadable"`
		GPUs       []GPUOutlier          `json:"gpu_outliers"`
		Tuning     []GPUOutlier          `json:"tuning_outliers"`
	}{Format: FleetJSONFormat, Documents: f.Documents, ExitStatus: f.ExitCode(),
		Majority: []fleetJSONMaj{}, Outliers: []fleetJSONOutlier{}, Split: []fleetJSONSplit{}, Groups: []fleetJSONGroup{}, Places: append([]string{}, f.Places...),
		Unreadable: []fleetJSONUnreadable{}, GPUs: append([]GPUOutlier{}, f.GPUOutliers()...), Tuning: append([]GPUOutlier{}, f.TuningOutliers()...)}
	if len(f.Groups) > 1 {
		for _, g := range f.Groups {
			vs := []fleetJSONGroupValue{}
			for _, v := range g.Values {
				vs = append(vs, fleetJSONGroupValue{v.Key, raw(v.Value), v.Value.Present})
			}
			out.Groups = append(out.Groups, fleetJSONGroup{g.Size, vs, g.Names})
		}
	}
	for _, m := range f.Majority {
		out.Majority = append(out.Majority, fleetJSONMaj{m.Key, m.Group, raw(m.Value), m.Value.Present, m.Count, m.Of})
	}
	for _, o := range f.Outliers {
		ds := []fleetJSONDiff{}
		for _, d := range o.Differences {
			ds = append(ds, fleetJSONDiff{d.Key, d.Group, raw(d.Value), d.Value.Present, raw(d.Majority), d.Majority.Present, d.Count, d.Of, d.Why})
		}
		out.Outliers = append(out.Outliers, fleetJSONOutlier{o.Name, ds})
	}
	for _, s := range f.Split {
		out.Split = append(out.Split, fleetJSONSplit(s))
	}
	for _, u := range f.Unreadable {
		out.Unreadable = append(out.Unreadable, fleetJSONUnreadable{u.Name, OneLine(u.Err)})
	}
	return writeJSON(w, out)
}

// GPUOutlier is a document whose GPUs leave the majority: the hardware
// fields it differs on (probe_provenance.gpus, docs/triage.md), without
// the "probe_provenance.gpus." prefix.
type GPUOutlier struct {
	Name string   `json:"name"`
	Keys []string `json:"keys"`
}

// GPUOutliers names the outliers whose GPUs differ from the majority, in
// the order of Outliers.
func (f *FleetResult) GPUOutliers() []GPUOutlier { return f.outliersIn(GroupHardware, gpusKey) }

// outliersIn names the outliers that leave the majority on fields of
// group, with those fields' keys less the block prefix, in the order of
// Outliers.
func (f *FleetResult) outliersIn(group Group, block string) []GPUOutlier {
	var out []GPUOutlier
	for _, o := range f.Outliers {
		var keys []string
		for _, d := range o.Differences {
			if d.Group == group {
				keys = append(keys, strings.TrimPrefix(d.Key, block+"."))
			}
		}
		if len(keys) > 0 {
			out = append(out, GPUOutlier{o.Name, keys})
		}
	}
	return out
}
