package source

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"aorta-probe/internal/machine"
)

func TestPCIIDs(t *testing.T) {
	got, err := fakeFS(t, `
-- sys/bus/pci/devices/0000:03:00.0/vendor --
0x1002
-- sys/bus/pci/devices/0000:03:00.0/device --
0x74A5
-- sys/bus/pci/devices/0000:f3:00.0/vendor --
0x14e4
-- sys/bus/pci/devices/0000:f3:00.0/device --
0x1760
`).PCIIDs()
	want := map[string]bool{"1002:74a5": true, "14e4:1760": true}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("PCIIDs = %v, %v; want %v", got, err, want)
	}
	for name, archive := range map[string]string{
		"no directory":   "",
		"device missing": "-- sys/bus/pci/devices/0000:03:00.0/vendor --\n0x1002\n",
		"vendor empty":   "-- sys/bus/pci/devices/0000:03:00.0/vendor --\n\n-- sys/bus/pci/devices/0000:03:00.0/device --\n0x74a5\n",
	} {
		t.Run(name, func(t *testing.T) {
			ids, err := fakeFS(t, archive).PCIIDs()
			if ids != nil || !(errors.Is(err, ErrRead) || errors.Is(err, ErrParse)) {
				t.Errorf("PCIIDs = %v, %v; want no list and an error", ids, err)
			}
		})
	}
}

func FuzzPCIIDs(f *testing.F) {
	f.Add([]byte("0x1002\n"), []byte("0x74a5"))
	f.Add([]byte(""), []byte("\xff"))
	f.Fuzz(func(t *testing.T, vendor, device []byte) {
		dir := t.TempDir()
		dev := filepath.Join(dir, "sys/bus/pci/devices/0000:03:00.0")
		if err := os.MkdirAll(dev, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, b := range map[string][]byte{"vendor": vendor, "device": device} {
			if err := os.WriteFile(filepath.Join(dev, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		ids, err := NewFS(machine.NewFS(dir, "/", false)).PCIIDs()
		if (err == nil) != (ids != nil) || len(ids) > 1 {
			t.Fatalf("PCIIDs = %v, %v", ids, err)
		}
		for id := range ids {
			if strings.Count(id, ":") < 1 {
				t.Fatalf("id %q has no colon", id)
			}
		}
	})
}
