package source

import (
	"strings"

	"aorta-probe/internal/pyfmt"
)

// CgroupLine is one line of /proc/<pid>/cgroup: "hierarchy-ID:controllers:path".
type CgroupLine struct {
	ID          string
	Controllers []string
	Path        string
}

// ParseCgroup parses /proc/<pid>/cgroup. Lines that do not have three
// colon-separated fields are skipped (the path itself may contain colons).
func ParseCgroup(text string) []CgroupLine {
	var out []CgroupLine
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
		out = append(out, CgroupLine{ID: id, Controllers: ctls, Path: path})
	}
	return out
}

// CgroupRuntimeTokens are the substrings of /proc/<pid>/cgroup that name
// a container runtime (the Python probe's container_detected test,
// docs/isolation.md#the-signals), in its order.
var CgroupRuntimeTokens = []string{"docker", "containerd", "kubepods", "libpod", "lxc", "crio"}

// CgroupTokens returns the CgroupRuntimeTokens contained anywhere in text,
// in token order.
func CgroupTokens(text string) []string {
	var hit []string
	for _, t := range CgroupRuntimeTokens {
		if strings.Contains(text, t) {
			hit = append(hit, t)
		}
	}
	return hit
}

// CgroupContainerID is the container id in /proc/<pid>/cgroup text
// (docs/fields-process.md#docker-caller-asserted--process): in the first
// line (Python splitlines) holding a run of 12 or more lower-case hex
// digits, the leftmost such run, cut to 64 characters. It is a plain
// search: a k8s pod-UID fragment can win over a later containerd id.
func CgroupContainerID(text string) (string, bool) {
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
