package source

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseRDMALinks(t *testing.T) {
	l := func(dev string, state, netdev *string) RDMALink {
		return RDMALink{Device: dev, State: state, Netdev: netdev}
	}
	for _, tc := range []struct {
		name, in string
		want     []RDMALink
	}{
		{"broadcom trailing space", "link bnxt_re0/1 state ACTIVE physical_state LINK_UP netdev benic7p1 \n", []RDMALink{l("bnxt_re0", strp("ACTIVE"), strp("benic7p1"))}},
		{"ionic down", "link ionic_2/1 state DOWN physical_state DISABLED netdev enp137s0", []RDMALink{l("ionic_2", strp("DOWN"), strp("enp137s0"))}},
		{"no netdev", "link rdma7/1 state DOWN physical_state DISABLED", []RDMALink{l("rdma7", strp("DOWN"), nil)}},
		{"state last", "link rdma0/1 state", []RDMALink{l("rdma0", nil, nil)}},
		{"bare device", "link mlx5_0", []RDMALink{l("mlx5_0", nil, nil)}},
		{"too short", "link\n", nil},
		{"not a link line", "dev rdma0 state ACTIVE\n  link rdma1/1\n", []RDMALink{l("rdma1", nil, nil)}},
		{"first state token wins", "link a/1 state X state Y netdev n netdev m", []RDMALink{l("a", strp("X"), strp("n"))}},
		{"empty", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ParseRDMALinks(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ParseRDMALinks = %s, want %s", linksText(got), linksText(tc.want))
			}
		})
	}
}

func linksText(ls []RDMALink) string {
	var b strings.Builder
	for _, l := range ls {
		b.WriteString("[" + l.Device + " " + derefOr(l.State, "<nil>") + " " + derefOr(l.Netdev, "<nil>") + "]")
	}
	return b.String()
}

func FuzzParseRDMALinks(f *testing.F) {
	f.Add("link bnxt_re0/1 state ACTIVE physical_state LINK_UP netdev benic7p1 \n")
	f.Add("link x state\nlink y/ netdev")
	f.Fuzz(func(t *testing.T, in string) {
		for _, l := range ParseRDMALinks(in) {
			if strings.Contains(l.Device, "/") {
				t.Fatalf("device %q keeps a slash", l.Device)
			}
		}
	})
}
