package probe

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"aorta-probe/internal/archive"
	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/internal/pyjson"
	"aorta-probe/schema"
)

// pythonHelperStdin is what the workload interpreter reads as `PYTHON -`
// once per collection: python_helper.py, the standard-library-only helper
// (docs/python.md), without its comment and blank lines, zlib-compressed
// and base64-encoded in a one-line bootstrap that decompresses, compiles
// and runs it. Python reads a script on stdin about twenty times slower
// per byte than a script file (0.2 ms per KiB here), so the 27 KiB source
// would cost 5 ms; the 9 KiB bootstrap costs under 2. Generated from
// python_helper.py by `go test ./probe -run TestHelperStdin -update`;
// TestHelperStdin checks it is current.
//
//go:embed python_helper.stdin
var pythonHelperStdin []byte

// pythonHelperSeekable is pythonHelperStdin after a coding line. CPython
// (3.11 at least) reads a script in UTF-8 from stdin one byte per read(2),
// 8,800 system calls for the bootstrap, about 20 ms on a loaded VM; a
// script that declares another encoding it reads through a buffered
// decoder, in a few calls, but only from a seekable stdin: from a pipe it
// fails with "SyntaxError: encoding problem" before running anything. The
// bootstrap is ASCII, so latin-1 reads it as the same text, and it
// compiles the helper from its own bytes: the facts are the same.
var pythonHelperSeekable = append([]byte("# -*- coding: latin-1 -*-\n"), pythonHelperStdin...)

// seekableStdin is a file holding b, at offset 0: the helper's stdin (exec
// passes an *os.File as the child's descriptor). It is a memory file made
// by newMemfd (machine.Memfd): no filesystem is touched, and a FROM-scratch
// container without a /tmp has one too; where the kernel or a seccomp
// filter refuses it, a deleted temporary file under $TMPDIR.
func seekableStdin(b []byte, newMemfd func(name string) (*os.File, error)) (*os.File, error) {
	f, err := newMemfd("aorta-probe-helper")
	if err != nil {
		f, err = os.CreateTemp("", "aorta-probe-helper-")
		if err != nil {
			return nil, err
		}
		os.Remove(f.Name())
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", f.Name(), err)
	}
	if _, err := f.Seek(0, 0); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", f.Name(), err)
	}
	return f, nil
}

// readStdinThroughPipe reports a helper run that failed because the
// interpreter read the coding line from a pipe (a wrapper that forwards
// its stdin, such as `docker exec -i`): nothing on stdout, and CPython's
// "encoding problem" on stderr.
func readStdinThroughPipe(r machine.Result) bool {
	return r.ExitCode != 0 && !r.TimedOut() && len(r.Stdout) == 0 && bytes.Contains(r.Stderr, []byte("encoding problem"))
}

// DefaultPythonTimeout bounds the helper run. It stays below the collection
// deadline (60 s by default) so that a helper that hangs in `import torch`
// is killed with time left for nm/c++filt and the rest of the document.
const DefaultPythonTimeout = 40 * time.Second

// pythonMaxOutput caps the helper's stdout: the facts are kilobytes, plus
// /proc/self/maps of a process that mapped torch (hundreds of KiB).
// pythonMaxStderr caps its stderr, which can hold torch's import-time
// warnings before the traceback whose last line a reason quotes.
const (
	pythonMaxOutput = 16 << 20
	pythonMaxStderr = 4 << 20
	// pythonMemoryLimit bounds the helper's data (RLIMIT_DATA, as every
	// tool's: machine.DefaultMemoryLimit, docs/python.md): importing
	// torch maps its libraries' writable data and allocates its
	// operator registry, several hundred MiB, so the helper gets room
	// for many times that, and still a bound on a runaway.
	pythonMemoryLimit = 8 << 30
)

// Bridge outcomes (pyFacts.outcome).
const (
	pyOK       = "ok"        // the helper reported every step
	pyDisabled = "disabled"  // --no-python
	pyNotFound = "not_found" // no interpreter to run
	pyNoStart  = "no_start"  // the interpreter could not be started
	pyTimeout  = "timeout"   // killed at its timeout (or the deadline)
	pyFailed   = "failed"    // exited without a complete helper document
	pyRefused  = "refused"   // not run: it would make the probe run itself
)

