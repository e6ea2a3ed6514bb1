// Package knobs is the knob registry of schema 1.16 (docs/env-knobs.md):
// the environment variables env_vars records, in env.json order, with the
// metadata that says what each one reaches. The probe reads it to fill
// env_vars and to know which values a capture may record; triage reads it
// to explain a difference; neither links the other.
package knobs

// Knob is the public view of one knob-registry record, for readers of
// env_vars (aorta-probe diff explains why a knob that differs matters).
type Knob struct {
	Name     string
	Library  string // owning component, e.g. hipblaslt
	Category string // e.g. gemm_solution_selection
	Consumer string // what the value reaches, in words
}

// All returns the canonical env_vars names of schema 1.16 in env.json
// order, with their registry metadata. A consumer written "same" in the
// registry is the previous record's.
func All() []Knob {
	out := make([]Knob, len(envKnobs))
	prev := ""
	for i, k := range envKnobs {
		c := k.consumer
		if c == "same" {
			c = prev
		}
		prev = c
		out[i] = Knob{Name: k.name, Library: k.library, Category: k.category, Consumer: c}
	}
	return out
}

// Names returns the env_vars names in env.json order.
func Names() []string {
	out := make([]string, len(envKnobs))
	for i, k := range envKnobs {
		out[i] = k.name
	}
	return out
}

// IsKnob reports whether name is one of the registry's variables.
func IsKnob(name string) bool {
	for _, k := range envKnobs {
		if k.name == name {
			return true
		}
	}
	return false
}
