package probe

import (
	"strconv"
	"strings"

	"aorta-probe/internal/machine"
)

// procStatus is the part of /proc/<pid>/status the isolation evidence uses.
type procStatus struct {
	Pid, PPid, TracerPid int
	// NSpid is the pid in each nested pid namespace, outermost first; more
	// than one value means the process is in a child pid namespace.
	NSpid []int
	// Has reports which of the fields above were present.
	Has map[string]bool
}

// parseProcStatus parses the "Key:\tvalue" lines of /proc/<pid>/status.
// Unknown keys and malformed lines are ignored; a malformed number leaves
// its field unset.
func parseProcStatus(text string) procStatus {
	st := procStatus{Has: map[string]bool{}}
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

// readProcStatus reads and parses /proc/self/status of root; an
// unreadable one reads empty.
func readProcStatus(root *machine.FS) (procStatus, error) {
	st := procStatus{Has: map[string]bool{}}
	b, err := root.ReadFile("/proc/self/status", machine.MaxTextFile)
	if err == nil {
		st = parseProcStatus(string(b))
	}
	return st, err
}
