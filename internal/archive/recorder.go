package archive

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"

	"aorta-probe/internal/fakeroot"
	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"
)

// Capture (docs/capture.md): a Recorder watches the FS and wraps the
// command Runner and the other Seams of one collection and writes what they
// answered as a fake-root archive (internal/fakeroot), which a Replay
// answers from on any machine.

// Limits of what an archive keeps.
const (
	// captureSmallFile: a regular file read by a probe is kept whole up
	// to this size (procfs and sysfs files, version files, headers).
	captureSmallFile = 256 << 10
	// captureTextFile: a larger file is kept whole when it is text (no
	// NUL, valid UTF-8) up to read-text's own limit (the dpkg database).
	captureTextFile = machine.MaxTextFile
	// captureMinRun is the shortest printable run kept of a large file.
	captureMinRun = 12
	// captureMaxOutput caps each stream of a command in the archive.
	captureMaxOutput = 1 << 20
)

// Policy is what the collectors tell a capture and a replay: which values
// may be recorded, what is redacted, which settings of the collection an
// archive keeps. package probe builds the one Policy of a collection.
type Policy struct {
	// EnvAllowed reports whether the value of a variable may be recorded
	// (a variable read but not allowed is recorded as withheld).
	EnvAllowed func(name string) bool
	// RedactArgv removes secrets from a command's argv (Buck config
	// values), as the document does.
	RedactArgv func(argv []string) []string
	// Redact removes the same secrets from any text; nil: none.
	Redact func(string) string
	// ScanBudget: of a large file a probe read (not only hashed), the
	// printable runs of its first ScanBudget bytes are kept, at their
	// offsets (libc.so.6's version banner).
	ScanBudget int64
	// NamespaceTypes are the namespace kinds, in the archive's order.
	NamespaceTypes []string
	// Settings are "key: value" lines of the collection a replay takes
	// back (Replay.Setting): --extended, --execution-context, ….
	Settings [][2]string
}

// Recorder records one collection (Options.Record). Safe for the
// concurrent probes of a collection.
type Recorder struct {
	// RedactHostname replaces the hostname and boot id in everything
	// recorded (docs/capture.md).
	RedactHostname bool

	mu       sync.Mutex
	fs       *machine.FS // the same root, not recording
	entries  map[string]*recEntry
	errs     map[string]syscall.Errno
	cmds     []recCmd
	env      map[string]string
	withheld map[string]bool
	uname    *machine.Uname
	unameErr string
	temps    map[int]string                     // TempName's answer by attempt, the first one
	nsIDs    map[string]machine.NamespaceAnswer // NamespaceID's answers by type
	cut      *Cut                               // where the collection was cut short (SetCut)
	rootID   *machine.RootAnswer                // RootID's answer, once asked
	seams    machine.Seams
	policy   Policy
}

// Cut is where a collection was cut short by its deadline or a signal
// (docs/capture.md, "A capture cut short"): what the document said of
// it, which a replay must say again rather than finish what the capture
// did not.
type Cut struct {
	// Why is the cause as the reasons give it: "collection interrupted",
	// "deadline of 300ms exceeded".
	Why string
	// Unfinished are the probes whose blocks were not captured, in the
	// table's order, each with the number of commands it had recorded
	// (probe_provenance.commands); NotStarted those of them that never
	// started (few workers: docs/usage.md).
	Unfinished []CutProbe
	NotStarted []string
	// RootsUnresolved: the ROCm roots were not resolved when the document
	// was put together, so the not-captured rocm and therock blocks name
	// the default ones.
	RootsUnresolved bool
}

// CutProbe is one probe a cut collection did not finish.
type CutProbe struct {
	Name     string
	Commands int
}

// Probe reports whether the probe name was not finished, and how
// many commands it had recorded.
func (c *Cut) Probe(name string) (commands int, unfinished bool) {
	if c == nil {
		return 0, false
	}
	for _, p := range c.Unfinished {
		if p.Name == name {
			return p.Commands, true
		}
	}
	return 0, false
}

// SetCut records where the collection was cut short; call it once the
// collection has returned, before Archive.
func (rc *Recorder) SetCut(c Cut) {
	rc.mu.Lock()
	rc.cut = &c
	rc.mu.Unlock()
}

