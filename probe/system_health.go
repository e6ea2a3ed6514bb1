package probe

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/internal/pyjson"
)

// rdhcMaxJSON caps the rdhc output file read back: real reports are
// kilobytes. A larger file is reported as not parseable.
const rdhcMaxJSON = 64 << 20

// systemHealth carries the rdhc document; value nil is JSON null.
type systemHealth struct{ value pyjson.Any }

// collectSystemHealth is the system_health block
// (docs/hardware.md#system_health--rdhc): rdhc's quick report, re-serialised
// verbatim.
//
// Source: the JSON file written by `sudo -n -E <abs rdhc> --quick --json
// <tmp>` (30 s), where rdhc is which("rdhc.py") else which("rdhc") and <tmp> is a
// fresh 0600 file rdhc_quick_XXXXXXXX.json in the first usable temp
// directory of $TMPDIR, $TEMP, $TMP, /tmp, /var/tmp, /usr/tmp, the working
// directory. sudo is not gated and never prompts (-n). rdhc's stdout is
// ignored; the temp file is always removed. Under a replay the directories
// are those of the replayed machine (docs/capture.md). Scope: what rdhc inspects on
// the host, as root.
func collectSystemHealth(s *state) systemHealth {
	rdhc, ok := s.which("rdhc.py")
	if !ok {
		rdhc, ok = s.which("rdhc")
	}
	if !ok {
		s.reason("system_health: rdhc not on PATH (see docs/env-probe.md#installing-rdhc)")
		return systemHealth{}
	}
	tmp, err := createRDHCTemp(s)
	if err != nil {
		s.reason("system_health: failed to create rdhc temp file (%s)", pyfmt.ExcStr(err))
		return systemHealth{}
	}
	host := s.machinePath(tmp)
	defer os.Remove(host)
	s.removeAtEnd(host)

	r := s.run(machine.Command{Argv: []string{"sudo", "-n", "-E", rdhc, "--quick", "--json", tmp}, Timeout: machine.LongTimeout, OutFile: tmp})
	if r.TimedOut() {
		s.reason("system_health: rdhc exceeded 30s timeout")
		return systemHealth{}
	}
	if rc, ok := r.Exit(); ok && rc != 0 {
		if tail := lastNonBlankLine(stderrText(r)); tail != "" {
			s.reason("system_health: rdhc exited %d (stderr: %s)", rc, tail)
		} else {
			s.reason("system_health: rdhc exited %d (no stderr; likely sudo-n unavailable (see docs/env-probe.md#installing-rdhc))", rc)
		}
		return systemHealth{}
	}
	if err := r.LaunchErr(); err != nil {
		s.reason("system_health: failed to invoke rdhc (%s) (see docs/env-probe.md#installing-rdhc)", invokeExc(err, "sudo"))
		return systemHealth{}
	}
	v, err := readRDHCOutput(host)
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		pe.Path = tmp // the machine's path, also under a replay
	}
	if err != nil {
		s.reason("system_health: rdhc output not parseable (%s)", pyfmt.ExcStr(err))
		return systemHealth{}
	}
	if why := valueBound(v); why != "" {
		// Written as it is, it could make a document readers cannot
		// load (bounds.go).
		s.reason("system_health: rdhc output %s; not recorded", why)
		return systemHealth{}
	}
	return systemHealth{v}
}

// rdhcTempDirs is Python's tempfile candidate list: $TMPDIR, $TEMP, $TMP
// (when set and non-empty), /tmp, /var/tmp, /usr/tmp, then the working
// directory. These are paths of the machine the probe runs on (rdhc runs
// there), never under --root.
func rdhcTempDirs(s *state) []string {
	var dirs []string
	for _, k := range []string{"TMPDIR", "TEMP", "TMP"} {
		if v := s.getenv(k); v != "" {
			dirs = append(dirs, v)
		}
	}
	dirs = append(dirs, "/tmp", "/var/tmp", "/usr/tmp")
	if s.opt.Cwd != "" {
		dirs = append(dirs, s.opt.Cwd)
	} else {
		dirs = append(dirs, ".")
	}
	return dirs
}

