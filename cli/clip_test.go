package cli

import (
	"testing"

	_ "aorta-probe/internal/golden"
)

func TestClip(t *testing.T) {
	short := "partial_reasons[0]"
	if got := Clip(short); got != short {
		t.Errorf("Clip(%q) = %q", short, got)
	}
	exact := string(make([]byte, MaxEcho))
	if got := Clip(exact); got != exact {
		t.Errorf("a string of MaxEcho bytes was clipped")
	}
	long := "a." + string(make([]byte, 100_000))
	if got := Clip(long); len(got) != MaxEcho+len("…") || got[:2] != "a." {
		t.Errorf("Clip of 100 KB: %d bytes", len(got))
	}
	// A multi-byte character across the cut is dropped whole.
	wide := string(make([]byte, MaxEcho-1)) + "é" + "tail"
	if got := Clip(wide); got != string(make([]byte, MaxEcho-1))+"…" {
		t.Errorf("Clip cut a character: %q", got[len(got)-5:])
	}
}
