package source

import (
	"strconv"
	"strings"
)

// meminfoMax bounds the /proc/meminfo read: about 1.5 KiB on a real
// kernel.
const meminfoMax = 16 << 10

// MemTotal is /proc/meminfo's MemTotal in bytes (the file says kB: KiB).
// LXCFS may rewrite the file in a container to show its limit.
func (fs FS) MemTotal() (int64, error) {
	const p = "/proc/meminfo"
	b, err := fs.m.ReadFile(p, meminfoMax)
	if err != nil {
		return 0, readErr(p, err)
	}
	n, ok := ParseMemTotal(string(b))
	if !ok {
		return 0, parseErr(p, "no MemTotal: <n> kB line")
	}
	return n, nil
}

// ParseMemTotal finds "MemTotal:       16384 kB" and returns its bytes.
func ParseMemTotal(text string) (int64, bool) {
	for _, line := range strings.Split(text, "\n") {
		rest, ok := strings.CutPrefix(line, "MemTotal:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, false
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || n < 0 || n > 1<<53/1024 {
			return 0, false
		}
		return n * 1024, true
	}
	return 0, false
}
