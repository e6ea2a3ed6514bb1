package probe

import (
	"unicode/utf8"

	"aorta-probe/internal/pyfmt"
)

// maxTextFile bounds read-text: version files, headers and sysfs attributes
// are bytes to kilobytes, and a multi-gigabyte "version" file must not be
// read into memory. A larger file reads as unreadable.
const maxTextFile = 4 << 20

// readText is read-text (docs/rocm-libraries.md#read-text): the whole
// file as strict UTF-8 with universal newlines, Python-stripped; nil when
// missing, unreadable, not UTF-8, or empty after stripping.
func (r *rootFS) readText(p string) *string {
	b, err := r.readFile(p, maxTextFile)
	if err != nil || !utf8.Valid(b) {
		return nil
	}
	s := pyfmt.Strip(pyfmt.UniversalNewlines(string(b)))
	if s == "" {
		return nil
	}
	return &s
}
