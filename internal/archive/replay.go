package archive

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"aorta-probe/internal/fakeroot"
	"aorta-probe/internal/machine"
)

// Replay answers a collection from a capture archive (docs/capture.md):
// the archive's files are expanded into a private directory that becomes
// the root, its commands are answered from the archive, its environment,
// working directory, search path and uname are the captured ones. Nothing
// of the replaying host is read or executed.
type Replay struct {
	dir      string // the expanded root (host)
	root     string // the root the capture described ("/")
	archive  string // the archive replayed, absolute ("" when not loaded from a file)
	cwd      string
	path     []string
	uname    *machine.Uname
	unameErr string
	env      map[string]string
	withheld []string // set when captured, value not recorded
	settings map[string]string
	errs     map[string]syscall.Errno
	sums     map[string]string // machine path → "sha256:…"
	temps    map[int]string    // the captured TempName answers by attempt
	nsIDs    map[string]machine.NamespaceAnswer
	cut      *Cut                // where the capture was cut short, nil when it was not
	rootID   *machine.RootAnswer // the root-* settings, nil when none

	mu   sync.Mutex
	cmds map[string][]recCmd
	next map[string]int
}

// WithheldValue is what a replay sees for a variable that was set when
// captured but whose value an archive never holds (docs/capture.md): the
// probe's decisions on whether it is set replay, those on its value not.
const WithheldValue = "(withheld by aorta-probe capture)"

// IsCapture reports whether a parsed archive is a capture.
func IsCapture(a *fakeroot.Archive) bool {
	for _, kv := range a.Settings() {
		if kv[0] == "capture-root" {
			return true
		}
	}
	return false
}

// ErrNotArchive is the error of LoadReplay for a file that is no capture
// archive (a usage error for --root: docs/usage.md).
var ErrNotArchive = errors.New("not a capture archive")

