package source

import (
	"strings"

	"aorta-probe/internal/pyfmt"
)

// RDMALink is one link of `rdma link` output.
type RDMALink struct {
	Device string  // the second token up to its first '/'
	State  *string // the token after "state"
	Netdev *string // the token after "netdev"
}

// ParseRDMALinks parses `rdma link` output (docs/hardware.md#nics):
//
//	link bnxt_re0/1 state ACTIVE physical_state LINK_UP netdev benic7p1
//
// A line needs at least two whitespace-separated tokens, the first being
// "link". Device is the second token up to its first '/'; State and Netdev
// are the tokens after the first "state" and "netdev" tokens (nil when
// missing or last).
func ParseRDMALinks(out string) []RDMALink {
	var links []RDMALink
	for _, line := range pyfmt.Splitlines(out) {
		t := pyfmt.Fields(line)
		if len(t) < 2 || t[0] != "link" {
			continue
		}
		dev, _, _ := strings.Cut(t[1], "/")
		links = append(links, RDMALink{Device: dev, State: tokenAfter(t, "state"), Netdev: tokenAfter(t, "netdev")})
	}
	return links
}

// tokenAfter is the token following the first occurrence of key in t.
func tokenAfter(t []string, key string) *string {
	for i, v := range t {
		if v == key {
			if i+1 < len(t) {
				s := t[i+1]
				return &s
			}
			return nil
		}
	}
	return nil
}
