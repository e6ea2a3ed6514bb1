package probe

import (
	"errors"
	"fmt"
	"io/fs"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"

	"aorta-probe/internal/archive"
	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/source"
	"aorta-probe/schema"
)

// The gpus block is read by a detached child (docs/hardware.md, "A read
// that never returns"; internal/machine/detached.go): its reads are the
// ones a wedged GPU, or a FUSE server that never answers, holds in the
// kernel for good (a kfd properties file, an amdgpu attribute whose show()
// waits on the reset, the device directories themselves), and a thread so
// held keeps the whole process from exiting. The child is this binary
// re-executed with DetachedGPUsArg; it runs collectGPUs over the same
// root, then reads the tuning block's files of each GPU it found (its
// settings and, with --tuning-state, its state: amdgpu pm and hwmon
// attributes, which stall on a hung GPU as the block's do), and sends
// both back, with what a capture must record of its reads. The tuning
// block's node-wide settings (/proc/sys, /proc/cmdline,
// /sys/devices/system, /sys/kernel, /sys/module) and the other probes' files (procfs, /etc, the ROCm trees, the NICs'
// and the PCI core's attributes) are read in the probe: no driver of a
// device that can hang answers them (docs/design-notes.md, "Reads that
// never return").

// DetachedGPUsArg is argv[1] of the detached GPU reader. It is no command
// of the usage text: only a collection starts it (ReadGPUsDetached).
const DetachedGPUsArg = "--detached-gpu-reader"

// detachedExe is the executable re-executed as the GPU reader; "" reads
// the GPUs in this process.
var detachedExe atomic.Pointer[string]

// ReadGPUsDetached makes every collection of this process read the gpus
// block in a detached child, exe (the binary: "/proc/self/exe")
// re-executed with DetachedGPUsArg. Only the binary calls it: a test
// process would start its test binary (the tests that do handle the
// argument, in TestMain).
func ReadGPUsDetached(exe string) { detachedExe.Store(&exe) }

// Bounds of the child's answer: the block, and with a capture what it
// recorded (files up to source.KFDPropertiesMax each). Larger is a failure.
const (
	detachedAnswerMax   = 64 << 20
	detachedRecordedMax = 1 << 30
)

// detachedGPUs is the child's answer: the gpus block, each GPU's tuning
// settings (and state) when the collection has the tuning block, and
// what it recorded for a capture.
type detachedGPUs struct {
	GPUs     schema.GPUs       `py:"gpus"`
	Tuning   *detachedTuning   `py:"tuning"`
	Recorded *archive.Recorded `py:"recorded"`
}

// detachedTuning is the tuning block's per-GPU reads made by the child
// after the gpus block (readTuningGPUs, readTuningState): the amdgpu pm
// and hwmon attributes a hung GPU holds as it holds the gpus block's.
type detachedTuning struct {
	GPUs  []schema.TuningGPU  `py:"gpus"`
	State *schema.TuningState `py:"state"`
	Panic string              `py:"panic"` // why reading them panicked, or ""
}

// The child's third argument: which of the tuning block's GPU reads it
// makes after the gpus block.
const (
	tuningNone      = "-"        // none (no tuning block)
	tuningSettings  = "settings" // the settings
	tuningWithState = "state"    // the settings and the state (--tuning-state)
)

// gpuReader is where one collection's gpus block, and the tuning block's
// per-GPU reads, come from: gpus delivers the block; tuning, when the
// child makes the tuning reads, delivers them (before gpus); nil, they
// are made in the probe, ahead (prefetchGPUs) when prefetch says so.
type gpuReader struct {
	gpus     <-chan schema.GPUs
	tuning   <-chan detachedTuning
	prefetch bool
}

// gpuReader starts the collection's GPU reader once (startGPUReader):
// the gpus row and the tuning row share it.
func (c *collector) gpuReader(workers int) gpuReader {
	c.readerOnce.Do(func() {
		mode := tuningNone
		if !c.opt.skipTuning && !c.opt.NoProvenance {
			mode = tuningSettings
			if c.opt.TuningState {
				mode = tuningWithState
			}
		}
		c.reader = c.startGPUReader(workers, mode)
	})
	return c.reader
}

