package source

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"aorta-probe/internal/fakeroot"
	"aorta-probe/internal/golden"
	"aorta-probe/internal/machine"
	"aorta-probe/internal/testtree"
)

const kfdArchive = `
-- sys/class/kfd/kfd/topology/nodes/0/properties --
simd_count 0
gfx_target_version 0
-- sys/class/kfd/kfd/topology/nodes/10/properties --
simd_count 304
gfx_target_version 90402
-- sys/class/kfd/kfd/topology/nodes/2/properties --
simd_count 304
gfx_target_version 90402
location_id 768
-- sys/class/kfd/kfd/topology/nodes/02/properties --
simd_count 1
-- sys/class/kfd/kfd/topology/nodes/notanode/properties --
simd_count 1
`

// TestKFDNodes: the nodes in id order (10 after 2), entries whose name is
// not a decimal id skipped ("02", "notanode"), each node's properties and
// whether it is a GPU.
func TestKFDNodes(t *testing.T) {
	nodes, err := fakeFS(t, kfdArchive).KFDNodes(2)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range nodes {
		simd, _ := n.Props.Get(KFDSIMDCount)
		loc, hasLoc := n.Props.Get(KFDLocationID)
		got = append(got, fmt.Sprintf("%d simd %d gpu %v location %s", n.ID, simd, n.GPU(), golden.OrNull(map[bool]*uint64{true: &loc}[hasLoc])))
	}
	want := "0 simd 0 gpu false location null|2 simd 304 gpu true location 768|10 simd 304 gpu true location null"
	if strings.Join(got, "|") != want {
		t.Errorf("nodes\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
}

// TestKFDNodesErrors: no directory, too many entries, an unreadable or
// unusable node: each the error of its kind and path, the other nodes
// still read (nil only when the directory itself was not).
func TestKFDNodesErrors(t *testing.T) {
	const dir = "sys/class/kfd/kfd/topology/nodes/"
	many := ""
	for i := range KFDMaxNodes + 1 {
		many += "-- " + dir + strconv.Itoa(i) + " [dir] --\n"
	}
	for _, tc := range []struct {
		name, archive string
		kind          error
		path          string
		nodes         int // -1: nil
		propsErr      *KFDPropertiesError
	}{
		{"no topology", "-- etc/hostname --\nx\n", fs.ErrNotExist, KFDNodesDir, -1, nil},
		{"over the cap", many, ErrCap, KFDNodesDir, -1, nil},
		{"no properties", "-- " + dir + "3 [dir] --\n-- " + dir + "4/properties --\nsimd_count 0\n", fs.ErrNotExist, KFDProperties(3), 1, nil},
		{"unreadable", "-- " + dir + "3/properties [mode 0000] --\nsimd_count 4\n", ErrRead, KFDProperties(3), 0, nil},
		{"hex", "-- " + dir + "5/properties --\nsimd_count 0x4\nx -1\n", ErrParse, KFDProperties(5), 0,
			&KFDPropertiesError{Node: 5, Bad: 2, First: KFDFault{1, "simd_count 0x4", "has a value that is not an unsigned decimal"}}},
		{"empty", "-- " + dir + "5/properties --\n\n", ErrParse, KFDProperties(5), 0, &KFDPropertiesError{Node: 5, Empty: true}},
		{"neither", "-- " + dir + "5/properties --\nvendor_id 4098\n", ErrParse, KFDProperties(5), 0, &KFDPropertiesError{Node: 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "unreadable" && os.Geteuid() == 0 {
				t.Skip("root reads a mode 0000 file")
			}
			nodes, err := fakeFS(t, tc.archive).KFDNodes(1)
			var e *Error
			if !errors.Is(err, tc.kind) || !errors.As(err, &e) || e.Path != tc.path {
				t.Fatalf("error %v, want %v of %s", err, tc.kind, tc.path)
			}
			if n := len(nodes); tc.nodes < 0 && nodes != nil || tc.nodes >= 0 && (nodes == nil || n != tc.nodes) {
				t.Errorf("%d nodes (nil %v), want %d", n, nodes == nil, tc.nodes)
			}
			var bad *KFDPropertiesError
			if (tc.propsErr == nil) != !errors.As(err, &bad) || tc.propsErr != nil && *bad != *tc.propsErr {
				t.Errorf("properties error %+v, want %+v", bad, tc.propsErr)
			}
		})
	}
}

// generationBumper is a machine.Watcher that rewrites kfd's generation_id
// each time the nodes directory is listed (the first times of them),
// as kfd does when the topology changes under a reader.
type generationBumper struct {
	file     string
	times, n int
}

func (w *generationBumper) Listed(p string, _ []string) {
	if p != KFDNodesDir || w.n == w.times {
		return
	}
	w.n++
	os.WriteFile(w.file, []byte(strconv.Itoa(40+w.n)+"\n"), 0o644)
}
func (*generationBumper) Opened(string, int, *os.File, error, bool) {}
func (*generationBumper) Asked(string, string, bool, error)         {}
func (*generationBumper) Resolved(string)                           {}
func (*generationBumper) Hashed(string, string)                     {}

// TestKFDGenerationChanges: a topology whose generation_id changes while
// its nodes are read is read once more; a second change is ErrChanged,
// with the three generations, and the nodes of the second read.
func TestKFDGenerationChanges(t *testing.T) {
	for _, tc := range []struct {
		times, lists int
		gens         *KFDGenerations
	}{
		{0, 1, nil},
		{1, 2, nil},
		{2, 2, &KFDGenerations{40, 41, 42}},
		{5, 2, &KFDGenerations{40, 41, 42}},
	} {
		root := testtree.Archive(t, kfdArchive+"-- sys/class/kfd/kfd/topology/generation_id --\n40\n")
		m := machine.NewFS(root, "/", false)
		w := &generationBumper{file: filepath.Join(root, KFDGenerationID), times: tc.times}
		m.Watch(w)
		nodes, err := NewFS(m).KFDNodes(1)
		var gens *KFDGenerations
		if errors.As(err, &gens) != (tc.gens != nil) || tc.gens != nil && (*gens != *tc.gens || !errors.Is(err, ErrChanged)) || tc.gens == nil && err != nil {
			t.Errorf("changes %d: error %v, want generations %+v", tc.times, err, tc.gens)
		}
		if w.n != min(tc.times, tc.lists) || len(nodes) != 3 {
			t.Errorf("changes %d: listed %d times, %d nodes; want %d, 3", tc.times, w.n, len(nodes), min(tc.times, tc.lists))
		}
	}
}

// TestParseKFDProperties: kfd's "name value" lines parse; every line of
// another shape is counted, the first named with its number and why, and
// its value is not used.
func TestParseKFDProperties(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     map[KFDProp]uint64
		bad      int
		first    KFDFault // of the first bad line
	}{
		{"real", "cpu_cores_count 0\nsimd_count 80\ngfx_target_version 90402\nunique_id 598046273873802902\nhive_id 18091350218769748594\n",
			map[KFDProp]uint64{KFDSIMDCount: 80, KFDGfxTargetVersion: 90402, KFDUniqueID: 598046273873802902, KFDHiveID: 18091350218769748594}, 0, KFDFault{}},
		{"leading zeros", "simd_count 007\n", map[KFDProp]uint64{KFDSIMDCount: 7}, 0, KFDFault{}},
		{"empty", "", map[KFDProp]uint64{}, 0, KFDFault{}},
		{"blank lines", "\n\nsimd_count 4\n\n", map[KFDProp]uint64{KFDSIMDCount: 4}, 0, KFDFault{}},
		{"max", "unique_id 18446744073709551615\n", map[KFDProp]uint64{KFDUniqueID: 1<<64 - 1}, 0, KFDFault{}},
		{"unknown name ignored", "frobnicate 3\nsimd_count 4\n", map[KFDProp]uint64{KFDSIMDCount: 4}, 0, KFDFault{}},
		{"no final newline", "simd_count 4\ngfx_target_version 9", map[KFDProp]uint64{KFDSIMDCount: 4}, 1,
			KFDFault{2, "gfx_target_version 9", "is cut short (no line end)"}},
		{"repeated", "simd_count 4\nsimd_count 8\n", map[KFDProp]uint64{KFDSIMDCount: 4}, 1, KFDFault{2, "simd_count 8", "repeats simd_count"}},
		{"negative", "simd_count -1\n", map[KFDProp]uint64{}, 1, KFDFault{1, "simd_count -1", "has a value that is not an unsigned decimal"}},
		{"plus", "simd_count +1\n", map[KFDProp]uint64{}, 1, KFDFault{1, "simd_count +1", "has a value that is not an unsigned decimal"}},
		{"hex", "device_id 0x74a2\n", map[KFDProp]uint64{}, 1, KFDFault{1, "device_id 0x74a2", "has a value that is not an unsigned decimal"}},
		{"overflow", "unique_id 18446744073709551616\n", map[KFDProp]uint64{}, 1, KFDFault{1, "unique_id 18446744073709551616", "has a value that is not an unsigned decimal"}},
		{"no value", "simd_count\n", map[KFDProp]uint64{}, 1, KFDFault{1, "simd_count", "is not a name and a value"}},
		{"empty value", "simd_count \n", map[KFDProp]uint64{}, 1, KFDFault{1, "simd_count ", "has a value that is not an unsigned decimal"}},
		{"two spaces", "simd_count  4\n", map[KFDProp]uint64{}, 1, KFDFault{1, "simd_count  4", "has a value that is not an unsigned decimal"}},
		{"tab", "simd_count\t4\n", map[KFDProp]uint64{}, 1, KFDFault{1, "simd_count\t4", "is not a name and a value"}},
		{"trailing space", "simd_count 4 \n", map[KFDProp]uint64{}, 1, KFDFault{1, "simd_count 4 ", "has a value that is not an unsigned decimal"}},
		{"leading space", " simd_count 4\n", map[KFDProp]uint64{}, 1, KFDFault{1, " simd_count 4", "is not a name and a value"}},
		{"crlf", "simd_count 304\r\ngfx_target_version 90402\r\n", map[KFDProp]uint64{}, 2, KFDFault{1, "simd_count 304\r", "has a value that is not an unsigned decimal"}},
		{"unknown name, bad value", "frobnicate x\nsimd_count 4\n", map[KFDProp]uint64{KFDSIMDCount: 4}, 1, KFDFault{1, "frobnicate x", "has a value that is not an unsigned decimal"}},
		{"upper-case name", "SIMD_count 4\n", map[KFDProp]uint64{}, 1, KFDFault{1, "SIMD_count 4", "is not a name and a value"}},
		{"not UTF-8", "simd_count 4\xff\nnum_xcc \xfe\xfe\nsimd_per_cu 4\n", map[KFDProp]uint64{KFDSIMDPerCU: 4}, 2,
			KFDFault{1, "simd_count 4\xff", "has a value that is not an unsigned decimal"}},
		{"NUL", "simd_count 4\x00\n", map[KFDProp]uint64{}, 1, KFDFault{1, "simd_count 4\x00", "has a value that is not an unsigned decimal"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, bad, first := ParseKFDProperties([]byte(tc.in))
			got := map[KFDProp]uint64{}
			for k := range kfdPropCount {
				if v, ok := p.Get(k); ok {
					got[k] = v
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) || bad != tc.bad || first != tc.first {
				t.Errorf("got %v (bad %d, first %+v), want %v (bad %d, first %+v)", got, bad, first, tc.want, tc.bad, tc.first)
			}
		})
	}
}

// FuzzParseKFDProperties: any bytes parse without panic; a value found is
// that of the first well-formed line of its name; bad counts lines and
// first is one of them, by number; re-parsing the values found gives the
// same values and no bad line; a file without bad lines, lines with
// values or a final line end is not one kfd writes, so the block calls
// its node unusable (KFDUsable), and never silently a CPU.
func FuzzParseKFDProperties(f *testing.F) {
	for _, s := range []string{"simd_count 80\ngfx_target_version 90402\n", "unique_id 18446744073709551615", "\xff \xff\n", "a b c\n", "",
		"simd_count 304\r\ngfx_target_version 90402\r\n", "simd_count 4\nsimd_count 4\n"} {
		f.Add([]byte(s))
	}
	for _, fixture := range []string{"gpus-mi308x-cpx", "gpus-mi210-xgmi-pcie"} {
		if b, err := os.ReadFile("../../testdata/roots/" + fixture + ".txtar"); err == nil {
			if a, err := fakeroot.Parse(b); err == nil {
				for _, fl := range a.Files {
					if strings.HasSuffix(fl.Path, "/properties") {
						f.Add(fl.Data)
						break
					}
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, bad, first := ParseKFDProperties(b)
		lines := strings.Split(string(b), "\n")
		if bad < 0 || bad > len(lines) {
			t.Fatalf("bad %d for %d lines", bad, len(lines))
		}
		if (bad == 0) != (first == KFDFault{}) || bad > 0 && (first.Line < 1 || first.Line > len(lines) || lines[first.Line-1] != first.Text || first.Why == "") {
			t.Fatalf("bad %d, first %+v", bad, first)
		}
		var kept strings.Builder
		for k := range kfdPropCount {
			v, ok := p.Get(k)
			if !ok {
				continue
			}
			found := false
			for i, l := range lines {
				if val, ok := strings.CutPrefix(l, kfdPropNames[k]+" "); ok && i < len(lines)-1 {
					n, err := strconv.ParseUint(val, 10, 64)
					found = err == nil && n == v
					if err == nil {
						break // the first well-formed line counts
					}
				}
			}
			if !found {
				t.Fatalf("%s %d is not the first well-formed %s line", kfdPropNames[k], v, kfdPropNames[k])
			}
			kept.WriteString(kfdPropNames[k] + " " + strconv.FormatUint(v, 10) + "\n")
		}
		q, bad2, _ := ParseKFDProperties([]byte(kept.String()))
		if q != p || bad2 != 0 {
			t.Fatalf("re-parse differs: %v vs %v (bad %d)", q, p, bad2)
		}
		_, err := KFDUsable(7, b)
		var e *Error
		usable := bad == 0 && (p.has[KFDGfxTargetVersion] || p.has[KFDSIMDCount])
		if usable != (err == nil) || err != nil && (!errors.As(err, &e) || !errors.Is(err, ErrParse) || e.Path != KFDProperties(7)) {
			t.Fatalf("bad %d, has gfx %v simd %v: unusable %v", bad, p.has[KFDGfxTargetVersion], p.has[KFDSIMDCount], err)
		}
	})
}