// LoadReplay checks and parses the capture archive at path
// (ParseCapture: ErrNotArchive, ErrDamaged) and expands it into a new
// directory under tmp ("" is os.TempDir). Close removes it.
func LoadReplay(path, tmp string) (*Replay, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	a, err := ParseCapture(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	dir, err := os.MkdirTemp(tmp, "aorta-replay-")
	if err != nil {
		return nil, err
	}
	r, err := NewReplay(a, dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if r.archive, err = filepath.Abs(path); err != nil {
		r.archive = path
	}
	return r, nil
}

// NewReplay expands the parsed capture archive a into dir, the replayed
// machine's root, and returns its replay.
func NewReplay(a *fakeroot.Archive, dir string) (*Replay, error) {
	r := &Replay{dir: dir, root: "/", env: map[string]string{}, settings: map[string]string{},
		errs: map[string]syscall.Errno{}, sums: map[string]string{}, temps: map[int]string{}, cmds: map[string][]recCmd{}, next: map[string]int{}}
	for _, kv := range a.Settings() {
		if err := r.setting(kv[0], kv[1]); err != nil {
			return nil, err
		}
	}
	root, err := r.files(a)
	if err != nil {
		return nil, err
	}
	if err := root.Expand(dir); err != nil {
		return nil, err
	}
	return r, nil
}

// setting takes one "key: value" line of the archive's comment
// (Recorder.settings writes them).
func (r *Replay) setting(k, v string) error {
	switch k {
	case "capture-root":
		r.root = v
	case "cwd":
		r.cwd = v
	case "search-path":
		r.path = []string{}
		for _, d := range strings.Split(v, ":") {
			if d != "" {
				r.path = append(r.path, d)
			}
		}
	case "uname":
		f := strings.Split(v, "|")
		if len(f) == 3 {
			r.uname = &machine.Uname{Release: strings.TrimSpace(f[0]), Version: strings.TrimSpace(f[1]), Machine: strings.TrimSpace(f[2])}
		}
	case "uname-error":
		r.unameErr = v
	case "namespace-id", "namespace-id-reason":
		if r.nsIDs == nil {
			r.nsIDs = map[string]machine.NamespaceAnswer{}
		}
		kind, rest, _ := strings.Cut(v, " ")
		if k == "namespace-id-reason" {
			r.nsIDs[kind] = machine.NamespaceAnswer{Reason: rest}
			break
		}
		id, src, _ := strings.Cut(rest, " ")
		n, err := strconv.ParseUint(id, 10, 64)
		if err != nil {
			return fmt.Errorf("namespace-id: %q: %w", v, err)
		}
		r.nsIDs[kind] = machine.NamespaceAnswer{ID: n, Source: src}
	case "root-mount-id", "root-id-reason", "root-inode":
		if err := r.rootSetting(k, v); err != nil {
			return err
		}
	case "env":
		n, val, _ := strings.Cut(v, "=")
		r.env[n] = val
	case "env-withheld":
		r.withheld = append(r.withheld, v)
	case "temp-name":
		a, n, _ := strings.Cut(v, " ")
		i, err := strconv.Atoi(a)
		if err != nil || n == "" {
			return fmt.Errorf("bad temp-name %q", v)
		}
		r.temps[i] = n
	case "cut":
		r.cutShort().Why = v
	case "cut-unfinished":
		name, n, _ := strings.Cut(v, " ")
		count, err := strconv.Atoi(n)
		if err != nil || name == "" {
			return fmt.Errorf("bad cut-unfinished %q", v)
		}
		c := r.cutShort()
		c.Unfinished = append(c.Unfinished, CutProbe{Name: name, Commands: count})
	case "cut-not-started":
		c := r.cutShort()
		c.NotStarted = append(c.NotStarted, v)
	case "cut-roots":
		r.cutShort().RootsUnresolved = v == "unresolved"
	case "env-quoted":
		n, q, _ := strings.Cut(v, "=")
		val, err := strconv.Unquote(q)
		if err != nil {
			return fmt.Errorf("bad env-quoted %q", v)
		}
		r.env[n] = val
	default:
		r.settings[k] = v
	}
	return nil
}

func (r *Replay) cutShort() *Cut {
	if r.cut == nil {
		r.cut = &Cut{}
	}
	return r.cut
}

// Cut is where the captured collection was cut short by its deadline or
// a signal (docs/capture.md), nil when it finished.
func (r *Replay) Cut() *Cut { return r.cut }

// files sorts the archive's files: the commands' sections into r.cmds,
// the recorded errors into r.errs, the hashes into r.sums; what is left
// is the root to expand.
func (r *Replay) files(a *fakeroot.Archive) (*fakeroot.Archive, error) {
	root := &fakeroot.Archive{}
	byNum := map[string]*recCmd{}
	var order []string
	for _, f := range a.Files {
		if rest, ok := strings.CutPrefix(f.Path, ".capture/cmd/"); ok {
			num, part, _ := strings.Cut(rest, ".")
			c := byNum[num]
			if c == nil {
				c = &recCmd{}
				byNum[num] = c
				order = append(order, num)
			}
			if err := c.set(part, f.Data); err != nil {
				return nil, fmt.Errorf("%s: %w", f.Path, err)
			}
			continue
		}
		if f.Errno != "" {
			op, name, _ := strings.Cut(f.Errno, " ")
			r.errs[op+" /"+f.Path] = ErrnoByName(name)
			continue
		}
		if f.SHA256 != "" {
			r.sums["/"+f.Path] = "sha256:" + f.SHA256
		}
		root.Files = append(root.Files, f)
	}
	for _, n := range order {
		c := byNum[n]
		k := c.key()
		r.cmds[k] = append(r.cmds[k], *c)
		if c.stdin != "" {
			// Also by argv and directory alone: a newer binary's Python
			// helper (another stdin) still gets the captured answer.
			loose := *c
			loose.stdin = "*"
			k := loose.key()
			r.cmds[k] = append(r.cmds[k], *c)
		}
	}
	return root, nil
}

// set fills one part of a command from its archive section.
func (c *recCmd) set(part string, data []byte) error {
	switch part {
	case "argv":
		c.argv = strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
	case "stdout":
		c.res.Stdout = data
	case "stderr":
		c.res.Stderr = data
	case "out":
		c.out, c.outKept = data, true
	case "meta":
		for _, line := range strings.Split(string(data), "\n") {
			k, v, _ := strings.Cut(line, ": ")
			switch k {
			case "dir":
				c.dir = v
			case "stdin-sha256":
				c.stdin = v
			case "out-file":
				c.outFile = v
			case "exit":
				c.res.ExitCode, _ = strconv.Atoi(v)
			case "truncated":
				c.res.Truncated = v == "true"
			case "cut":
				c.res.Cut = v == "true"
			case "error":
				c.res.Err = decodeCmdError(v, c.res.ExitCode)
				if c.res.Err == nil {
					return fmt.Errorf("bad error line %q", line)
				}
			}
		}
	}
	return nil
}

func decodeCmdError(v string, code int) error {
	kind, rest, _ := strings.Cut(v, " ")
	switch kind {
	case "exit":
		return &machine.ExitError{Code: code}
	case "timeout":
		return machine.ErrTimeout
	case "text":
		s, err := strconv.Unquote(rest)
		if err != nil {
			return nil
		}
		return errors.New(s)
	case "path":
		f := strings.SplitN(rest, " ", 2)
		if len(f) != 2 {
			return nil
		}
		i := strings.LastIndexByte(f[1], ' ')
		if i < 0 {
			return nil
		}
		p, err := strconv.Unquote(f[1][:i])
		n, err2 := strconv.Atoi(f[1][i+1:])
		if err != nil || err2 != nil {
			return nil
		}
		return &fs.PathError{Op: f[0], Path: p, Err: syscall.Errno(n)}
	}
	return nil
}

// NotCapturedError is a replayed command the archive holds no answer for:
// another program (a --python the capture did not run), other arguments.
type NotCapturedError struct {
	Argv []string
	// Held are the interpreters (argv[0] of a Python helper run,
	// "INTERPRETER -" fed the helper on stdin) the archive holds answers
	// for, sorted.
	Held []string
}

func (e *NotCapturedError) Error() string {
	return fmt.Sprintf("%q: not in the capture archive", e.Argv)
}

// programs lists the interpreters the archive holds a Python helper run
// of (argv "INTERPRETER -" and a stdin), sorted and unique; callers hold mu.
func (r *Replay) programs() []string {
	var out []string
	for _, rs := range r.cmds {
		for _, c := range rs {
			if len(c.argv) == 2 && c.argv[1] == "-" && c.stdin != "" && !slices.Contains(out, c.argv[0]) {
				out = append(out, c.argv[0])
			}
		}
	}
	slices.Sort(out)
	return out
}

// rootSetting reads one root-* line of the archive's settings into the
// captured RootAnswer.
func (r *Replay) rootSetting(k, v string) error {
	if r.rootID == nil {
		r.rootID = &machine.RootAnswer{}
	}
	a, b, _ := strings.Cut(v, " ")
	switch k {
	case "root-id-reason":
		r.rootID.Reason = v
	case "root-mount-id":
		n, err := strconv.ParseUint(a, 10, 64)
		if err != nil || b == "" {
			return fmt.Errorf("root-mount-id: %q: want ID SOURCE", v)
		}
		r.rootID.MountID, r.rootID.Source = n, b
	case "root-inode":
		n, err := strconv.ParseUint(b, 10, 64)
		if err != nil || a == "" {
			return fmt.Errorf("root-inode: %q: want MAJOR:MINOR INODE", v)
		}
		r.rootID.Device, r.rootID.Inode = a, n
	}
	return nil
}

// Close removes the expanded root.
func (r *Replay) Close() error { return os.RemoveAll(r.dir) }

// Seams returns the seams of a replay: the root, environment, working
// directory, search path, uname, namespace ids, temp names and runner
// are the archive's. fallback gives a temp name the archive lacks.
func (r *Replay) Seams(p Policy, fallback func(attempt int) string) machine.Seams {
	opt := machine.Seams{Root: r.dir, Cwd: r.cwd, Path: r.path}
	if opt.Path == nil {
		opt.Path = []string{}
	}
	env := map[string]string{}
	for _, k := range r.withheld {
		env[k] = WithheldValue
	}
	for k, v := range r.env {
		env[k] = v
	}
	opt.Env = func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	opt.Runner = replayRunner{r, p.RedactArgv}
	opt.NamespaceID = func(kind string) machine.NamespaceAnswer {
		if a, ok := r.nsIDs[kind]; ok {
			return a
		}
		return machine.NamespaceAnswer{Reason: "not in the capture (an archive of an older aorta-probe)"}
	}
	opt.RootID = func() machine.RootAnswer {
		if r.rootID != nil {
			return *r.rootID
		}
		return machine.RootAnswer{Reason: "not in the capture (an archive of an older aorta-probe)"}
	}
	opt.Uname = func() (machine.Uname, error) {
		if r.uname == nil {
			msg := r.unameErr
			if msg == "" {
				msg = "uname not in the capture"
			}
			return machine.Uname{}, errors.New(msg)
		}
		return *r.uname, nil
	}
	opt.TempName = func(attempt int) string {
		if n, ok := r.temps[attempt]; ok {
			return n
		}
		return fallback(attempt)
	}
	return opt
}

// Setting is the value of a setting of the captured collection
// (Policy.Settings: "extended", "execution-context", …), "" when the
// archive has none.
func (r *Replay) Setting(key string) string { return r.settings[key] }

// Dir is the host directory the archive is expanded into: the replayed
// machine's root.
func (r *Replay) Dir() string { return r.dir }

// Described is what probe_provenance names as the root: the archive
// replayed, or the root the capture described when not loaded from a
// file.
func (r *Replay) Described() string { return cmp.Or(r.archive, r.root) }

// Faults are the errors the capture recorded, for FS.SetFaults.
func (r *Replay) Faults() map[string]syscall.Errno { return r.errs }

// IsExec answers which(): a regular file with an execute bit in the
// archive.
func (r *Replay) IsExec(root *machine.FS) func(string) bool {
	return func(p string) bool {
		fi, err := root.Stat(p)
		return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
	}
}

// Sums calls put with each file the archive kept as size and SHA-256
// (its bytes not kept): the host path in the expansion and the captured
// "sha256:…" sum, so that the hash pool answers without reading.
func (r *Replay) Sums(put func(host, sum string)) {
	for p, sum := range r.sums {
		put(filepath.Join(r.dir, p), sum)
	}
}

type replayRunner struct {
	r *Replay
	// redact is the replay's redaction (Policy.RedactArgv): the
	// archive's argv had the capture's config values removed.
	redact func([]string) []string
}

// Run answers a command from the archive by argv (its OutFile
// normalised), directory and stdin; the n-th run of the same command gets
// the n-th recorded answer (the last one again beyond). A command not in
// the archive fails to start. The captured content of its OutFile (a path
// of the replayed machine) is written there, or the file removed when the
// command had removed it.
func (w replayRunner) Run(_ context.Context, c machine.Command) machine.Result {
	k := recCmd{argv: w.redact(c.Argv), dir: c.Dir, outFile: c.OutFile}
	if c.Stdin != nil {
		k.stdin = capSHA256(c.Stdin)
	}
	key := k.key()
	w.r.mu.Lock()
	defer w.r.mu.Unlock()
	rs := w.r.cmds[key]
	if len(rs) == 0 && k.stdin != "" {
		k.stdin = "*"
		key = k.key()
		rs = w.r.cmds[key]
	}
	if len(rs) == 0 {
		return machine.Result{ExitCode: -1, Err: &NotCapturedError{Argv: c.Argv, Held: w.r.programs()}}
	}
	i := min(w.r.next[key], len(rs)-1)
	w.r.next[key]++
	if rec := rs[i]; c.OutFile != "" && rec.outFile != "" {
		host := filepath.Join(w.r.dir, c.OutFile)
		if rec.outKept {
			if err := os.WriteFile(host, rec.out, 0o600); err != nil {
				return machine.Result{ExitCode: -1, Err: fmt.Errorf("%q: replaying %s: %w", c.Argv, c.OutFile, err)}
			}
		} else {
			os.Remove(host)
		}
	}
	return rs[i].res
}