// createRDHCTemp creates the empty 0600 temp file and returns its path: the
// first candidate directory in which an exclusive create succeeds (up to 100
// names per directory on a name clash). With none usable the error is
// Python's "[Errno 2] No usable temporary directory found in [...]".
func createRDHCTemp(s *state) (string, error) {
	dirs := rdhcTempDirs(s)
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			d = filepath.Join(s.opt.Cwd, d)
		}
		d = filepath.Clean(d)
		if s.opt.Replay == nil {
			removeStaleRDHCTemps(d, time.Now())
		}
		for attempt := 0; attempt < 100; attempt++ {
			p := filepath.Join(d, "rdhc_quick_"+s.opt.TempName(attempt)+".json")
			f, err := os.OpenFile(s.machinePath(p), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
			if err == nil {
				if err := f.Close(); err != nil {
					os.Remove(s.machinePath(p))
					break
				}
				return p, nil
			}
			if !errors.Is(err, fs.ErrExist) {
				break
			}
		}
	}
	quoted := make([]string, len(dirs))
	for i, d := range dirs {
		quoted[i] = pyfmt.Repr(d)
	}
	return "", noTempDirError("No usable temporary directory found in [" + strings.Join(quoted, ", ") + "]")
}

// rdhcStaleAge is how old an rdhc temp file must be before a later run
// removes it: far beyond rdhc's 30 s timeout and the deadline of any run
// that could still be using it.
const rdhcStaleAge = 15 * time.Minute

// removeStaleRDHCTemps removes what a probe killed during rdhc's run
// (SIGKILL: no deferred removal runs) left in dir: regular files named
// rdhc_quick_XXXXXXXX.json (8 characters of tempAlphabet, the name
// createRDHCTemp and the Python probe give it), owned by this user, last
// modified more than rdhcStaleAge ago (docs/hardware.md). The name holds
// no writer PID (it is the Python probe's), so age alone tells an
// abandoned file. Errors are ignored: the cleanup is a courtesy.
func removeStaleRDHCTemps(dir string, now time.Time) {
	names, err := filepath.Glob(filepath.Join(dir, "rdhc_quick_????????.json"))
	if err != nil {
		return
	}
	for _, p := range names {
		mid := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "rdhc_quick_"), ".json")
		if strings.Trim(mid, tempAlphabet) != "" {
			continue
		}
		var st syscall.Stat_t
		if syscall.Lstat(p, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG || int(st.Uid) != os.Geteuid() {
			continue
		}
		if now.Sub(time.Unix(st.Mtim.Unix())) > rdhcStaleAge {
			os.Remove(p)
		}
	}
}

// noTempDirError renders as Python's FileNotFoundError(ENOENT, msg).
type noTempDirError string

func (e noTempDirError) Error() string {
	return fmt.Sprintf("[Errno %d] %s", int(syscall.ENOENT), string(e))
}

// tempAlphabet is Python's tempfile._RandomNameSequence.characters.
const tempAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789_"

func randomTempChars() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	for i := range b {
		b[i] = tempAlphabet[int(b[i])%len(tempAlphabet)]
	}
	return string(b[:])
}

// readRDHCOutput reads and parses rdhc's output file as Python's json.load
// of a UTF-8 text file would. Errors carry Python's message texts. The file
// is on the machine the probe runs on (never under --root), opened
// non-blocking and refused unless regular: an rdhc that swaps it for a FIFO
// or a device does not hold the run.
func readRDHCOutput(path string) (pyjson.Any, error) {
	b, err := machine.NewFS("/", "", false).ReadHead(path, rdhcMaxJSON+1)
	if err != nil {
		return nil, err
	}
	if len(b) > rdhcMaxJSON {
		return nil, fmt.Errorf("rdhc output %s is larger than %d bytes", path, rdhcMaxJSON)
	}
	return parseRDHCJSON(b)
}

// parseRDHCJSON decodes rdhc's report: strict UTF-8 (Python's
// UnicodeDecodeError text on failure), a leading BOM refused as json.loads
// refuses it, then pyjson.Decode (numbers kept as written, NaN/Infinity
// accepted, the last duplicate key winning).
func parseRDHCJSON(b []byte) (pyjson.Any, error) {
	if de := pyfmt.DecodeUTF8(b); de != nil {
		return nil, de
	}
	text := pyfmt.UniversalNewlines(string(b))
	if strings.HasPrefix(text, "\ufeff") {
		return nil, &pyjson.SyntaxError{Msg: "Unexpected UTF-8 BOM (decode using utf-8-sig)", Line: 1, Column: 1}
	}
	return pyjson.Decode(text)
}
