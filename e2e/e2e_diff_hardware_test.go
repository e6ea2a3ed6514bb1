package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"aorta-probe/internal/fakeroot"
	"aorta-probe/internal/testtree"
)

// mi308xVariant expands the real MI308X root (testdata/roots/
// gpus-mi308x-cpx.txtar: 8 GPUs, 32 kfd nodes, one hive) with edit
// applied to its archive and a boot_id (the boot fingerprint, which
// tells diff two documents come from one machine and boot), runs the
// built binary over it with --no-python, and returns the document's path.
func mi308xVariant(t *testing.T, bin, name, bootID string, edit func(*fakeroot.Archive)) string {
	t.Helper()
	root := testtree.ArchiveFile(t, "testdata/roots/gpus-mi308x-cpx.txtar", func(a *fakeroot.Archive) {
		if edit != nil {
			edit(a)
		}
		a.Files = append(a.Files, fakeroot.File{Path: "proc/sys/kernel/random/boot_id", Data: []byte(bootID + "\n"), Mode: 0o644, Size: -1})
	})
	out := filepath.Join(t.TempDir(), name+".json")
	code, _, errs := runCmd(t, exec.Command(bin, "--root", root, "--no-python", out))
	if code != 0 {
		t.Fatalf("%s: exit %d: %s", name, code, errs)
	}
	return out
}

// kfdNodes rewrites the properties of the kfd nodes of one GPU (the
// domain and bus of their location_id) with f; a nil result removes the
// node, all its files.
func kfdNodes(a *fakeroot.Archive, domain, bus int, f func(props string) *string) {
	const dir = "sys/class/kfd/kfd/topology/nodes/"
	gone := map[string]bool{}
	for i := range a.Files {
		file := &a.Files[i]
		node, ok := strings.CutSuffix(strings.TrimPrefix(file.Path, dir), "/properties")
		if !ok || !strings.HasPrefix(file.Path, dir) {
			continue
		}
		p := string(file.Data)
		if loc := prop(p, "location_id"); prop(p, "domain") == domain && loc > 0 && loc>>8 == bus {
			if np := f(p); np != nil {
				file.Data = []byte(*np)
			} else {
				gone[node] = true
			}
		}
	}
	a.Files = slices.DeleteFunc(a.Files, func(f fakeroot.File) bool {
		rest, ok := strings.CutPrefix(f.Path, dir)
		node, _, _ := strings.Cut(rest, "/")
		return ok && gone[node]
	})
}

// noRender removes the render node of 0000:a4:00.0's first partition
// (renderD144), as when the DRM side of one GPU went away.
func noRender(a *fakeroot.Archive) {
	a.Files = slices.DeleteFunc(a.Files, func(f fakeroot.File) bool { return f.Path == "sys/class/drm/renderD144" })
}

