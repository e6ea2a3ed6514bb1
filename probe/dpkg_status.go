package probe

import (
	"aorta-probe/internal/machine"
	"bufio"
	"bytes"
	"io"
	"strings"
)

// dpkgStatusPath is dpkg's status database, read by amdgpu_driver (which
// dpkg-query runs are worth starting) and rocm_installs (the version of
// the distribution's HIP runtime).
const dpkgStatusPath = "/var/lib/dpkg/status"

// dpkgStatusMax bounds the dpkg status database read: real ones are a few
// MiB (tens of thousands of packages stay under 64 MiB).
const dpkgStatusMax = 256 << 20

// dpkgStatus is what one streamed pass over dpkg's status database tells
// its two readers (collector.dpkgStatus reads it once per collection).
type dpkgStatus struct {
	// unknown: the database could not be read whole: missing,
	// unreadable, not a regular file (a FIFO or a device is never read),
	// or larger than dpkgStatusMax, before or while it was read.
	unknown bool
	// names are the Package: values that start with one of
	// amdgpuPackages (dpkgKnows), in file order: the pass keeps no other
	// name (a status database lists thousands).
	names []string
	// hipName and hipVersion are the first stanza of the HIP runtime
	// (hipRuntimePackage) whose Status ends in "installed"; "" for none.
	hipName, hipVersion string
}

// readDpkgStatus streams dpkg's status database under root once.
func readDpkgStatus(root *machine.FS) dpkgStatus {
	var st dpkgStatus
	f, fi, err := root.OpenRegular(dpkgStatusPath)
	if err != nil || fi.Size() > dpkgStatusMax {
		st.unknown = true
		return st
	}
	defer f.Close()
	lr := &io.LimitedReader{R: f, N: dpkgStatusMax}
	// The fields it reads are short lines; a line longer than the buffer
	// (a long Description) is skipped.
	r := bufio.NewReaderSize(lr, 16<<10)
	// pkg and ver are the current stanza's values, copied out of the
	// reader's buffer; a string is made only for a HIP runtime's stanza.
	var pkg, ver []byte
	installed := false
	endStanza := func() {
		if st.hipVersion == "" && installed && len(ver) > 0 && hipRuntimePackage(string(pkg)) {
			st.hipName, st.hipVersion = string(pkg), string(ver)
		}
		pkg, ver, installed = pkg[:0], ver[:0], false
	}
	for {
		line, err := r.ReadSlice('\n')
		if name, ok := bytes.CutPrefix(line, []byte("Package: ")); ok {
			name = bytes.TrimRight(name, "\r\n")
			for _, c := range amdgpuPackages {
				if bytes.HasPrefix(name, []byte(c)) {
					st.names = append(st.names, string(name))
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
			st.unknown = lr.N <= 0 // grew past the cap while read
			return st
		}
	}
}

// dpkgKnows reports, for each candidate (one of amdgpuPackages), whether
// dpkg's status database (the file dpkg-query -W reads) may have a package
// whose name starts with it: true when a Package: line does, or for every
// candidate when the database is unknown (dpkg-query then decides). Where
// it is known not to, the query's answer is known to be empty, and the
// 10–20 ms it costs are saved.
func dpkgKnows(st dpkgStatus, cands []string) map[string]bool {
	known := map[string]bool{}
	for _, c := range cands {
		if st.unknown {
			known[c] = true
			continue
		}
		for _, name := range st.names {
			if strings.HasPrefix(name, c) {
				known[c] = true
				break
			}
		}
	}
	return known
}

// dpkgStatus is dpkg's status database of the probed root, streamed once
// per collection (readDpkgStatus) whichever block asks first.
func (c *collector) dpkgStatus() dpkgStatus {
	if c.dpkg == nil { // a partial collector some tests build
		return readDpkgStatus(c.root)
	}
	return c.dpkg()
}
