package probe

import (
	"strings"

	"aorta-probe/internal/pyfmt"
)

// cgroupRuntimeTokens are the substrings of /proc/self/cgroup that the
// Python probe's container_detected test looks for (docs/isolation.md#the-signals),
// in its order.
var cgroupRuntimeTokens = []string{"docker", "containerd", "kubepods", "libpod", "lxc", "crio"}

// cgroupTokens returns the cgroupRuntimeTokens contained anywhere in text,
// in token order.
func cgroupTokens(text string) []string {
	var hit []string
	for _, t := range cgroupRuntimeTokens {
		if strings.Contains(text, t) {
			hit = append(hit, t)
		}
	}
	return hit
}

// cgroupContainerID is docker.container_id
// (docs/fields-process.md#docker-caller-asserted--process): in the first line
// (Python splitlines) holding a run of 12 or more lower-case hex digits, the
// leftmost such run, cut to 64 characters. It is a plain search: a k8s
// pod-UID fragment can win over a later containerd id.
func cgroupContainerID(text string) (string, bool) {
	for _, line := range pyfmt.Splitlines(text) {
		for i := 0; i < len(line); {
			if !isLowerHex(line[i]) {
				i++
				continue
			}
			j := i
			for j < len(line) && isLowerHex(line[j]) {
				j++
			}
			if j-i >= 12 {
				return line[i:min(j, i+64)], true
			}
			i = j
		}
	}
	return "", false
}

func isLowerHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' }

// cgroupLine is one line of /proc/<pid>/cgroup: "hierarchy-ID:controllers:path".
type cgroupLine struct {
	ID          string
	Controllers []string
	Path        string
}

// parseCgroup parses /proc/<pid>/cgroup. Lines that do not have three
// colon-separated fields are skipped (the path itself may contain colons).
func parseCgroup(text string) []cgroupLine {
	var out []cgroupLine
	for _, line := range strings.Split(text, "\n") {
		id, rest, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		ctl, path, ok := strings.Cut(rest, ":")
		if !ok {
			continue
		}
		var ctls []string
		if ctl != "" {
			ctls = strings.Split(ctl, ",")
		}
		out = append(out, cgroupLine{ID: id, Controllers: ctls, Path: path})
	}
	return out
}