// startGPUs reads the gpus block beside the probes (startGPUReader, no
// tuning reads).
func (c *collector) startGPUs(workers int) <-chan schema.GPUs {
	return c.startGPUReader(workers, tuningNone).gpus
}

// startGPUReader reads the gpus block beside the probes, and with mode
// the tuning block's per-GPU reads after it: in a detached child when the
// binary asked for it (ReadGPUsDetached) and this is no replay (an
// archive expanded by the probe itself: nothing there can hang), else in
// this process, as also when the child cannot be started (no /proc
// mounted, no process left under RLIMIT_NPROC). Without a kfd class
// directory (noKFD) the gpus block is read here and names no GPU, so
// nothing of a GPU is read ahead.
func (c *collector) startGPUReader(workers int, mode string) gpuReader {
	exe := detachedExe.Load()
	if c.opt.detachedExe != "" {
		exe = &c.opt.detachedExe
	}
	if exe == nil || c.opt.Replay != nil || c.opt.faults != nil {
		return gpuReader{gpus: startGPUs(c.root, workers), prefetch: true}
	}
	if noKFD(c.root) {
		return gpuReader{gpus: startGPUs(c.root, workers)}
	}
	// The child runs in "/": a relative --root is made absolute here
	// (a working directory since deleted leaves the block to the probe).
	host, err := filepath.Abs(c.root.HostRoot())
	if err != nil {
		return gpuReader{gpus: startGPUs(c.root, workers), prefetch: true}
	}
	budget := "-"
	if c.opt.Record != nil {
		budget = strconv.FormatInt(libcScanBudget, 10)
	}
	portable := "0"
	if c.opt.PortableResolve {
		portable = "1"
	}
	argv := []string{"aorta-probe", DetachedGPUsArg, host, c.opt.Cwd, portable, strconv.Itoa(workers), budget, mode}
	d, err := machine.StartDetached(*exe, argv)
	if err != nil {
		return gpuReader{gpus: startGPUs(c.root, workers), prefetch: true}
	}
	ch := make(chan schema.GPUs, 1)
	r := gpuReader{gpus: ch}
	var tch chan detachedTuning
	if mode != tuningNone {
		tch = make(chan detachedTuning, 1)
		r.tuning = tch
	}
	go func() {
		max := int64(detachedAnswerMax)
		if c.opt.Record != nil {
			max = detachedRecordedMax
		}
		b, code, err := d.Answer(c.ctx, max)
		if err != nil && c.ctx.Err() != nil {
			return // abandoned: awaitGPUs says the block was not finished
		}
		g, tu := detachedAnswer(b, code, err, c.opt.Record)
		if tch != nil {
			tch <- tu
		}
		ch <- g
	}()
	return r
}

// detachedAnswer is the block the child answered (b, its exit status
// code, or the error reading it), with its tuning reads, its recorded
// reads taken in by rec (nil: no capture). A child that failed read no
// GPU: the tuning reads are then none.
func detachedAnswer(b []byte, code int, err error, rec *archive.Recorder) (schema.GPUs, detachedTuning) {
	var ans detachedGPUs
	switch {
	case err != nil:
	case code < 0:
		err = fmt.Errorf("killed by signal %d", -code)
	case code != 0:
		err = fmt.Errorf("exit status %d", code)
	default:
		err = pyjson.Unmarshal(string(b), &ans)
	}
	if err != nil {
		return schema.GPUs{Hives: []schema.GPUHive{}, Devices: []schema.GPUDevice{},
			Reason: schema.Str(fmt.Sprintf("the GPU reader (a child of the probe) failed: %v", err))}, detachedTuning{}
	}
	if rec != nil && ans.Recorded != nil {
		rec.Absorb(*ans.Recorded)
	}
	tu := detachedTuning{}
	if ans.Tuning != nil {
		tu = *ans.Tuning
		for _, g := range tu.GPUs {
			intsOf(g.Settings)
		}
	}
	return ans.GPUs, tu
}

