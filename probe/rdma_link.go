package probe

import (
	"strings"

	"aorta-probe/internal/pyfmt"
	"aorta-probe/schema"
)

// parseRDMALinks parses `rdma link` output (docs/hardware.md#nics):
//
//	link bnxt_re0/1 state ACTIVE physical_state LINK_UP netdev benic7p1
//
// A line needs at least two whitespace-separated tokens, the first being
// "link". device is the second token up to its first '/'; state and netdev
// are the tokens after the first "state" and "netdev" tokens (nil when
// missing or last).
func parseRDMALinks(out string) []schema.RDMALink {
	var links []schema.RDMALink
	for _, line := range pyfmt.Splitlines(out) {
		t := pyfmt.Fields(line)
		if len(t) < 2 || t[0] != "link" {
			continue
		}
		dev, _, _ := strings.Cut(t[1], "/")
		links = append(links, schema.RDMALink{Device: dev, State: tokenAfter(t, "state"), Netdev: tokenAfter(t, "netdev")})
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
