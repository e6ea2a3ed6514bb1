package source

import (
	"bufio"
	"bytes"
	"io"
	"syscall"
)

// DpkgStatusPath is dpkg's status database (the file dpkg-query -W reads).
const DpkgStatusPath = "/var/lib/dpkg/status"

// DpkgStatusMax bounds the dpkg status database read: real ones are a few
// MiB (tens of thousands of packages stay under 64 MiB).
const DpkgStatusMax = 256 << 20

// DpkgStatus is what one streamed pass over dpkg's status database keeps:
// a database lists thousands of packages, its readers ask about a few.
type DpkgStatus struct {
	// Names are the Package: values that start with one of the prefixes
	// asked for, in file order.
	Names []string
	// RuntimeName and RuntimeVersion are the first stanza whose name the
	// runtime predicate accepts and whose Status ends in "installed"; ""
	// for none.
	RuntimeName, RuntimeVersion string
}

// DpkgStatus streams dpkg's status database once, keeping the names that
// start with one of prefixes and the first installed package runtime
// accepts. A database that cannot be read whole (missing, unreadable, not
// a regular file — a FIFO or a device is never read — or larger than
// DpkgStatusMax, before or while it was read) is ErrRead, with what was
// read before it grew.
//
// Source: /var/lib/dpkg/status.
func (fs FS) DpkgStatus(prefixes []string, runtime func(name string) bool) (DpkgStatus, error) {
	f, fi, err := fs.m.OpenRegular(DpkgStatusPath)
	if err != nil {
		return DpkgStatus{}, readErr(DpkgStatusPath, err)
	}
	defer f.Close()
	if fi.Size() > DpkgStatusMax {
		return DpkgStatus{}, readErr(DpkgStatusPath, syscall.EFBIG)
	}
	lr := &io.LimitedReader{R: f, N: DpkgStatusMax}
	st := parseDpkgStatus(lr, prefixes, runtime)
	if lr.N <= 0 { // grew past the cap while read
		return st, readErr(DpkgStatusPath, syscall.EFBIG)
	}
	return st, nil
}

// ParseDpkgStatus is DpkgStatus over a status database's text.
func ParseDpkgStatus(text []byte, prefixes []string, runtime func(name string) bool) DpkgStatus {
	return parseDpkgStatus(bytes.NewReader(text), prefixes, runtime)
}

// parseDpkgStatus reads stanzas until r ends or fails (a read error keeps
// what was read).
func parseDpkgStatus(rd io.Reader, prefixes []string, runtime func(string) bool) DpkgStatus {
	var st DpkgStatus
	// The fields it reads are short lines; a line longer than the buffer
	// (a long Description) is skipped.
	r := bufio.NewReaderSize(rd, 16<<10)
	// pkg and ver are the current stanza's values, copied out of the
	// reader's buffer; a string is made only for a runtime's stanza.
	var pkg, ver []byte
	installed := false
	endStanza := func() {
		if st.RuntimeVersion == "" && installed && len(ver) > 0 && runtime(string(pkg)) {
			st.RuntimeName, st.RuntimeVersion = string(pkg), string(ver)
		}
		pkg, ver, installed = pkg[:0], ver[:0], false
	}
	for {
		line, err := r.ReadSlice('\n')
		if name, ok := bytes.CutPrefix(line, []byte("Package: ")); ok {
			name = bytes.TrimRight(name, "\r\n")
			for _, c := range prefixes {
				if bytes.HasPrefix(name, []byte(c)) {
					st.Names = append(st.Names, string(name))
					break
				}
			}
		}
		for err == bufio.ErrBufferFull { // a huge line: skipped, and ends the stanza
			_, err = r.ReadSlice('\n')
			line = nil
		}
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0:
			endStanza()
		case bytes.HasPrefix(line, []byte("Package: ")):
			pkg = append(pkg[:0], bytes.TrimSpace(line[len("Package: "):])...)
		case bytes.HasPrefix(line, []byte("Version: ")):
			ver = append(ver[:0], bytes.TrimSpace(line[len("Version: "):])...)
		case bytes.HasPrefix(line, []byte("Status: ")):
			installed = bytes.HasSuffix(bytes.TrimSpace(line), []byte(" installed"))
		}
		if err != nil {
			endStanza()
			return st
		}
	}
}
