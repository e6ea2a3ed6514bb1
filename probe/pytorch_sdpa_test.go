package probe

import (
	"slices"
	"testing"

	"aorta-probe/internal/golden"
)

// TestCollectPytorchSDPA: each torch.backends.cuda *_sdp_enabled() as it
// answered, None read as false, one that raised null with its reason;
// without torch or its backends.cuda every backend is null.
func TestCollectPytorchSDPA(t *testing.T) {
	ok := func(v any) pyCall { return pyCall{State: "ok", Value: v} }
	sites := map[string]string{"pytorch_sdpa": "ok"}
	f := &pyFacts{outcome: pyOK, TorchSites: sites, Torch: &pyTorch{BackendsCUDA: map[string]pyCall{
		"flash_sdp_enabled":         ok(true),
		"mem_efficient_sdp_enabled": ok(nil),
		"math_sdp_enabled":          {State: "raised", Exc: "RuntimeError('no')"},
		"cudnn_sdp_enabled":         {State: "missing"},
	}}}
	s := factsState(f)
	b := collectPytorchSDPA(s).BackendsEnabled
	if got := []string{golden.OrNull(b.Flash), golden.OrNull(b.MemEfficient), golden.OrNull(b.Math), golden.OrNull(b.CuDNN)}; !slices.Equal(got, []string{"true", "false", "null", "null"}) {
		t.Errorf("backends %q", got)
	}
	if want := []string{"pytorch_sdpa.math_sdp_enabled: torch.backends.cuda.math_sdp_enabled() raised (RuntimeError('no'))"}; !slices.Equal(s.reasons, want) {
		t.Errorf("reasons %q, want %q", s.reasons, want)
	}

	s = factsState(&pyFacts{outcome: pyOK, TorchSites: sites, Torch: &pyTorch{}})
	if b := collectPytorchSDPA(s).BackendsEnabled; b.Flash != nil || !slices.Equal(s.reasons, []string{"pytorch_sdpa: torch.backends.cuda unavailable"}) {
		t.Errorf("no backends.cuda: %v %q", golden.OrNull(b.Flash), s.reasons)
	}
	s = factsState(&pyFacts{outcome: pyOK, TorchSites: map[string]string{"pytorch_sdpa": "ImportError"}})
	if b := collectPytorchSDPA(s).BackendsEnabled; b.Flash != nil || len(s.reasons) != 0 {
		t.Errorf("no torch: %v %q", golden.OrNull(b.Flash), s.reasons)
	}
}