// recEntry is one path of the probed filesystem (resolved, absolute).
type recEntry struct {
	missing   bool
	kind      fs.FileMode // type bits: 0 regular, ModeDir, ModeSymlink, other
	link      string
	perm      fs.FileMode
	size      int64
	content   []byte
	kept      bool // content holds the whole file
	reads     int  // opened for reading
	hashReads int  // of which by the hash pool
	sum       string
	// runs are the printable runs a detached child read (scanned):
	// the file is not read again (detached_record.go).
	runs    []fakeroot.Chunk
	scanned bool
}

type recCmd struct {
	argv  []string
	dir   string
	stdin string         // sha256 hex of Stdin, "" when none
	res   machine.Result // res.Cut: killed when the collection ended
	// outFile is Command.OutFile; out its content after the run when
	// outKept (a regular file), else it was gone or not regular.
	outFile string
	out     []byte
	outKept bool
}

// outFileArg stands for Command.OutFile in the argv a command is matched
// by: a temp file's random name differs between capture and replay.
const outFileArg = "{out-file}"

// key is what a replay matches a command by: argv (OutFile normalised),
// directory and stdin.
func (c recCmd) key() string {
	argv := c.argv
	if c.outFile != "" {
		argv = slices.Clone(argv)
		for i, a := range argv {
			if a == c.outFile {
				argv[i] = outFileArg
			}
		}
	}
	return strings.Join(argv, "\x00") + "\x01" + c.dir + "\x01" + c.stdin
}

// NewRecorder returns an empty recorder.
func NewRecorder(redactHostname bool) *Recorder {
	return &Recorder{RedactHostname: redactHostname, entries: map[string]*recEntry{},
		errs: map[string]syscall.Errno{}, env: map[string]string{}, withheld: map[string]bool{}, temps: map[int]string{}}
}

// Attach wraps the seams of a collection (defaults already applied, every
// one set) and returns them; root records into rc from now on. Call it
// once, before the collection.
func (rc *Recorder) Attach(opt machine.Seams, root *machine.FS, p Policy) machine.Seams {
	rc.seams, rc.policy = opt, p
	rc.fs = root.Twin()
	root.Watch(rc)
	env, runner, uname, tempName := opt.Env, opt.Runner, opt.Uname, opt.TempName
	opt.TempName = func(attempt int) string {
		n := tempName(attempt)
		rc.mu.Lock()
		if _, ok := rc.temps[attempt]; !ok {
			rc.temps[attempt] = n
		}
		rc.mu.Unlock()
		return n
	}
	opt.Env = func(k string) (string, bool) {
		v, ok := env(k)
		if ok {
			rc.mu.Lock()
			if p.EnvAllowed(k) {
				rc.env[k] = v
			} else {
				rc.withheld[k] = true
			}
			rc.mu.Unlock()
		}
		return v, ok
	}
	opt.Runner = recRunner{runner, rc}
	nsID := opt.NamespaceID
	opt.NamespaceID = func(kind string) machine.NamespaceAnswer {
		a := nsID(kind)
		rc.mu.Lock()
		if rc.nsIDs == nil {
			rc.nsIDs = map[string]machine.NamespaceAnswer{}
		}
		rc.nsIDs[kind] = a
		rc.mu.Unlock()
		return a
	}
	if rootID := opt.RootID; rootID != nil {
		opt.RootID = func() machine.RootAnswer {
			a := rootID()
			rc.mu.Lock()
			rc.rootID = &a
			rc.mu.Unlock()
			return a
		}
	}
	opt.Uname = func() (machine.Uname, error) {
		u, err := uname()
		rc.mu.Lock()
		if err != nil {
			rc.unameErr = err.Error()
		} else {
			rc.uname = &u
		}
		rc.mu.Unlock()
		return u, err
	}
	return opt
}

type recRunner struct {
	inner machine.Runner
	rc    *Recorder
}

