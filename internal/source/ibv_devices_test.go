package source

import (
	"reflect"
	"strings"
	"testing"

	"aorta-probe/internal/pyfmt"
)

func TestParseIBVDevices(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"broadcom", "    device                 node GUID\n    ------              ----------------\n    bnxt_re0            d604e6fffe3e3890\n    bnxt_re1            d604e6fffe3e4348\n", []string{"bnxt_re0", "bnxt_re1"}},
		{"empty", "", nil},
		{"header only", "    device          \n    ------              ----------------\n", nil},
		// Real ibv_devices separates its columns with a TAB, and the ruler
		// rule admits only '-' and ' ': the ruler's first token is kept, as
		// in the Python probe, and later dropped by the driver binding (no
		// /sys/class/infiniband/------).
		{"tab ruler", "    device          \t   node GUID\n    ------          \t----------------\n", []string{"------"}},
		{"name only", "rdma0\n", []string{"rdma0"}},
		{"devices prefix is a header", "devicex 1\nrdma1 2\n", []string{"rdma1"}},
		{"ruler with spaces", " - - - \n--\nx\n", []string{"x"}},
		{"tabs", "\trdma2\tguid\n", []string{"rdma2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ParseIBVDevices(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ParseIBVDevices = %q, want %q", got, tc.want)
			}
		})
	}
}

func FuzzParseIBVDevices(f *testing.F) {
	f.Add("    device                 node GUID\n    ------    ---\n    bnxt_re0  d604\n")
	f.Fuzz(func(t *testing.T, in string) {
		for _, d := range ParseIBVDevices(in) {
			if d == "" || strings.IndexFunc(d, pyfmt.IsSpace) >= 0 || strings.HasPrefix(d, "device") {
				t.Fatalf("bad device %q", d)
			}
		}
	})
}