// pyFacts is what one helper run reported: the facts of the bridge
// (docs/python.md#1-the-bridge), with the outcome of the run. A nil
// sub-struct means the helper never reached that step.
type pyFacts struct {
	// interrupted is true when the deadline or SIGTERM killed the helper:
	// what it did not report is unknown, not absent.
	interrupted bool
	outcome     string
	detail      string // why the run was not ok, for the python_version reason
	stage       string // the step in progress when the helper was killed
	command     *cmdRecord
	// bounded says which helper values were out of bounds (bounds.go) and
	// were replaced by null, for python_version's reasons.
	bounded []string

	Interpreter *pyInterpreter
	// TorchSites is the import outcome per call site: ok, ImportError or
	// the class name of what the import raised.
	TorchSites map[string]string
	Torch      *pyTorch
	Tensile    *pyPackage
	Triton     *pyPackage
	FBGEMM     *pyPackage
	TorchRec   *pyTorchRec
	Aiter      *pyAiter
}

type pyInterpreter struct {
	PythonVersion string  `py:"python_version"`
	Prefix        string  `py:"prefix"`
	BasePrefix    string  `py:"base_prefix"`
	Executable    string  `py:"executable"`
	RocmSDKCore   *string `py:"rocm_sdk_core"`
	// Dists is importlib.metadata.version of rocm and rocm-sdk-core.
	Dists map[string]pyCall `py:"dists"`
}

// pyCall is the outcome of calling or looking up one attribute.
type pyCall struct {
	State string `py:"state"` // missing | ok | raised
	Exc   string `py:"exc"`
	Value any    `py:"value"`
	Text  string `py:"text"`
}

type pyTorch struct {
	File          any                `py:"file"`
	Version       *string            `py:"version"`
	VersionModule *pyTorchVersionMod `py:"version_module"`
	ConfigShow    pyCall             `py:"config_show"`
	ArchList      pyCall             `py:"arch_list"`
	BackendsCUDA  map[string]pyCall  `py:"backends_cuda"`
	Maps          *string            `py:"maps"`
}

type pyTorchVersionMod struct {
	GitVersion any `py:"git_version"`
	HIP        any `py:"hip"`
	CUDA       any `py:"cuda"`
	Debug      any `py:"debug"`
}

// fileDir is the directory of torch.__file__, or "" when it is missing or
// not a non-empty string.
func (t *pyTorch) fileDir() string {
	f, _ := t.File.(string)
	if f == "" {
		return ""
	}
	return pyDirname(f)
}

type pyPackage struct {
	Outcome string    `py:"outcome"`
	Version *string   `py:"version"`
	Attrs   []*string `py:"attrs"`
}

type pyTorchRec struct {
	Block   schema.TorchRec `py:"block"`
	Reasons []string        `py:"reasons"`
}

type pyAiter struct {
	Outcome        string `py:"outcome"`
	Version        any    `py:"version"`
	VersionPresent bool   `py:"version_present"`
	File           any    `py:"file"`
	Dists          []struct {
		Name  string `py:"name"`
		State string `py:"state"`
		Value any    `py:"value"`
	} `py:"dists"`
	MetaSpec *struct {
		Origin    any      `py:"origin"`
		Locations []string `py:"locations"`
	} `py:"meta_spec"`
}

// helperElement is one line of the helper's output array.
type helperElement struct {
	Begin       *string        `py:"begin"`
	Interpreter *pyInterpreter `py:"interpreter"`
	TorchSite   *string        `py:"torch_site"`
	Outcome     string         `py:"outcome"`
	Torch       *pyTorch       `py:"torch"`
	Tensile     *pyPackage     `py:"Tensile"`
	Triton      *pyPackage     `py:"triton"`
	FBGEMM      *pyPackage     `py:"fbgemm_gpu"`
	TorchRec    *pyTorchRec    `py:"torchrec"`
	Aiter       *pyAiter       `py:"aiter"`
	HelperError *string        `py:"helper_error"`
	Done        bool           `py:"done"`
}

