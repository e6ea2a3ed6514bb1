package source

import (
	"errors"
	"testing"
)

func TestRDMADeviceDriver(t *testing.T) {
	src := fakeFS(t, netArchive)
	for _, tc := range []struct {
		name, dev, want string
		kind            error
	}{
		{"trailing slash", "rdma0", "ionic", nil},
		{"not a link", "plain", "", ErrRead},
		{"missing", "mlx5_0", "", ErrRead},
		{"dot-dot is not walked", "..", "", ErrName},
		{"slash is not walked", "rdma0/../rdma0", "", ErrName},
		{"empty", "", "", ErrName},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := src.RDMADeviceDriver(tc.dev)
			if d != tc.want || !errors.Is(err, tc.kind) || (tc.kind == nil) != (err == nil) {
				t.Errorf("RDMADeviceDriver(%q) = %q, %v; want %q, %v", tc.dev, d, err, tc.want, tc.kind)
			}
		})
	}
}

func FuzzRDMADeviceDriver(f *testing.F) {
	f.Add("rdma0")
	f.Add("a/b")
	f.Fuzz(func(t *testing.T, dev string) {
		if sysName(dev) != nil {
			if _, err := NewFS(nil).RDMADeviceDriver(dev); !errors.Is(err, ErrName) {
				t.Fatalf("RDMADeviceDriver(%q) = %v, want ErrName", dev, err)
			}
		}
	})
}
