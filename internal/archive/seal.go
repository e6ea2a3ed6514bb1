package archive

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"aorta-probe/internal/fakeroot"
)

// An archive ends with what a complete one holds (docs/capture.md,
// "Integrity"): the section
//
//	-- .capture/end --
//	sections: N      the sections before it
//	commands: M      the commands recorded (.capture/cmd/NNN.*)
//	bytes: B         the bytes before its marker line
//	sha256: HEX      the SHA-256 of those bytes
//
// and nothing after it. A replay refuses an archive whose end does not
// match (ParseCapture): one cut short (copied in part off a node), one
// with bytes changed or added.

// endMarker is the marker line of the end section. No file's content can
// hold it as a line: fakeroot.Format writes such content as [base64].
const endMarker = "-- .capture/end --\n"

// sealedNote is the value of the "sealed" setting a sealed archive
// carries near its top, so that one whose end was cut off says so.
const sealedNote = "the archive ends with .capture/end (sections, commands, bytes, sha256)"

// ErrDamaged is the error of ParseCapture for an archive that is not
// whole: cut short, changed, grown, or of an older aorta-probe without an
// end section, which cannot be shown whole (a usage error for --root,
// exit 2: docs/usage.md).
var ErrDamaged = errors.New("damaged capture archive")

// seal appends the end section to content, an archive of sections
// sections and commands commands.
func seal(content []byte, sections, commands int) []byte {
	sum := sha256.Sum256(content)
	end := fmt.Sprintf("%ssections: %d\ncommands: %d\nbytes: %d\nsha256: %s\n",
		endMarker, sections, commands, len(content), hex.EncodeToString(sum[:]))
	return append(content, end...)
}

// Seal makes an archive's content whole again after an edit by hand (a
// test scenario): any end section is replaced by the one its content
// calls for, and the settings say it is sealed (the "sealed" line a
// recorder writes), so that a cut copy reads as cut short.
func Seal(data []byte) ([]byte, error) {
	if i := bytes.LastIndex(data, []byte("\n"+endMarker)); i >= 0 {
		data = data[:i+1]
	}
	if !bytes.HasSuffix(data, []byte("\n")) {
		data = append(bytes.Clone(data), '\n') // the marker starts a line
	}
	a, err := fakeroot.Parse(data)
	if err != nil {
		return nil, err
	}
	if !hasSetting(a.Settings(), "sealed") {
		// The settings are the free text before the first section.
		i := bytes.Index(data, []byte("\n-- ")) + 1
		data = slices.Concat(data[:i], []byte("sealed: "+sealedNote+"\n"), data[i:])
		if a, err = fakeroot.Parse(data); err != nil {
			return nil, err
		}
	}
	return seal(data, len(a.Files), countCommands(a)), nil
}

// ParseCapture checks that data is a whole capture archive (its end
// section matches what comes before) and parses what comes before it.
// Errors wrap ErrDamaged, or ErrNotArchive for a file that is no capture
// at all; each names what is wrong in a few words.
func ParseCapture(data []byte) (*fakeroot.Archive, error) {
	i := bytes.LastIndex(data, []byte("\n"+endMarker))
	if i < 0 {
		// The free text before the first section says what this is.
		head := data
		if j := bytes.Index(data, []byte("\n-- ")); j >= 0 {
			head = data[:j+1]
		}
		settings := (&fakeroot.Archive{Comment: string(head)}).Settings()
		switch {
		case !hasSetting(settings, "capture-root"):
			return nil, fmt.Errorf("%w (no capture-root setting)", ErrNotArchive)
		case hasSetting(settings, "sealed"):
			return nil, fmt.Errorf("%w: cut short (its end section .capture/end is missing; %d bytes left)", ErrDamaged, len(data))
		}
		return nil, fmt.Errorf("%w: no end section (.capture/end): cut short, or written by an aorta-probe that did not seal its archives, so it cannot be shown whole; capture again", ErrDamaged)
	}
	content, end := data[:i+1], string(data[i+1+len(endMarker):])
	var sections, commands, size int
	var sum string
	lines := strings.Split(end, "\n")
	if len(lines) != 5 || lines[4] != "" {
		return nil, fmt.Errorf("%w: %d bytes after the end marker, not its 4 lines (grown, or cut inside the end section)", ErrDamaged, len(end))
	}
	for n, line := range lines[:4] {
		k, v, _ := strings.Cut(line, ": ")
		want := [...]string{"sections", "commands", "bytes", "sha256"}[n]
		if k != want {
			return nil, fmt.Errorf("%w: the end section's line %d is %q, not %s", ErrDamaged, n+1, trimQuote(line), want)
		}
		var err error
		switch k {
		case "sections":
			sections, err = strconv.Atoi(v)
		case "commands":
			commands, err = strconv.Atoi(v)
		case "bytes":
			size, err = strconv.Atoi(v)
		case "sha256":
			sum = v
		}
		if err != nil {
			return nil, fmt.Errorf("%w: the end section's %s is %q, not a number", ErrDamaged, k, trimQuote(v))
		}
	}
	if size != len(content) {
		return nil, fmt.Errorf("%w: %d bytes before the end section, which says %d (cut or grown)", ErrDamaged, len(content), size)
	}
	got := sha256.Sum256(content)
	if hex.EncodeToString(got[:]) != sum {
		return nil, fmt.Errorf("%w: its content does not match the end section's sha256 (bytes changed)", ErrDamaged)
	}
	a, err := fakeroot.Parse(content)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotArchive, err)
	}
	if !IsCapture(a) {
		return nil, fmt.Errorf("%w (no capture-root setting)", ErrNotArchive)
	}
	if len(a.Files) != sections || countCommands(a) != commands {
		return nil, fmt.Errorf("%w: %d sections and %d commands, the end section says %d and %d",
			ErrDamaged, len(a.Files), countCommands(a), sections, commands)
	}
	return a, nil
}

// countCommands is how many commands an archive records: the distinct
// NNN of its .capture/cmd/NNN.* sections.
func countCommands(a *fakeroot.Archive) int {
	seen := map[string]bool{}
	for _, f := range a.Files {
		if rest, ok := strings.CutPrefix(f.Path, ".capture/cmd/"); ok {
			num, _, _ := strings.Cut(rest, ".")
			seen[num] = true
		}
	}
	return len(seen)
}

// trimQuote keeps an error line short whatever a damaged archive holds.
func trimQuote(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

func hasSetting(settings [][2]string, key string) bool {
	for _, kv := range settings {
		if kv[0] == key {
			return true
		}
	}
	return false
}
