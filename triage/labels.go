package triage

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// LabelPrefix begins every node label name `aorta-probe labels` writes;
// NFD adds its own namespace, feature.node.kubernetes.io/, to a name
// without one (docs/fleet.md, "Node Feature Discovery").
const LabelPrefix = "aorta-probe."

// Label is one node label of the feature file.
type Label struct{ Name, Value string }

// Labels is the small, stable set of node labels derived from d, in this
// order; each value is a valid Kubernetes label value (LabelValue), ""
// when the document does not hold it:
//
//	rocm-version        rocm.version
//	hip-version         hip.version
//	gfx-targets         gpu_arch.gfx_targets, joined with "."
//	gpu-count           probe_provenance.gpus.physical_count, else (a
//	                    document without the block) gpu_arch.agent_count
//	compute-partition   probe_provenance.gpus.compute_partition (SPX, CPX, …:
//	                    "" unless every GPU has the same)
//	memory-partition    probe_provenance.gpus.memory_partition (NPS1, …)
//	driver-version      amdgpu_driver.kmd_version (the loaded module), else rocm.kmd_version
//	container-runtime   runtime_context.type
//	torch-version       pytorch_version
//	env-fingerprint     12 hex digits over the software groups' Fingerprints
//	                    (all but host, whose fields include the node's own
//	                    kernel and health report, and tuning, the node's
//	                    settings)
//	tuning-deviations   how many rules of AMD's Instinct guides the node
//	                    breaks (probe_provenance.tuning.deviations; "" for
//	                    a document without the block)
func Labels(d *Document) []Label {
	driver := d.text("amdgpu_driver.kmd_version")
	if driver == "" {
		driver = d.text("rocm.kmd_version")
	}
	gpuCount := d.text("gpu_arch.agent_count")
	if g, _ := d.Lookup("probe_provenance.gpus"); g != nil {
		gpuCount = d.text("probe_provenance.gpus.physical_count")
	}
	h := sha256.New()
	for _, f := range Fingerprints(d) {
		if f.Group != GroupHost && f.Group != GroupTuning {
			h.Write([]byte(string(f.Group) + "=" + f.Hash + "\n"))
		}
	}
	ls := []Label{
		{"rocm-version", d.text("rocm.version")},
		{"hip-version", d.text("hip.version")},
		{"gfx-targets", d.list("gpu_arch.gfx_targets", ".")},
		{"gpu-count", gpuCount},
		{"compute-partition", d.text("probe_provenance.gpus.compute_partition")},
		{"memory-partition", d.text("probe_provenance.gpus.memory_partition")},
		{"driver-version", driver},
		{"container-runtime", d.text("runtime_context.type")},
		{"torch-version", d.text("pytorch_version")},
		{"env-fingerprint", hex.EncodeToString(h.Sum(nil))[:12]},
		{"tuning-deviations", deviationCount(d)},
	}
	for i := range ls {
		ls[i].Name = LabelPrefix + ls[i].Name
		ls[i].Value = LabelValue(ls[i].Value)
	}
	return ls
}

// deviationCount is the length of probe_provenance.tuning.deviations, ""
// when the document has no such list.
func deviationCount(d *Document) string {
	v, _ := d.Lookup(tuningDeviationsKey)
	if l, ok := v.([]any); ok {
		return strconv.Itoa(len(l))
	}
	return ""
}

// FeatureFile renders labels as an NFD local-source feature file
// (features.d): one name=value per line.
func FeatureFile(labels []Label) []byte {
	var b strings.Builder
	b.WriteString("# aorta-probe labels: node labels from an aorta-probe document (docs/fleet.md)\n")
	for _, l := range labels {
		b.WriteString(l.Name + "=" + l.Value + "\n")
	}
	return []byte(b.String())
}

// LabelValue makes v a valid Kubernetes label value: at most 63
// characters of [A-Za-z0-9._-], beginning and ending with an alphanumeric
// one, or empty. Every other byte becomes "_" ("2.9.1+rocm7.2.1" becomes
// "2.9.1_rocm7.2.1"); leading and trailing non-alphanumerics are dropped;
// a value still too long keeps its first 50 characters, "-" and 12 hex
// digits of the SHA-256 of v, so that distinct values stay distinct.
func LabelValue(v string) string {
	b := []byte(v)
	for i, c := range b {
		if !alnum(c) && c != '.' && c != '_' && c != '-' {
			b[i] = '_'
		}
	}
	s := strings.TrimFunc(string(b), func(r rune) bool { return r > 0x7f || !alnum(byte(r)) })
	if len(s) <= 63 {
		return s
	}
	sum := sha256.Sum256([]byte(v))
	head := strings.TrimRightFunc(s[:50], func(r rune) bool { return !alnum(byte(r)) })
	return head + "-" + hex.EncodeToString(sum[:6])
}

func alnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
