package archive

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"aorta-probe/internal/fakeroot"
	"aorta-probe/internal/golden"
)

// sealedArchive is a small sealed capture: settings, files and a command.
func sealedArchive(t testing.TB) []byte {
	content := fakeroot.Format(&fakeroot.Archive{
		Comment: "aorta-probe dev capture (docs/capture.md)\ncapture-root: /\nsealed: " + sealedNote + "\n",
		Files: []fakeroot.File{
			{Path: "etc/os-release", Data: []byte("ID=ubuntu\nVERSION_ID=\"24.04\"\n"), Mode: 0o644, Size: -1},
			{Path: "proc/self", Link: "4242"},
			{Path: ".capture/cmd/001.argv", Data: []byte("lspci\x00"), Mode: 0o644, Size: -1},
			{Path: ".capture/cmd/001.meta", Data: []byte("exit: 0\n"), Mode: 0o644, Size: -1},
			{Path: ".capture/cmd/001.stdout", Data: []byte(strings.Repeat("0000:03:00.0 Display controller\n", 40)), Mode: 0o644, Size: -1},
			{Path: ".capture/cmd/001.stderr", Mode: 0o644, Size: -1},
		},
	})
	return seal(content, 6, 1)
}

// TestParseCaptureIntegrity (issue 28, item 3): a whole archive parses;
// one cut short anywhere, with a byte flipped anywhere, with bytes added
// after its end or after its header, or without its end section is
// refused with ErrDamaged and a line that says which.
func TestParseCaptureIntegrity(t *testing.T) {
	whole := sealedArchive(t)
	a, err := ParseCapture(whole)
	if err != nil || len(a.Files) != 6 || !IsCapture(a) {
		t.Fatalf("a whole archive: %v", err)
	}
	for _, f := range a.Files {
		if strings.HasPrefix(f.Path, ".capture/end") {
			t.Errorf("the end section is parsed as a file")
		}
	}
	end := bytes.LastIndex(whole, []byte(endMarker))
	damaged := func(name string, data []byte, want string) {
		t.Helper()
		_, err := ParseCapture(data)
		if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v; want ErrDamaged, one line with %q", name, err, want)
		}
	}
	// Cut short at every byte: in the settings, in a section, in the end
	// section, one byte short of whole.
	for n := len("aorta-probe dev capture (docs/capture.md)\ncapture-root: /\nsealed: x"); n < len(whole); n++ {
		_, err := ParseCapture(whole[:n])
		if !errors.Is(err, ErrDamaged) {
			t.Fatalf("cut to %d of %d bytes: %v; want ErrDamaged", n, len(whole), err)
		}
	}
	damaged("cut in a section", whole[:end/2], "cut short")
	damaged("cut in the end section", whole[:end+len(endMarker)+20], "end section")
	damaged("cut before the sha256's end", whole[:len(whole)-10], "end section")
	// A byte flipped anywhere.
	for _, at := range []int{5, len(whole) / 3, end - 2, end + 3, end + len(endMarker) + 11, len(whole) - 3} {
		b := bytes.Clone(whole)
		b[at] ^= 0x20
		if _, err := ParseCapture(b); !errors.Is(err, ErrDamaged) && !errors.Is(err, ErrNotArchive) {
			t.Errorf("byte %d flipped: %v", at, err)
		}
	}
	b := bytes.Clone(whole)
	b[len(whole)/3] ^= 0x01
	damaged("a byte flipped in a section", b, "sha256")
	damaged("bytes after the end", append(bytes.Clone(whole), "more\n"...), "after the end marker")
	// The case: a capture-root line, then random bytes.
	r := rand.New(rand.NewPCG(1, 2))
	junk := []byte("aorta-probe dev capture (docs/capture.md)\ncapture-root: /\n")
	for range 600 << 10 {
		junk = append(junk, byte(r.UintN(256)))
	}
	damaged("random bytes after the header", junk, "no end section")
	damaged("a sealed archive whose end is gone", whole[:end], "cut short")
	// The end section's figures must agree with what comes before.
	wrong := seal(whole[:end], 7, 1)
	damaged("section count", wrong, "sections")
	wrong = seal(whole[:end], 6, 2)
	damaged("command count", wrong, "commands")
	// An archive of an older aorta-probe: no end section, no sealed note.
	old := bytes.Replace(whole[:end], []byte("sealed: "+sealedNote+"\n"), nil, 1)
	damaged("an unsealed archive", old, "did not seal")
	if got, err := Seal(old); err != nil {
		t.Fatal(err)
	} else if _, err := ParseCapture(got); err != nil {
		t.Errorf("resealed: %v", err)
	} else {
		// Resealed, it says it is sealed, so a cut copy reads as cut.
		damaged("a resealed archive whose end is gone", got[:bytes.LastIndex(got, []byte("\n"+endMarker))+1], "cut short")
	}
	if got, err := Seal(whole); err != nil {
		t.Errorf("sealing a sealed archive: %v", err)
	} else if !bytes.Equal(got, whole) {
		t.Errorf("sealing a sealed archive changes it:\n%s", golden.LineDiff(whole, got))
	}
	// Not a capture at all: ErrNotArchive, as before.
	if _, err := ParseCapture([]byte("a scenario\n-- etc/os-release --\nID=x\n")); !errors.Is(err, ErrNotArchive) {
		t.Errorf("a plain scenario: %v", err)
	}
}

// FuzzParseCapture: any bytes are refused or accepted without a panic,
// and an archive sealed is accepted.
func FuzzParseCapture(f *testing.F) {
	f.Add(sealedArchive(f))
	f.Add([]byte("capture-root: /\n-- a --\nb\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ParseCapture(data)
		a, err := fakeroot.Parse(data)
		if err != nil || !IsCapture(a) || bytes.Contains(data, []byte(endMarker)) {
			return
		}
		sealed, err := Seal(data)
		if err != nil {
			return
		}
		if _, err := ParseCapture(sealed); err != nil && !errors.Is(err, ErrNotArchive) {
			t.Errorf("sealed: %v", err)
		}
	})
}

// BenchmarkSeal measures what sealing adds to a capture and checking adds
// to a replay, on the host capture of testdata/roots (docs/capture.md,
// "Size and cost").
func BenchmarkSeal(b *testing.B) {
	data, err := os.ReadFile("../../testdata/roots/capture-host.txtar")
	if err != nil {
		b.Fatal(err)
	}
	end := bytes.LastIndex(data, []byte("\n"+endMarker)) + 1
	b.Run("seal", func(b *testing.B) {
		b.SetBytes(int64(end))
		for b.Loop() {
			seal(data[:end:end], 1, 1)
		}
	})
	b.Run("check", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := ParseCapture(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parse only", func(b *testing.B) {
		b.SetBytes(int64(end))
		for b.Loop() {
			if _, err := fakeroot.Parse(data[:end]); err != nil {
				b.Fatal(err)
			}
		}
	})
}
