package probe

import (
	"aorta-probe/schema"
)

// collectPytorchSDPA is pytorch_sdpa (docs/python.md). Source: the four
// torch.backends.cuda.*_sdp_enabled() getters, called by the helper at the
// pytorch_sdpa import site (bool() of each result). Scope: process.
func collectPytorchSDPA(s *state) schema.PytorchSDPA {
	var b schema.PytorchSDPA
	t, o := s.python().torchAt("pytorch_sdpa")
	switch {
	case !o.imported(s, "pytorch_sdpa", "torch", ""):
		return b
	case t.BackendsCUDA == nil:
		s.reason("pytorch_sdpa: torch.backends.cuda unavailable")
		return b
	}
	for _, g := range []struct {
		name string
		dst  **bool
	}{
		{"flash_sdp_enabled", &b.BackendsEnabled.Flash},
		{"mem_efficient_sdp_enabled", &b.BackendsEnabled.MemEfficient},
		{"math_sdp_enabled", &b.BackendsEnabled.Math},
		{"cudnn_sdp_enabled", &b.BackendsEnabled.CuDNN},
	} {
		c := t.BackendsCUDA[g.name]
		switch c.State {
		case "ok":
			// null reads as False, as encoding/json read it before (the
			// helper reports a bool; None is not an answer torch gives).
			switch v := c.Value.(type) {
			case bool:
				*g.dst = &v
			case nil:
				*g.dst = new(bool)
			}
		case "raised":
			s.reason("pytorch_sdpa.%s: torch.backends.cuda.%s() raised (%s)", g.name, g.name, c.Exc)
		}
	}
	return b
}
