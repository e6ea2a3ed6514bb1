package source

import (
	"fmt"
	"strconv"
	"strings"

	"aorta-probe/internal/machine"
)

// ProcStatus is the part of /proc/<pid>/status the isolation evidence uses.
type ProcStatus struct {
	Pid, PPid, TracerPid int
	// NSpid is the pid in each nested pid namespace, outermost first; more
	// than one value means the process is in a child pid namespace.
	NSpid []int
	// Has reports which of the fields above were present.
	Has map[string]bool
}

// ProcStatus reads and parses /proc/<pid>/status ("self" or a number); an
// unreadable one is ErrRead with an empty ProcStatus.
//
// Source: /proc/<pid>/status.
func (fs FS) ProcStatus(pid string) (ProcStatus, error) {
	p := fmt.Sprintf("/proc/%s/status", pid)
	b, err := fs.m.ReadFile(p, machine.MaxTextFile)
	if err != nil {
		return ProcStatus{Has: map[string]bool{}}, readErr(p, err)
	}
	return ParseProcStatus(string(b)), nil
}

// ParseProcStatus parses the "Key:\tvalue" lines of /proc/<pid>/status.
// Unknown keys and malformed lines are ignored; a malformed number leaves
// its field unset.
func ParseProcStatus(text string) ProcStatus {
	st := ProcStatus{Has: map[string]bool{}}
	for _, line := range strings.Split(text, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch k {
		case "Pid", "PPid", "TracerPid":
			n, err := strconv.Atoi(v)
			if err != nil {
				continue
			}
			switch k {
			case "Pid":
				st.Pid = n
			case "PPid":
				st.PPid = n
			default:
				st.TracerPid = n
			}
			st.Has[k] = true
		case "NSpid":
			var ns []int
			for _, f := range strings.Fields(v) {
				n, err := strconv.Atoi(f)
				if err != nil {
					ns = nil
					break
				}
				ns = append(ns, n)
			}
			if ns != nil {
				st.NSpid = ns
				st.Has[k] = true
			}
		}
	}
	return st
}