// pythonInterpreter chooses the interpreter: --python, else
// $AORTA_PROBE_PYTHON, else python3, else python on the search path. It
// returns the argv[0] to run, the executable path ("" when it cannot be
// resolved) and whether any choice was made at all.
func pythonInterpreter(c *collector) (argv0, path string, chosen bool) {
	name := c.opt.Python.Interpreter
	if name == "" {
		name, _ = c.opt.Env("AORTA_PROBE_PYTHON")
	}
	if name != "" {
		if strings.Contains(name, "/") && !filepath.IsAbs(name) {
			name = filepath.Join(c.opt.Cwd, name)
		}
		p, _ := c.which(name)
		return name, p, true
	}
	for _, n := range []string{"python3", "python"} {
		if p, ok := c.which(n); ok {
			return n, p, true
		}
	}
	return "", "", false
}

// pythonTimeout is the helper's time bound: PythonOptions.Timeout, else
// DefaultPythonTimeout, at most two thirds of the collection deadline.
func pythonTimeout(opt Options) time.Duration {
	t := opt.Python.Timeout
	if t <= 0 {
		t = DefaultPythonTimeout
	}
	if limit := opt.Deadline * 2 / 3; limit > 0 && t > limit {
		t = limit
	}
	return t
}

// runPythonBridge runs the helper once with the chosen interpreter and
// turns its output into facts. It never fails: every way the run can go
// wrong is an outcome with a detail for the python_version reason.
func runPythonBridge(c *collector) *pyFacts {
	f := &pyFacts{TorchSites: map[string]string{}}
	if c.opt.Python.Disabled {
		f.outcome, f.detail = pyDisabled, "Python bridge disabled (--no-python)"
		return f
	}
	argv0, path, chosen := pythonInterpreter(c)
	if !chosen {
		f.outcome = pyNotFound
		f.detail = "no Python interpreter found (no --python, AORTA_PROBE_PYTHON unset, no python3 or python on PATH)"
		return f
	}
	if refused := refuseInterpreter(c.opt, path); refused != "" {
		f.outcome = pyRefused
		f.detail = fmt.Sprintf("interpreter %s not run: %s", argv0, refused)
		return f
	}
	st := &state{collector: c, name: "python"}
	// Path stays empty for a bare name which did not find: s.run then
	// fails the way exec does (ENOENT naming the program).
	cmd := machine.Command{Path: path, Argv: []string{argv0, "-"}, Stdin: pythonHelperStdin, Timeout: pythonTimeout(c.opt), MaxOutput: pythonMaxOutput, MaxStderr: pythonMaxStderr,
		MemoryLimit: pythonMemoryLimit, Env: []string{HelperMarker + "=" + strconv.Itoa(os.Getpid())}}
	// Stdin is a seekable file with the coding line (pythonHelperSeekable)
	// where a memory or temporary file can be made; the bootstrap alone
	// through a pipe otherwise, or when the interpreter got the file
	// through a pipe.
	if file, err := seekableStdin(pythonHelperSeekable, machine.Memfd); err == nil {
		defer file.Close()
		cmd.Stdin, cmd.StdinFrom = pythonHelperSeekable, file
	}
	r := st.run(cmd)
	if cmd.StdinFrom != nil && readStdinThroughPipe(r) {
		cmd.Stdin, cmd.StdinFrom = pythonHelperStdin, nil
		r = st.run(cmd)
	}
	if len(st.commands) > 0 {
		f.command = &st.commands[len(st.commands)-1]
	}
	parseHelperOutput(f, r.Stdout)
	if f.outcome != pyOK && f.detail == "" && isProbeDocument(r.Stdout) {
		f.detail = "an aorta-probe document: the interpreter runs a copy of this probe, which ran no interpreter itself"
	}
	switch {
	case st.cutShort(r):
		f.outcome, f.interrupted = pyTimeout, true
		f.detail = fmt.Sprintf("interpreter %s stopped when the collection ended (%s) while %s", argv0, c.interruption(), describeStage(f.stage))
	case r.TimedOut():
		f.outcome = pyTimeout
		f.detail = fmt.Sprintf("interpreter %s killed after %s while %s", argv0, cmd.Timeout, describeStage(f.stage))
	case errors.As(r.Err, new(*archive.NotCapturedError)):
		// A replay (docs/capture.md): not a failure of the interpreter.
		var nc *archive.NotCapturedError
		errors.As(r.Err, &nc)
		f.outcome = pyNoStart
		f.detail = fmt.Sprintf("interpreter %s: the capture archive holds no answer for it (%s)", argv0, heldInterpreters(nc.Held))
	case isStartError(r.LaunchErr()):
		f.outcome = pyNoStart
		f.detail = fmt.Sprintf("interpreter %s could not be started (%s)", argv0, pyfmt.ExcStr(r.Err))
	case f.outcome == pyOK:
	case r.Err != nil:
		f.outcome = pyFailed
		f.detail = fmt.Sprintf("interpreter %s exited %d before the helper reported (%s)", argv0, r.ExitCode, lastLine(r.Stderr, f))
	default:
		if f.outcome == "" {
			f.outcome = pyFailed
			f.detail = fmt.Sprintf("interpreter %s printed no complete helper document (%s)", argv0, lastLine(r.Stderr, f))
		}
	}
	return f
}

