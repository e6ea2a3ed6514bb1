package probe

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"aorta-probe/internal/archive"
	"aorta-probe/internal/fakeroot"
	"aorta-probe/internal/golden"
	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/testtree"
)

// TestDetachedGPUs collects the real GPU captures with the gpus block read
// by the detached reader (this test binary re-executed: TestMain serves
// DetachedGPUsArg as main does) and in the probe: the block, the whole
// document and the capture archive must be the same, and the archive must
// replay to the same block. The tuning scenarios, with --tuning-state,
// have the reader make the tuning block's GPU reads too: the same again.
// A reader that cannot start leaves both blocks to the probe; one that
// fails says so in the gpus block, and the tuning block has no GPU.
func TestDetachedGPUs(t *testing.T) {
	for _, scenario := range []string{"gpus-mi308x-cpx", "gpus-mi210-xgmi-pcie", "gpus-hostile", "tuning-mi300x-deviating", "tuning-mi350x"} {
		t.Run(scenario, func(t *testing.T) {
			root := testtree.TempDir(t)
			a, err := fakeroot.Materialize("../testdata/roots/"+scenario+".txtar", root)
			if err != nil {
				t.Fatal(err)
			}
			collect := func(exe string, record bool) (doc, capture []byte) {
				opt := scenarioOptions(t, root, a)
				opt.Python.Disabled = true
				opt.detachedExe = exe
				opt.TuningState = strings.HasPrefix(scenario, "tuning-")
				if record {
					opt.Record = archive.NewRecorder(false)
				}
				snap := Collect(context.Background(), opt)
				normalizeScenario(snap, root)
				if record {
					capture = opt.Record.Archive("test capture\n")
				}
				return pyjson.Encode(snap), capture
			}
			inDoc, inArchive := collect("", true)
			exDoc, exArchive := collect(os.Args[0], true)
			if !bytes.Equal(inDoc, exDoc) {
				t.Errorf("document read by the detached reader differs:\n%s", golden.LineDiff(inDoc, exDoc))
			}
			if !strings.Contains(string(inDoc), `"physical_count": `) || strings.Contains(string(exDoc), "GPU reader") {
				t.Errorf("gpus block: %s", blockOf(t, exDoc))
			}
			if !bytes.Equal(inArchive, exArchive) {
				t.Errorf("capture archive through the detached reader differs:\n%s", golden.LineDiff(inArchive, exArchive))
			}
			if !strings.Contains(string(exDoc), `"sclk_max_mhz"`) || strings.Contains(string(exDoc), "panic while reading") {
				t.Errorf("tuning block read by the detached reader: %s", exDoc)
			}
			replayed := replayArchive(t, exArchive, Options{TuningState: strings.HasPrefix(scenario, "tuning-")})
			if got, want := blockOf(t, replayed), blockOf(t, exDoc); got != want {
				t.Errorf("replay of the archive: gpus\n%s\nwant\n%s", got, want)
			}
			if got, want := tuningOf(t, replayed), tuningOf(t, exDoc); got != want {
				t.Errorf("replay of the archive: tuning\n%s\nwant\n%s", got, want)
			}
			if doc, _ := collect("/nonexistent/aorta-probe", false); blockOf(t, doc) != blockOf(t, inDoc) || tuningOf(t, doc) != tuningOf(t, inDoc) {
				t.Errorf("reader not started: gpus %s, want the probe's own %s", blockOf(t, doc), blockOf(t, inDoc))
			}
			if doc, _ := collect("/bin/false", false); !strings.Contains(blockOf(t, doc), `"the GPU reader (a child of the probe) failed: exit status 1"`) ||
				!strings.Contains(tuningOf(t, doc), `"gpus": [], `) || strings.Contains(tuningOf(t, doc), `"reason": "`) {
				t.Errorf("reader failing: gpus %s, tuning %s", blockOf(t, doc), tuningOf(t, doc))
			}
		})
	}
}

// blockOf is the probe_provenance.gpus block of doc, compact.
func blockOf(t *testing.T, doc []byte) string {
	t.Helper()
	var d struct {
		Prov struct {
			GPUs any `py:"gpus"`
		} `py:"probe_provenance"`
	}
	if err := pyjson.Unmarshal(string(doc), &d); err != nil {
		t.Fatal(err)
	}
	return string(pyjson.EncodeCompact(d.Prov.GPUs))
}

// tuningOf is the probe_provenance.tuning block of doc, compact.
func tuningOf(t *testing.T, doc []byte) string {
	t.Helper()
	var d struct {
		Prov struct {
			Tuning any `py:"tuning"`
		} `py:"probe_provenance"`
	}
	if err := pyjson.Unmarshal(string(doc), &d); err != nil {
		t.Fatal(err)
	}
	return string(pyjson.EncodeCompact(d.Prov.Tuning))
}

// BenchmarkDetachedGPUs is the gpus block alone, read in the probe and by
// the detached reader (this test binary re-executed, larger than the
// probe), over this machine's own root ("/": without a kfd class no
// reader starts, noKFD) and the real MI308X node (32 partitions, under a
// root): the difference is the reader's start, its answer and its
// reaping. The block is read beside the probes, so a run waits for it
// only when it is the last to finish (docs/hardware.md, "A read that
// never returns").
//
//	go test ./probe -run XXX -bench DetachedGPUs -count 10
func BenchmarkDetachedGPUs(b *testing.B) {
	gpuRoot := b.TempDir()
	if _, err := fakeroot.Materialize("../testdata/roots/gpus-mi308x-cpx.txtar", gpuRoot); err != nil {
		b.Fatal(err)
	}
	for _, root := range []struct{ name, dir string }{{"live", "/"}, {"mi308x-32", gpuRoot}} {
		for _, tc := range []struct{ name, exe string }{{"in-probe", ""}, {"detached", os.Args[0]}} {
			b.Run(root.name+"/"+tc.name, func(b *testing.B) {
				opt := withDefaults(Options{Seams: machine.Seams{Root: root.dir}, Python: PythonOptions{Disabled: true}, detachedExe: tc.exe})
				c := newCollector(context.Background(), opt)
				for b.Loop() {
					<-c.startGPUs(gpusWorkers(opt))
				}
			})
		}
	}
}