// intsOf makes each integer of m, a decoded pyjson.Number, the int64 the
// probe's own reads give (the rules compare int64s); the document is the
// same either way.
func intsOf(m pyjson.Map[any]) {
	for i, e := range m {
		if n, ok := e.Value.(pyjson.Number); ok && n.IsInteger() {
			if v, err := strconv.ParseInt(string(n), 10, 64); err == nil {
				m[i].Value = v
			}
		}
	}
}

// kfdClass is the kfd class directory: amdgpu's, absent without it.
const kfdClass = "/sys/class/kfd"

// noKFD reports whether the root has no kfd class directory (ENOENT):
// there is then no GPU file to read, and the block (its reason, "no kfd
// topology") is read in the probe, without a child, as on every machine
// without an AMD GPU. The lookup is the one amdgpu_driver makes in the
// probe anyway (kfd_sysfs_present); a sysfs lookup calls no driver, so no
// hung device holds it.
func noKFD(root *machine.FS) bool {
	_, err := root.Stat(kfdClass)
	return errors.Is(err, fs.ErrNotExist)
}

// DetachedGPUs is the detached GPU reader (the binary run with
// DetachedGPUsArg; args are the rest): it reads the gpus block of the
// root args name and writes it, with what it recorded for a capture, to
// machine.DetachedFD. args: the root's host path, the machine working
// directory, "1" for the portable resolver, the number of workers, and
// the capture's scan budget ("-": no capture), and which of the tuning
// block's GPU reads follow the block (tuningNone, tuningSettings,
// tuningWithState). It returns the exit status.
func DetachedGPUs(args []string) int {
	// The signals' default actions, not the probe's handler
	// (internal/signals): SIGTERM, SIGINT and SIGHUP end the reader.
	signal.Reset()
	out := machine.DetachedAnswer()
	defer out.Close()
	if len(args) != 6 || !slices.Contains([]string{tuningNone, tuningSettings, tuningWithState}, args[5]) {
		return 2
	}
	workers, err := strconv.Atoi(args[3])
	if err != nil {
		return 2
	}
	root := machine.NewFS(args[0], args[1], args[2] == "1")
	var rc *archive.Recorder
	if args[4] != "-" {
		budget, err := strconv.ParseInt(args[4], 10, 64)
		if err != nil {
			return 2
		}
		rc = archive.WatchDetached(root, budget)
	}
	ans := detachedGPUs{}
	if args[5] == tuningNone {
		ans.GPUs = <-startGPUs(root, workers)
	} else {
		ans.GPUs, ans.Tuning = readGPUsAndTuning(root, workers, args[5] == tuningWithState)
	}
	if rc != nil {
		r := rc.Export()
		ans.Recorded = &r
	}
	if _, err := out.Write(pyjson.EncodeCompact(ans)); err != nil {
		return 1
	}
	return 0
}

// readGPUsAndTuning is the child's gpus block and, after it, the tuning
// block's reads of its GPUs (the settings read ahead beside the block, as
// the probe reads them, and the state with state). A panic in the tuning
// reads is their answer, not the block's.
func readGPUsAndTuning(root *machine.FS, workers int, state bool) (schema.GPUs, *detachedTuning) {
	src := source.NewFS(root)
	ahead := make(chan map[string]prefetched, 1)
	tu := &detachedTuning{}
	go func() {
		defer func() {
			if v := recover(); v != nil {
				tu.Panic = fmt.Sprint(v)
				ahead <- nil
			}
		}()
		ahead <- prefetchGPUs(src, workers)
	}()
	g := <-startGPUs(root, workers)
	m := <-ahead
	if tu.Panic != "" {
		return g, tu
	}
	func() {
		defer func() {
			if v := recover(); v != nil {
				tu.GPUs, tu.State, tu.Panic = nil, nil, fmt.Sprint(v)
			}
		}()
		var ctxs []*gpuCtx
		tu.GPUs, ctxs = readTuningGPUs(src, g.Devices, m, workers)
		if state {
			tu.State = readTuningState(ctxs, workers)
		}
	}()
	return g, tu
}