// heldInterpreters says which interpreters a capture archive holds
// answers for.
func heldInterpreters(held []string) string {
	if len(held) == 0 {
		return "the capture ran no interpreter"
	}
	return "the capture ran " + strings.Join(held, ", ")
}

// refuseInterpreter says why the interpreter at path must not be run, or
// "" when it may: it is this very binary (same device and inode as
// PythonOptions.Self, /proc/self/exe by default; a symbolic or hard link
// to it as well), or this probe itself runs inside another probe's helper
// run (HelperMarker set), where any interpreter may be a copy of the probe
// or a wrapper that starts one, or this binary or a copy of it is one of
// the probe's ancestor processes (ancestorProbe: a wrapper that dropped
// the marker). Either would loop: the probe running itself, each copy
// starting the next (docs/python.md, "Loops").
func refuseInterpreter(opt Options, path string) string {
	if v, ok := opt.Env(HelperMarker); ok && v != "" {
		return "this probe runs inside the Python helper run of another aorta-probe (" + HelperMarker + " is set), where running an interpreter could loop"
	}
	self := opt.Python.Self
	if self == "" {
		self = "/proc/self/exe"
	}
	if path == "" || opt.Replay != nil {
		// A replay runs no interpreter and reads nothing of its host
		// (docs/capture.md).
		return ""
	}
	a, err := os.Stat(path)
	if err != nil {
		return ""
	}
	if b, err := os.Stat(self); err == nil && os.SameFile(a, b) {
		return "it is this aorta-probe binary, which would run itself"
	}
	if pid := ancestorProbe("/proc", os.Getppid(), self); pid != 0 {
		return "this probe runs under another aorta-probe (process " + strconv.Itoa(pid) + ", this binary or a copy of it), where running an interpreter could loop"
	}
	return ""
}

// isProbeDocument reports whether a helper's stdout is an aorta-probe
// document (the interpreter was a copy of the probe that, finding the
// marker, ran no helper and printed its own document).
func isProbeDocument(out []byte) bool {
	head := out[:min(len(out), 256)]
	return bytes.HasPrefix(bytes.TrimSpace(head), []byte("{")) && bytes.Contains(head, []byte(`"schema_version"`))
}

// isStartError reports whether err (a Result.LaunchErr) says the
// interpreter could not be started at all.
func isStartError(err error) bool {
	var pe *fs.PathError
	return err != nil && (errors.As(err, &pe) || errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.ENOEXEC))
}

// describeStage names the step a killed helper was in.
func describeStage(stage string) string {
	switch {
	case stage == "":
		return "starting (before reporting anything)"
	case strings.HasPrefix(stage, "torch:"):
		return "importing torch (call site " + strings.TrimPrefix(stage, "torch:") + ")"
	case stage == "torch facts":
		return "reading torch attributes"
	}
	return "importing " + stage
}

// lastLine is the last non-empty stderr line (the exception line of a
// traceback), at most 200 characters, or what the helper said went wrong.
func lastLine(stderr []byte, f *pyFacts) string {
	if f.detail != "" {
		return f.detail
	}
	lines := pyfmt.Splitlines(strings.ToValidUTF8(string(stderr), "\uFFFD"))
	for i := len(lines) - 1; i >= 0; i-- {
		if l := pyfmt.Strip(lines[i]); l != "" {
			return pyfmt.FirstRunes(l, 200)
		}
	}
	return "no output on stderr"
}

