package probe

// Knob is the public view of one knob-registry record, for readers of
// env_vars (aorta-probe diff explains why a knob that differs matters).
type Knob struct {
	Name     string
	Library  string // owning component, e.g. hipblaslt
	Category string // e.g. gemm_solution_selection
	Consumer string // what the value reaches, in words
}

// Knobs returns the canonical env_vars names of schema 1.16 in env.json
// order, with their registry metadata. A consumer written "same" in the
// registry is the previous record's.
func Knobs() []Knob {
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