func prop(props, key string) int {
	m := regexp.MustCompile(`(?m)^` + key + ` (\d+)$`).FindStringSubmatch(props)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// hardwareDiff runs diff --format json over two documents and returns
// the hardware group's differences, key and a and b as compact JSON.
func hardwareDiff(t *testing.T, bin, a, b string) []struct{ Key, A, B string } {
	t.Helper()
	_, out, errs := runCmd(t, exec.Command(bin, "diff", "--format", "json", a, b))
	var res struct {
		Differences []struct {
			Key   string          `json:"key"`
			Group string          `json:"group"`
			A     json.RawMessage `json:"a"`
			B     json.RawMessage `json:"b"`
		} `json:"differences"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("diff --format json: %v (stderr %q)\n%s", err, errs, out)
	}
	var hw []struct{ Key, A, B string }
	for _, d := range res.Differences {
		if d.Group == "hardware" {
			var a, b bytes.Buffer
			if err := errors.Join(json.Compact(&a, d.A), json.Compact(&b, d.B)); err != nil {
				t.Fatal(err)
			}
			hw = append(hw, struct{ Key, A, B string }{d.Key, a.String(), b.String()})
		}
	}
	return hw
}

// fingerprintLines are the metrics' fingerprint samples and the labels'
// env-fingerprint of a document.
func fingerprintLines(t *testing.T, bin, doc string) string {
	t.Helper()
	var keep []string
	for _, cmd := range []string{"metrics", "labels"} {
		code, out, errs := runCmd(t, exec.Command(bin, cmd, doc))
		if code != 0 {
			t.Fatalf("%s %s: exit %d: %s", cmd, doc, code, errs)
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "aorta_env_fingerprint_info") || strings.Contains(l, "env-fingerprint=") {
				keep = append(keep, l)
			}
		}
	}
	return strings.Join(keep, "\n")
}

// TestE2EDiffHardware runs the built binary over scenario variants of the
// real MI308X root (gpus-mi308x-cpx), each built from the archive here:
//
//   - a board moved from 0001:a5:00.0 to 0001:a7:00.0 (its sysfs paths,
//     links and kfd location_id), on another machine: no hardware
//     difference, in diff or --fleet, and the same metrics fingerprints
//     and NFD env-fingerprint label;
//   - the kfd nodes of 0000:a4:00.0 removed, on the same machine and
//     boot: that GPU is named; the same for one GPU leaving the hive;
//   - 0000:a4:00.0's render node gone: one row with its drm_reason, no
//     null per amdgpu attribute, and the brief names why.
func TestE2EDiffHardware(t *testing.T) {
	t.Parallel()
	bin := e2eBinary(t)
	const boot, otherBoot = "6b8f3f0e-1c1a-4c5e-9a55-0000000000a1", "6b8f3f0e-1c1a-4c5e-9a55-0000000000b2"
	base := mi308xVariant(t, bin, "base", boot, nil)

	t.Run("a board in another slot is the same hardware", func(t *testing.T) {
		moved := mi308xVariant(t, bin, "moved", otherBoot, func(a *fakeroot.Archive) {
			for i := range a.Files {
				f := &a.Files[i]
				f.Path = strings.ReplaceAll(f.Path, "0001:a5:00.0", "0001:a7:00.0")
				f.Link = strings.ReplaceAll(f.Link, "0001:a5:00.0", "0001:a7:00.0")
			}
			kfdNodes(a, 1, 0xa5, func(p string) *string {
				loc := prop(p, "location_id")
				p = strings.Replace(p, "location_id "+strconv.Itoa(loc)+"\n", "location_id "+strconv.Itoa(loc+0x200)+"\n", 1)
				return &p
			})
		})
		if doc, _ := os.ReadFile(moved); !strings.Contains(string(doc), `"0001:a7:00.0"`) || strings.Contains(string(doc), "0001:a5:00.0") {
			t.Fatalf("the variant did not move the board: %s", moved)
		}
		if hw := hardwareDiff(t, bin, base, moved); len(hw) != 0 {
			t.Errorf("hardware differences for a moved board: %+v", hw)
		}
		if a, b := fingerprintLines(t, bin, base), fingerprintLines(t, bin, moved); a != b || !strings.Contains(a, `group="hardware"`) {
			t.Errorf("fingerprints differ:\n%s\n--\n%s", a, b)
		}
		other := mi308xVariant(t, bin, "other", "6b8f3f0e-1c1a-4c5e-9a55-0000000000c3", nil)
		code, out, errs := runCmd(t, exec.Command(bin, "diff", "--fleet", "--format", "json", base, moved, other))
		var fleet struct {
			Outliers []struct {
				Name string `json:"name"`
			} `json:"outliers"`
		}
		if err := json.Unmarshal([]byte(out), &fleet); err != nil || code != 0 || len(fleet.Outliers) != 0 {
			t.Errorf("--fleet: exit %d, %v, outliers %+v (stderr %q)", code, err, fleet.Outliers, errs)
		}
	})

	t.Run("a GPU gone from kfd is named", func(t *testing.T) {
		gone := mi308xVariant(t, bin, "gone", boot, func(a *fakeroot.Archive) {
			kfdNodes(a, 0, 0xa4, func(string) *string { return nil })
		})
		hw := hardwareDiff(t, bin, base, gone)
		named := false
		for _, d := range hw {
			named = named || d.Key == "probe_provenance.gpus.devices[0000:a4:00.0]" && d.B == "null"
			if d.Key == "probe_provenance.gpus.devices[].numa_node" {
				t.Errorf("a NUMA spread on one machine: %+v", d)
			}
		}
		if !named {
			t.Errorf("0000:a4:00.0 not named: %+v", hw)
		}
		code, out, _ := runCmd(t, exec.Command(bin, "diff", base, gone))
		if code != 1 || !strings.Contains(out, "probe_provenance.gpus.devices[0000:a4:00.0]\n        A: gfx942 (AMD Instinct MI308X), 4 partitions\n        B: absent\n") {
			t.Errorf("the text report does not name the GPU (exit %d):\n%s", code, out)
		}
	})

	t.Run("a GPU leaving the hive is named", func(t *testing.T) {
		left := mi308xVariant(t, bin, "left", boot, func(a *fakeroot.Archive) {
			kfdNodes(a, 0, 0xa4, func(p string) *string {
				p = regexp.MustCompile(`(?m)^hive_id \d+$`).ReplaceAllString(p, "hive_id 0")
				return &p
			})
		})
		hw := hardwareDiff(t, bin, base, left)
		want := []struct{ Key, A, B string }{
			{"probe_provenance.gpus.hives", `[8]`, `[7]`},
			{"probe_provenance.gpus.devices[].hive", `[{"value":"hive of 8","count":1,"devices":["0000:a4:00.0"]}]`,
				`[{"value":"no hive","count":1,"devices":["0000:a4:00.0"]}]`},
		}
		if len(hw) != len(want) || hw[0] != want[0] || hw[1] != want[1] {
			t.Errorf("hardware differences\n got %+v\nwant %+v", hw, want)
		}
	})

	t.Run("a GPU whose render node is gone: one row with its reason", func(t *testing.T) {
		reason := `/sys/class/drm/renderD144/device does not exist`
		for _, b := range []string{mi308xVariant(t, bin, "norender", boot, noRender), mi308xVariant(t, bin, "norender-elsewhere", otherBoot, noRender)} {
			hw := hardwareDiff(t, bin, base, b)
			if len(hw) != 1 || hw[0].Key != "probe_provenance.gpus.devices[0000:a4:00.0].amdgpu_sysfs" ||
				hw[0].B != `{"amdgpu_sysfs":"not read","drm_reason":"`+reason+`"}` {
				t.Errorf("%s: hardware differences %+v", filepath.Base(b), hw)
			}
		}
		out := brief(t, bin, "testdata/roots/gpus-mi308x-cpx.txtar", noRender)
		want := "  gpus:      8 × gfx942 (AMD Instinct MI308X) CPX/NPS1, 32 partitions, 1 XGMI hive, VBIOS 113-M3080202-100, " +
			"VRAM 192 GiB, PCIe 32.0 GT/s x16, amdgpu sysfs not read on 1 GPU (0000:a4:00.0: " + reason + ")\n"
		if !strings.Contains(out, want) {
			t.Errorf("brief lacks\n%s\n%s", want, out)
		}
	})

	t.Run("the hostile scenario's brief says what was read", func(t *testing.T) {
		out := brief(t, bin, "testdata/roots/gpus-hostile.txtar", nil)
		if !strings.Contains(out, "  gpus:      at least 1 × gfx90a, no XGMI hive, ") || !strings.Contains(out, ", count unknown: /sys/class/kfd/kfd/topology/nodes/") {
			t.Errorf("brief:\n%s", out)
		}
	})
}

// brief is the binary's --summary of the scenario archive with edit
// applied.
func brief(t *testing.T, bin, archive string, edit func(*fakeroot.Archive)) string {
	t.Helper()
	root := testtree.ArchiveFile(t, archive, edit)
	code, out, errs := runCmd(t, exec.Command(bin, "--root", root, "--no-python", "--summary"))
	if code != 0 {
		t.Fatalf("--summary: exit %d: %s", code, errs)
	}
	return out
}