// parseHelperOutput reads the helper's array line by line, so that the
// elements written before a kill still count. It sets f.outcome to ok only
// when the closing {"done": true} element arrived, and f.stage to the last
// step begun.
func parseHelperOutput(f *pyFacts, out []byte) {
	for _, line := range strings.Split(string(out), "\n") {
		// The helper writes "[", then one element per line, each but the
		// last followed by ",", then "]".
		line = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(line), ","), ",")
		if line == "" || line == "[" || line == "]" {
			continue
		}
		var e helperElement
		if err := pyjson.Unmarshal(line, &e); err != nil {
			continue // a torn last line of a killed helper
		}
		boundHelperElement(&e, func(name, why string) {
			f.bounded = append(f.bounded, fmt.Sprintf("helper value %s %s; recorded as null", name, why))
		})
		switch {
		case e.Begin != nil:
			f.stage = *e.Begin
		case e.Interpreter != nil:
			f.Interpreter = e.Interpreter
		case e.TorchSite != nil:
			f.TorchSites[*e.TorchSite] = e.Outcome
		case e.Torch != nil:
			f.Torch = e.Torch
		case e.Tensile != nil:
			f.Tensile = e.Tensile
		case e.Triton != nil:
			f.Triton = e.Triton
		case e.FBGEMM != nil:
			f.FBGEMM = e.FBGEMM
		case e.TorchRec != nil:
			f.TorchRec = e.TorchRec
		case e.Aiter != nil:
			f.Aiter = e.Aiter
		case e.HelperError != nil:
			f.detail = "helper error: " + pyfmt.FirstRunes(*e.HelperError, 200)
		case e.Done:
			f.outcome, f.stage = pyOK, ""
		}
	}
}

// importOutcome is how an import in the helper ended: importOK when the
// module was obtained, importMissing when it raised ImportError (it is not
// importable), else the class name of the exception it raised
// (TimeoutExpired when the helper was killed on the way).
type importOutcome string

const (
	importOK      importOutcome = "ok"
	importMissing importOutcome = "ImportError"
)

// imported says whether the import succeeded, and appends the reason of one
// that did not: "PREFIX: MODULE import raised (CLASS)" for an exception,
// "PREFIX: MISSING" for ImportError when missing is not "" (a documented
// absence is silent).
func (o importOutcome) imported(s *state, prefix, module, missing string) bool {
	switch o {
	case importOK:
		return true
	case importMissing:
		if missing != "" {
			s.reason("%s: %s", prefix, missing)
		}
	default:
		s.reason("%s: %s import raised (%s)", prefix, module, string(o))
	}
	return false
}

// torchAt is the torch import outcome at one call site, with the facts when
// torch was obtained. A site the helper never reached reads as ImportError
// when no interpreter ran (torch is simply not there) and as
// TimeoutExpired when the helper was killed on the way.
func (f *pyFacts) torchAt(site string) (*pyTorch, importOutcome) {
	o, ok := f.TorchSites[site]
	switch {
	case ok && o == "ok" && f.Torch != nil:
		return f.Torch, importOK
	case ok && o != "ok":
		return nil, importOutcome(o)
	case f.outcome == pyTimeout:
		return nil, "TimeoutExpired"
	}
	return nil, importMissing
}

// packageOutcome is the import outcome of a package step the same way:
// reported is the helper's ("ok" or the class raised) when present.
func (f *pyFacts) packageOutcome(reported string, present bool) importOutcome {
	switch {
	case present:
		return importOutcome(reported)
	case f.outcome == pyTimeout:
		return "TimeoutExpired"
	}
	return importMissing
}

// interpreterSites is where the workload interpreter's find_spec places
// _rocm_sdk_core: the package's parent directory, or nothing when the
// interpreter does not see it or none reported.
func interpreterSites(c *collector) []string {
	f := c.python()
	if f.Interpreter == nil {
		return nil
	}
	if d := f.Interpreter.RocmSDKCore; d != nil && *d != "" {
		return []string{pyDirname(*d)}
	}
	return nil
}
