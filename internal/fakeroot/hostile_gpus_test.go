package fakeroot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileGPUs: the kfd nodes and their amdgpu devices as asked: a
// device per GPU, or one renderD128 shared by every GPU; the non-node
// entries, firmware files, FIFOs and directories; page-sized values.
func TestHostileGPUs(t *testing.T) {
	root := t.TempDir()
	h := HostileGPUs{GPUs: 3, Firmware: 2, FIFOs: 1, Dirs: 1, NonNodes: 2, Page: true}
	if err := h.Build(root); err != nil {
		t.Fatal(err)
	}
	nodes, err := os.ReadDir(filepath.Join(root, "sys/class/kfd/kfd/topology/nodes"))
	if err != nil || len(nodes) != 5 {
		t.Fatalf("nodes %v %v", nodes, err)
	}
	props, err := os.ReadFile(filepath.Join(root, "sys/class/kfd/kfd/topology/nodes/2/properties"))
	if err != nil || !strings.Contains(string(props), "drm_render_minor 130\n") || !strings.Contains(string(props), "location_id 16\n") {
		t.Errorf("node 2 properties %q %v", props, err)
	}
	dev := filepath.Join(root, "sys/class/drm/renderD130/device")
	if b, err := os.ReadFile(filepath.Join(dev, "product_name")); err != nil || len(b) != 4096 {
		t.Errorf("product_name: %d bytes, %v", len(b), err)
	}
	fw, err := os.ReadDir(filepath.Join(dev, "fw_version"))
	if err != nil || len(fw) != 4 {
		t.Errorf("fw_version entries %v %v", fw, err)
	}
	shared := t.TempDir()
	if err := (HostileGPUs{GPUs: 3, SharedRender: true}).Build(shared); err != nil {
		t.Fatal(err)
	}
	drm, err := os.ReadDir(filepath.Join(shared, "sys/class/drm"))
	if err != nil || len(drm) != 1 || drm[0].Name() != "renderD128" {
		t.Errorf("shared render devices %v %v", drm, err)
	}
}
