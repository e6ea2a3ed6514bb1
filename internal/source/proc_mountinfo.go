package source

import "strings"

// Mount is one line of /proc/<pid>/mountinfo (proc(5)).
type Mount struct {
	ID, ParentID string
	Root         string // the path inside the filesystem that is mounted here
	MountPoint   string
	FSType       string
	Source       string
}

// MountInfoMax bounds the mountinfo read: a host with thousands of mounts
// writes a few MiB.
const MountInfoMax = 16 << 20

// SelfMountInfo is /proc/self/mountinfo, parsed (ParseMountInfo).
//
// Source: /proc/self/mountinfo.
func (fs FS) SelfMountInfo() ([]Mount, error) {
	const p = "/proc/self/mountinfo"
	b, err := fs.m.ReadFile(p, MountInfoMax)
	if err != nil {
		return nil, readErr(p, err)
	}
	return ParseMountInfo(string(b)), nil
}

// ParseMountInfo parses /proc/<pid>/mountinfo:
//
//	36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
//
// Optional fields end at the lone "-". Lines with too few fields are
// skipped; octal escapes (\040 for a space) in paths are decoded.
func ParseMountInfo(text string) []Mount {
	var out []Mount
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
		out = append(out, Mount{
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

// RootMount returns the mount on "/" that is visible last (the top of any
// stack of mounts there).
func RootMount(ms []Mount) (Mount, bool) {
	var top Mount
	found := false
	for _, m := range ms {
		if m.MountPoint == "/" {
			top, found = m, true
		}
	}
	return top, found
}
