package probe

import (
	"fmt"
	"strings"

	"aorta-probe/internal/machine"
	"aorta-probe/schema"
)

// mountInfo is one line of /proc/<pid>/mountinfo (proc(5)).
type mountInfo struct {
	ID, ParentID string
	Root         string // the path inside the filesystem that is mounted here
	MountPoint   string
	FSType       string
	Source       string
}

// parseMountInfo parses /proc/<pid>/mountinfo:
//
//	36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
//
// Optional fields end at the lone "-". Lines with too few fields are
// skipped; octal escapes (\040 for a space) in paths are decoded.
func parseMountInfo(text string) []mountInfo {
	var out []mountInfo
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) < 7 {
			continue
		}
		sep := -1
		for i := 6; i < len(f); i++ {
			if f[i] == "-" {
				sep = i
				break
			}
		}
		if sep < 0 || sep+2 >= len(f) {
			continue
		}
		out = append(out, mountInfo{
			ID: f[0], ParentID: f[1],
			Root: unescapeMount(f[3]), MountPoint: unescapeMount(f[4]),
			FSType: f[sep+1], Source: unescapeMount(f[sep+2]),
		})
	}
	return out
}

// unescapeMount decodes the \ooo octal escapes the kernel writes for space,
// tab, newline and backslash.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && isOctal(s, i+1) {
			b.WriteByte((s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0'))
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isOctal(s string, i int) bool {
	if i+3 > len(s) {
		return false
	}
	for _, c := range []byte(s[i : i+3]) {
		if c < '0' || c > '7' {
			return false
		}
	}
	return s[i] <= '3'
}

// rootMount returns the mount on "/" that is visible last (the top of any
// stack of mounts there).
func rootMount(ms []mountInfo) (mountInfo, bool) {
	var top mountInfo
	found := false
	for _, m := range ms {
		if m.MountPoint == "/" {
			top, found = m, true
		}
	}
	return top, found
}

// mountView is the root mount as /proc/self/mountinfo lists it.
type mountView struct {
	obs                     *string
	err                     error
	unlisted, containerLike bool
}

// readMountView reads /proc/self/mountinfo of root and finds the root
// mount in it.
func readMountView(root *machine.FS) *mountView {
	v := &mountView{}
	ms, err := root.ReadFile("/proc/self/mountinfo", 16<<20)
	if err != nil {
		v.err = err
		return v
	}
	all := parseMountInfo(string(ms))
	m, ok := rootMount(all)
	obs := "no mount on /"
	// A readable, non-empty mount table without "/" is a chroot into a
	// directory (with /proc mounted inside): the kernel hides mounts whose
	// mount point lies outside the process root, so the real root mount
	// is not listed.
	v.unlisted = !ok && len(all) > 0
	if ok {
		obs = fmt.Sprintf("%s %s (root %s)", m.FSType, m.Source, m.Root)
		switch m.FSType {
		case "overlay", "fuse-overlayfs", "aufs", "tmpfs":
			v.containerLike = true
		}
		v.containerLike = v.containerLike || m.Root != "/"
	}
	v.obs = schema.Str(obs)
	return v
}
