package fakeroot

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Format writes the archive in the text form Parse reads: the comment, then
// one section per file in the order given. Content that is not plain text
// (invalid UTF-8, carriage returns, NUL bytes other than as line ends, a
// line that looks like a section marker) is written as [base64]; a file
// whose lines all end in NUL (environ, cmdline) as [nul].
func Format(a *Archive) []byte {
	var b bytes.Buffer
	b.WriteString(a.Comment)
	if a.Comment != "" && !strings.HasSuffix(a.Comment, "\n") {
		b.WriteByte('\n')
	}
	for _, f := range a.Files {
		switch {
		case f.Errno != "":
			fmt.Fprintf(&b, "-- %s [errno %s] --\n", f.Path, f.Errno)
		case f.Link != "":
			fmt.Fprintf(&b, "-- %s -> %s --\n", f.Path, f.Link)
		case f.Dir:
			fmt.Fprintf(&b, "-- %s [dir] --\n", f.Path)
		case f.FIFO:
			fmt.Fprintf(&b, "-- %s [fifo] --\n", f.Path)
		default:
			formatFile(&b, f)
		}
	}
	return b.Bytes()
}

func formatFile(b *bytes.Buffer, f File) {
	var attrs []string
	switch f.Mode.Perm() {
	case 0o644:
	case 0o755:
		attrs = append(attrs, "exec")
	default:
		attrs = append(attrs, fmt.Sprintf("mode %04o", f.Mode.Perm()))
	}
	if f.Size >= 0 && f.Size != int64(len(f.Data)) {
		attrs = append(attrs, "size "+strconv.FormatInt(f.Size, 10))
	}
	if f.SHA256 != "" {
		attrs = append(attrs, "sha256 "+f.SHA256)
	}
	var body string
	data := string(f.Data)
	switch {
	case len(f.Sparse) > 0:
		attrs = append(attrs, "sparse")
		var s strings.Builder
		for _, c := range f.Sparse {
			fmt.Fprintf(&s, "%d %s\n", c.Off, strconv.Quote(string(c.Data)))
		}
		body = s.String()
	case data == "":
	case plainText(data):
		body = data
		if !strings.HasSuffix(data, "\n") {
			attrs = append(attrs, "noeol")
			body += "\n"
		}
	case strings.HasSuffix(data, "\x00") && plainText(strings.ReplaceAll(data, "\x00", "\n")) && !strings.Contains(data, "\n"):
		attrs = append(attrs, "nul")
		body = strings.ReplaceAll(data, "\x00", "\n")
	default:
		attrs = append(attrs, "base64")
		enc := base64.StdEncoding.EncodeToString(f.Data)
		var s strings.Builder
		for len(enc) > 76 {
			s.WriteString(enc[:76] + "\n")
			enc = enc[76:]
		}
		s.WriteString(enc + "\n")
		body = s.String()
	}
	b.WriteString("-- " + f.Path)
	for _, a := range attrs {
		b.WriteString(" [" + a + "]")
	}
	b.WriteString(" --\n")
	b.WriteString(body)
}

// plainText reports whether s survives Parse as written: UTF-8 without NUL
// or carriage return, and no line that reads as a section marker.
func plainText(s string) bool {
	if !utf8.ValidString(s) || strings.ContainsAny(s, "\x00\r") {
		return false
	}
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "-- ") && strings.HasSuffix(line, " --") && len(line) > 6 {
			return false
		}
	}
	return true
}

// SafePath reports whether a path (relative to the root) or link target
// survives a section marker: Parse would misread one with a line break, a
// " -> " or " --", a trailing "]" attribute shape, or a "..".
func SafePath(p string) bool {
	return p != "" && !strings.ContainsAny(p, "\n\r") && !strings.Contains(p, " -> ") &&
		!strings.Contains(p, " --") && !strings.Contains(p, "..") && !strings.HasSuffix(p, "]") &&
		!strings.HasPrefix(p, "/") && strings.TrimSpace(p) == p
}

// SafeTarget is SafePath for a link target, which may be absolute or
// climb with "..".
func SafeTarget(t string) bool {
	return t != "" && !strings.ContainsAny(t, "\n\r") && !strings.Contains(t, " --") &&
		strings.TrimSpace(t) == t
}