func (w recRunner) Run(ctx context.Context, c machine.Command) machine.Result {
	r := w.inner.Run(ctx, c)
	cmd := recCmd{argv: w.rc.policy.RedactArgv(c.Argv), dir: c.Dir, res: r}
	// Killed because the collection ended, not at its own timeout.
	cmd.res.Cut = r.TimedOut() && ctx.Err() != nil
	if c.Stdin != nil {
		cmd.stdin = capSHA256(c.Stdin)
	}
	if c.OutFile != "" {
		cmd.outFile = c.OutFile
		// The directory it is in, so that the replay finds it; the file
		// as the command left it (a host file, never under --root).
		w.rc.touch(w.rc.logicalOf(filepath.Dir(c.OutFile)), true)
		b, err := machine.NewFS("/", "", false).ReadHead(c.OutFile, captureMaxOutput+1)
		cmd.out, cmd.outKept = b, err == nil
	}
	w.rc.mu.Lock()
	w.rc.cmds = append(w.rc.cmds, cmd)
	w.rc.mu.Unlock()
	return r
}

func capSHA256(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// logicalOf turns a host path of a tool (the search path of a scenario
// under a fake root) into the machine path it is under the root.
func (rc *Recorder) logicalOf(p string) string {
	if rc.fs.Live() {
		return p
	}
	if p == rc.fs.HostRoot() {
		return "/"
	}
	if rest, ok := strings.CutPrefix(p, rc.fs.HostRoot()+"/"); ok {
		return "/" + rest
	}
	return p
}

// lstatEntry records the path p (absolute, its parent resolved) as the
// filesystem shows it, once.
func (rc *Recorder) lstatEntry(p string) *recEntry {
	rc.mu.Lock()
	e, ok := rc.entries[p]
	rc.mu.Unlock()
	if ok {
		return e
	}
	e = &recEntry{size: -1}
	fi, err := rc.fs.Lstat(p)
	if err != nil {
		e.missing = true
	} else {
		e.kind, e.perm, e.size = fi.Mode().Type(), fi.Mode().Perm(), fi.Size()
		if e.kind == fs.ModeSymlink {
			if e.link, err = rc.fs.Readlink(p); err != nil {
				e.missing = true
			}
		}
	}
	rc.mu.Lock()
	if old, ok := rc.entries[p]; ok {
		e = old
	} else {
		rc.entries[p] = e
	}
	rc.mu.Unlock()
	return e
}

// touch records every component of p, links followed (the last one only
// with follow), and returns the resolved path, "" when it does not exist.
func (rc *Recorder) touch(p string, follow bool) string {
	ap, ok := rc.fs.Abs(p)
	if !ok {
		return ""
	}
	resolved, _, err := machine.ResolveIn(ap, follow, func(next string) (machine.Component, error) {
		e := rc.lstatEntry(next)
		if e.missing {
			return machine.Component{}, syscall.ENOENT
		}
		return machine.Component{Link: e.kind == fs.ModeSymlink, Target: e.link, Dir: e.kind == fs.ModeDir}, nil
	})
	if err != nil {
		return ""
	}
	return resolved
}

// failed records an error other than "does not exist" (EACCES on
// /proc/1/ns/*): the archive cannot make the kernel say it, so replay
// says it for that operation and path.
func (rc *Recorder) failed(op, p string, err error) {
	en, ok := pyfmt.Errno(err)
	if !ok || en == syscall.ENOENT || en == syscall.ENOTDIR || en == syscall.ELOOP {
		return
	}
	if ap, ok := rc.fs.Abs(p); ok {
		rc.mu.Lock()
		rc.errs[op+" "+ap] = en
		rc.mu.Unlock()
	}
}

// Asked records a stat, lstat or readlink of p.
func (rc *Recorder) Asked(op, p string, follow bool, err error) {
	if err != nil {
		rc.failed(op, p, err)
	}
	rc.touch(p, follow)
}

// Opened records an open of p by the probe.
func (rc *Recorder) Opened(p string, flags int, f *os.File, err error, hashing bool) {
	if err != nil {
		if flags&machine.OPath == 0 {
			rc.failed("open", p, err)
		}
		rc.touch(p, flags&syscall.O_NOFOLLOW == 0)
		return
	}
	real := rc.touch(p, flags&syscall.O_NOFOLLOW == 0)
	if real == "" || hashing || flags&(machine.OPath|syscall.O_DIRECTORY) != 0 {
		return
	}
	e := rc.lstatEntry(real)
	if e.kind != 0 {
		return
	}
	fi, serr := f.Stat()
	if serr != nil || !fi.Mode().IsRegular() {
		return
	}
	rc.mu.Lock()
	e.reads++
	need := !e.kept && fi.Size() <= captureTextFile
	rc.mu.Unlock()
	if !need {
		return
	}
	// pread: the probe's file offset is untouched.
	b := make([]byte, 0, 4096)
	buf := make([]byte, 32<<10)
	for off := int64(0); len(b) <= captureTextFile; {
		n, rerr := f.ReadAt(buf, off)
		b = append(b, buf[:n]...)
		off += int64(n)
		if rerr != nil || n == 0 {
			break
		}
	}
	if len(b) > captureTextFile || len(b) > captureSmallFile && (!utf8.Valid(b) || bytes.IndexByte(b, 0) >= 0) {
		return
	}
	rc.mu.Lock()
	e.content, e.kept = b, true
	rc.mu.Unlock()
}

// Hashed records that the hash pool read p whole and what it found.
func (rc *Recorder) Hashed(p, sum string) {
	real := rc.touch(p, true)
	if real == "" {
		return
	}
	e := rc.lstatEntry(real)
	rc.mu.Lock()
	e.sum = sum
	e.hashReads++
	rc.mu.Unlock()
}

// Resolved records a path resolved by realpath.
func (rc *Recorder) Resolved(p string) { rc.touch(p, true) }

// Listed records a directory listing: every entry, with its type (and a
// link's target), so that the listing replays.
func (rc *Recorder) Listed(p string, names []string) {
	real := rc.touch(p, true)
	if real == "" {
		return
	}
	for _, n := range names {
		rc.lstatEntry(strings.TrimSuffix(real, "/") + "/" + n)
	}
}

// Executable records a tool found on the search path (its bytes are
// never kept: size and mode only).
func (rc *Recorder) Executable(hostPath string) {
	rc.touch(rc.logicalOf(hostPath), true)
}

// Archive returns the archive of everything recorded; call it once the
// collection has returned. header is the free text put first.
func (rc *Recorder) Archive(header string) []byte {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	red := rc.redactor()
	a := &fakeroot.Archive{Comment: rc.settings(header, red)}
	files, skipped := rc.files(red)
	a.Files = files
	for _, k := range capKeys(rc.errs) {
		op, p, _ := strings.Cut(k, " ")
		if !fakeroot.SafePath(red(strings.TrimPrefix(p, "/"))) {
			skipped++
			continue
		}
		a.Files = append(a.Files, fakeroot.File{Path: red(strings.TrimPrefix(p, "/")), Errno: op + " " + ErrnoName(rc.errs[k])})
	}
	if skipped > 0 {
		a.Comment += fmt.Sprintf("skipped-paths: %d\n", skipped)
	}
	cmds := slices.Clone(rc.cmds)
	sort.SliceStable(cmds, func(i, j int) bool { return cmds[i].key() < cmds[j].key() })
	for i, c := range cmds {
		a.Files = append(a.Files, rc.cmdFiles(i+1, c, red)...)
	}
	return seal(fakeroot.Format(a), len(a.Files), len(cmds))
}

// settings is the archive's comment: header, then one "key: value" line
// per setting of the collection replay needs (docs/capture.md).
func (rc *Recorder) settings(header string, red func(string) string) string {
	var set strings.Builder
	set.WriteString(header)
	fmt.Fprintf(&set, "capture-root: %s\n", rc.seams.Root)
	fmt.Fprintf(&set, "cwd: %s\n", red(rc.seams.Cwd))
	var dirs []string
	for _, d := range rc.searchPath() {
		dirs = append(dirs, rc.logicalOf(d))
	}
	fmt.Fprintf(&set, "search-path: %s\n", red(strings.Join(dirs, ":")))
	if rc.uname != nil {
		fmt.Fprintf(&set, "uname: %s | %s | %s\n", rc.uname.Release, rc.uname.Version, rc.uname.Machine)
	} else if rc.unameErr != "" {
		fmt.Fprintf(&set, "uname-error: %s\n", rc.unameErr)
	}
	for _, kind := range rc.policy.NamespaceTypes {
		if a, ok := rc.nsIDs[kind]; ok && a.Reason == "" {
			fmt.Fprintf(&set, "namespace-id: %s %d %s\n", kind, a.ID, a.Source)
		} else if ok {
			fmt.Fprintf(&set, "namespace-id-reason: %s %s\n", kind, a.Reason)
		}
	}
	if a := rc.rootID; a != nil {
		if a.Source != "" {
			fmt.Fprintf(&set, "root-mount-id: %d %s\n", a.MountID, a.Source)
		}
		if a.Reason != "" {
			fmt.Fprintf(&set, "root-id-reason: %s\n", a.Reason)
		}
		if a.Device != "" {
			fmt.Fprintf(&set, "root-inode: %s %d\n", a.Device, a.Inode)
		}
	}
	for _, kv := range rc.policy.Settings {
		fmt.Fprintf(&set, "%s: %s\n", kv[0], kv[1])
	}
	if rc.RedactHostname {
		set.WriteString("redacted: hostname boot_id\n")
	}
	if c := rc.cut; c != nil {
		fmt.Fprintf(&set, "cut: %s\n", c.Why)
		for _, p := range c.Unfinished {
			fmt.Fprintf(&set, "cut-unfinished: %s %d\n", p.Name, p.Commands)
		}
		for _, n := range c.NotStarted {
			fmt.Fprintf(&set, "cut-not-started: %s\n", n)
		}
		if c.RootsUnresolved {
			set.WriteString("cut-roots: unresolved\n")
		}
	}
	set.WriteString("sealed: " + sealedNote + "\n")
	for _, i := range slices.Sorted(maps.Keys(rc.temps)) {
		fmt.Fprintf(&set, "temp-name: %d %s\n", i, rc.temps[i])
	}
	for _, k := range capKeys(rc.env) {
		v := red(rc.env[k])
		if strings.ContainsAny(v, "\n\r") || strings.TrimSpace(v) != v {
			fmt.Fprintf(&set, "env-quoted: %s=%s\n", k, strconv.Quote(v))
		} else {
			fmt.Fprintf(&set, "env: %s=%s\n", k, v)
		}
	}
	for _, k := range capKeys(rc.withheld) {
		fmt.Fprintf(&set, "env-withheld: %s\n", k)
	}
	return set.String()
}

// files is one archive file per path the collection met (directories
// only when they hold nothing else), and how many paths the format
// cannot name.
func (rc *Recorder) files(red func(string) string) (files []fakeroot.File, skipped int) {
	paths := capKeys(rc.entries)
	hasChild := map[string]bool{}
	for _, p := range paths {
		if !rc.entries[p].missing {
			hasChild[p[:max(strings.LastIndexByte(p, '/'), 0)]] = true
		}
	}
	for _, p := range paths {
		e := rc.entries[p]
		if e.missing || p == "/" {
			continue
		}
		f := fakeroot.File{Path: red(strings.TrimPrefix(p, "/")), Mode: e.perm, Size: -1}
		if !fakeroot.SafePath(f.Path) || e.kind == fs.ModeSymlink && !fakeroot.SafeTarget(red(e.link)) {
			skipped++ // a name the archive format cannot hold (docs/capture.md)
			continue
		}
		if e.kind == fs.ModeDir && hasChild[p] {
			continue // the child's path holds it
		}
		switch e.kind {
		case fs.ModeDir:
			f.Dir = true
		case fs.ModeSymlink:
			f.Link = red(e.link)
		case 0:
			rc.regular(&f, p, e, red)
		default:
			f.FIFO = true
		}
		files = append(files, f)
	}
	return files, skipped
}

// regular fills the archive file of a regular file: its content when it
// was kept, its printable runs when it was read beyond hashing, else only
// its size; and its hash when one was taken.
func (rc *Recorder) regular(f *fakeroot.File, p string, e *recEntry, red func(string) string) {
	switch {
	case e.kept:
		// Readable by whoever replays (a 0200 sysfs file root
		// read): the replay must read what the capture read.
		f.Mode |= 0o400
		f.Data = []byte(red(string(e.content)))
	case e.reads > e.hashReads:
		f.Mode |= 0o400
		f.Size = e.size
		if e.scanned {
			f.Sparse = redactRuns(e.runs, red)
		} else {
			f.Sparse = rc.textRuns(p, red)
		}
	default:
		f.Size = e.size
	}
	if e.sum != "" && !e.kept {
		f.SHA256 = strings.TrimPrefix(e.sum, "sha256:")
	}
}

func (rc *Recorder) searchPath() []string {
	if rc.seams.Path != nil {
		return rc.seams.Path
	}
	if rc.fs.Live() {
		return machine.SearchPath(rc.seams.Env)
	}
	return nil
}

// cmdFiles are the sections of command n:
// .capture/cmd/NNN.{argv,meta,stdout,stderr} and NNN.out, the content of
// its OutFile.
func (rc *Recorder) cmdFiles(n int, c recCmd, red func(string) string) []fakeroot.File {
	base := fmt.Sprintf(".capture/cmd/%03d.", n)
	var meta strings.Builder
	if c.dir != "" {
		fmt.Fprintf(&meta, "dir: %s\n", red(c.dir))
	}
	if c.stdin != "" {
		fmt.Fprintf(&meta, "stdin-sha256: %s\n", c.stdin)
	}
	fmt.Fprintf(&meta, "exit: %d\n", c.res.ExitCode)
	var pe *fs.PathError
	switch e := c.res.Err.(type) {
	case nil:
	case *machine.ExitError:
		meta.WriteString("error: exit\n")
	default:
		switch {
		case e == machine.ErrTimeout:
			meta.WriteString("error: timeout\n")
		case errors.As(e, &pe):
			en, _ := pe.Err.(syscall.Errno)
			fmt.Fprintf(&meta, "error: path %s %s %d\n", pe.Op, strconv.Quote(red(pe.Path)), int(en))
		default:
			fmt.Fprintf(&meta, "error: text %s\n", strconv.Quote(red(e.Error())))
		}
	}
	out, errOut := red(string(c.res.Stdout)), red(string(c.res.Stderr))
	cut := c.res.Truncated
	if len(out) > captureMaxOutput {
		out, cut = out[:captureMaxOutput], true
		meta.WriteString("archive-cut: stdout\n")
	}
	if len(errOut) > captureMaxOutput {
		errOut, cut = errOut[:captureMaxOutput], true
		meta.WriteString("archive-cut: stderr\n")
	}
	if cut {
		meta.WriteString("truncated: true\n")
	}
	if c.res.Cut {
		meta.WriteString("cut: true\n")
	}
	var outData []byte
	if c.outFile != "" {
		fmt.Fprintf(&meta, "out-file: %s\n", red(rc.logicalOf(c.outFile)))
		if c.outKept {
			outData = []byte(red(string(c.out)))
			if len(outData) > captureMaxOutput {
				outData = outData[:captureMaxOutput]
				meta.WriteString("archive-cut: out-file\n")
			}
		} else {
			meta.WriteString("out-file-gone: true\n")
		}
	}
	argv := make([]string, len(c.argv))
	for i, a := range c.argv {
		argv[i] = red(rc.logicalOf(a))
	}
	files := []fakeroot.File{
		{Path: base + "argv", Data: []byte(strings.Join(argv, "\x00") + "\x00"), Mode: 0o644, Size: -1},
		{Path: base + "meta", Data: []byte(meta.String()), Mode: 0o644, Size: -1},
		{Path: base + "stdout", Data: []byte(out), Mode: 0o644, Size: -1},
		{Path: base + "stderr", Data: []byte(errOut), Mode: 0o644, Size: -1},
	}
	if c.outKept {
		files = append(files, fakeroot.File{Path: base + "out", Data: outData, Mode: 0o644, Size: -1})
	}
	return files
}

// textRuns reads the printable runs (line ends included, so that a
// line-oriented reader finds the same lines) of the first Policy.ScanBudget bytes
// of the large file p (what a scan for a banner can find there).
func (rc *Recorder) textRuns(p string, red func(string) string) []fakeroot.Chunk {
	f, _, err := rc.fs.OpenRegular(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []fakeroot.Chunk
	buf := make([]byte, 1<<20)
	var run []byte
	var runAt, off int64
	flush := func() {
		if len(run) >= captureMinRun {
			out = append(out, fakeroot.Chunk{Off: runAt, Data: []byte(red(string(run)))})
		}
		run = run[:0]
	}
	r := io.LimitReader(f, rc.policy.ScanBudget)
	for {
		n, err := r.Read(buf)
		for _, c := range buf[:n] {
			if c >= 0x20 && c < 0x7f || c == '\t' || c == '\n' {
				if len(run) == 0 {
					runAt = off
				}
				run = append(run, c)
			} else {
				flush()
			}
			off++
		}
		if err != nil {
			break
		}
	}
	flush()
	return out
}

// redactor removes Buck config values (as the document does) and, when
// RedactHostname is set, replaces the hostname and the boot id with fixed
// stand-ins, wherever they occur.
func (rc *Recorder) redactor() func(string) string {
	buckRed := rc.policy.Redact
	if buckRed == nil {
		buckRed = func(s string) string { return s }
	}
	pairs, _ := rc.hostRedactions()
	if len(pairs) == 0 {
		return buckRed
	}
	r := strings.NewReplacer(pairs...)
	return func(s string) string { return r.Replace(buckRed(s)) }
}

// Unredacted says, one line each, what RedactHostname leaves in the
// archive (docs/capture.md, "--redact-hostname"): a host name shorter
// than 3 characters or a boot id shorter than 8, which are not replaced
// because every occurrence of so short a string would be, and a host name
// that cannot be read. Nil without RedactHostname.
func (rc *Recorder) Unredacted() []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	_, left := rc.hostRedactions()
	return left
}

// hostRedactions is RedactHostname's replacements (strings.NewReplacer's
// old, new pairs) and what it leaves (Unredacted).
func (rc *Recorder) hostRedactions() (pairs, left []string) {
	if !rc.RedactHostname {
		return nil, nil
	}
	switch h, err := os.Hostname(); {
	case err != nil:
		left = append(left, fmt.Sprintf("the host name could not be read (%v) and is not replaced", err))
	case len(h) < 3:
		left = append(left, fmt.Sprintf("the host name %s has fewer than 3 characters and is not replaced (every %s in the archive would be)", pyfmt.Repr(h), pyfmt.Repr(h)))
	default:
		pairs = append(pairs, h, "redacted-host")
	}
	if rc.fs == nil {
		return pairs, left
	}
	if b, err := rc.fs.ReadFile("/proc/sys/kernel/random/boot_id", 4096); err == nil {
		switch id := strings.TrimSpace(string(b)); {
		case len(id) >= 8:
			pairs = append(pairs, id, "00000000-0000-4000-8000-000000000000")
		case id != "":
			left = append(left, fmt.Sprintf("the boot id %s has fewer than 8 characters and is not replaced", pyfmt.Repr(id)))
		}
	}
	return pairs, left
}

var errnoNames = map[syscall.Errno]string{
	syscall.EACCES: "EACCES", syscall.EPERM: "EPERM", syscall.EIO: "EIO", syscall.ENXIO: "ENXIO",
	syscall.EINVAL: "EINVAL", syscall.EISDIR: "EISDIR", syscall.EFBIG: "EFBIG", syscall.ENODEV: "ENODEV",
	syscall.EBUSY: "EBUSY", syscall.EAGAIN: "EAGAIN", syscall.ENOMEM: "ENOMEM", syscall.EOPNOTSUPP: "EOPNOTSUPP",
	syscall.ESRCH: "ESRCH",
}

// ErrnoName is the errno's name (EACCES), or its number.
func ErrnoName(e syscall.Errno) string {
	if n, ok := errnoNames[e]; ok {
		return n
	}
	return strconv.Itoa(int(e))
}

// ErrnoByName is the errno named s (ErrnoName's inverse).
func ErrnoByName(s string) syscall.Errno {
	for e, n := range errnoNames {
		if n == s {
			return e
		}
	}
	n, _ := strconv.Atoi(s)
	return syscall.Errno(n)
}

func capKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// IsArchive reports whether path names an archive (a regular file) rather
// than a directory: --root ARCHIVE replays it.
func IsArchive(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}
