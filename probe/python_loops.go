package probe

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"
)

// Loops of the Python bridge (docs/python.md, "Loops"): an interpreter
// that is the probe, or a wrapper that starts it, would run the probe
// again, and each copy the next. refuseInterpreter stops the probe
// itself (same file as PythonOptions.Self) and a probe that finds
// HelperMarker in its environment; ancestorProbe stops the rest, a copy
// of the probe started by a wrapper that dropped the marker (sudo, env
// -i, a launcher that builds its own environment): a probe that has
// itself, or a copy of itself, among its ancestor processes runs no
// interpreter. One level, then a reason.

// ancestorProbe is the pid of the nearest ancestor of process start
// (itself included) that runs self or a byte-identical copy of it, read
// from proc (/proc): each process's exe, and its parent from its stat.
// 0 when there is none, or when proc cannot tell (not mounted, another
// user's process). The walk ends at pid 1 (or a pid namespace's init,
// whose parent is 0) or after maxAncestors.
func ancestorProbe(proc string, start int, self string) int {
	me, err := os.Stat(self)
	if err != nil {
		return 0
	}
	var head []byte
	for pid, n := start, 0; pid > 1 && n < maxAncestors; n++ {
		dir := proc + "/" + strconv.Itoa(pid)
		if fi, err := os.Stat(dir + "/exe"); err == nil && fi.Size() == me.Size() {
			if os.SameFile(fi, me) {
				return pid
			}
			if head == nil {
				head = firstPage(self)
			}
			if head != nil && bytes.Equal(firstPage(dir+"/exe"), head) {
				return pid
			}
		}
		pid = parentPid(dir + "/stat")
	}
	return 0
}

// firstPage is the first 4 KiB of the file p, nil when unreadable. Two
// builds of a Go binary of the same size differ there: its build ID
// (the .note.go.buildid note) sits in the first page.
func firstPage(p string) []byte {
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	b := make([]byte, 4096)
	n, err := io.ReadFull(f, b)
	if err != nil && err != io.ErrUnexpectedEOF {
		return nil
	}
	return b[:n]
}

// parentPid is the parent pid in a /proc/PID/stat file ("pid (comm)
// state ppid …", comm may hold spaces and parentheses), 0 when
// unreadable.
func parentPid(stat string) int {
	b, err := os.ReadFile(stat)
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}
