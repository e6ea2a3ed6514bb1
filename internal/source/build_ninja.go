package source

import (
	"bufio"
	"errors"
	"io"
	"os"
	"slices"
	"strings"

	"aorta-probe/internal/lazyre"
	"aorta-probe/internal/pyfmt"
)

var ninjaBuildRe = lazyre.New(`^build [^:]*:` + pyfmt.ReSpace + `+(` + pyfmt.ReNotSpace + `+)`)

// NinjaTarget is what build.ninja says of one target compiled by a
// HIP_COMPILER rule: the distinct DEFINES and FLAGS strings of its
// objects.
type NinjaTarget struct {
	Defines map[string]bool // "-Dtorch_hip_EXPORTS -DUSE_ROCM …"
	Flags   map[string]bool // "-O3 --offload-arch=gfx942 …"
}

// ninjaScanner is the modern build.ninja parser of pytorch_build.ninja_hipcc,
// fed one logical line at a time (continuations already folded).
type ninjaScanner struct {
	want      []string // the targets of interest
	inHIP     bool
	pending   string
	linesLeft int
	targets   map[string]*NinjaTarget
}

func (n *ninjaScanner) line(l string) {
	if m := ninjaBuildRe().FindStringSubmatch(l); m != nil {
		n.inHIP = strings.HasPrefix(m[1], "HIP_COMPILER")
		n.pending = ""
		return
	}
	if !n.inHIP {
		return
	}
	switch {
	case strings.HasPrefix(l, "  DEFINES = "):
		d := l[len("  DEFINES = "):]
		t, ok := exportsTarget(d)
		if ok && slices.Contains(n.want, t) {
			n.add(t).Defines[d] = true
			n.pending, n.linesLeft = t, 10
		} else {
			n.pending = ""
		}
	case n.pending != "" && strings.HasPrefix(l, "  FLAGS = "):
		n.add(n.pending).Flags[l[len("  FLAGS = "):]] = true
		n.pending = ""
	case n.pending != "":
		n.linesLeft--
		if n.linesLeft <= 0 || !strings.HasPrefix(l, "  ") {
			n.pending = ""
		}
	}
}

func (n *ninjaScanner) add(t string) *NinjaTarget {
	if n.targets == nil {
		n.targets = map[string]*NinjaTarget{}
	}
	c := n.targets[t]
	if c == nil {
		c = &NinjaTarget{Defines: map[string]bool{}, Flags: map[string]bool{}}
		n.targets[t] = c
	}
	return c
}

// exportsTarget finds the first -D<IDENT>_EXPORTS that ends at a word
// boundary and returns IDENT (greedy: -Dfoo_EXPORTS_EXPORTS gives
// foo_EXPORTS).
func exportsTarget(d string) (string, bool) {
	for i := 0; ; {
		j := strings.Index(d[i:], "-D")
		if j < 0 {
			return "", false
		}
		start := i + j + 2
		k := start
		for k < len(d) && pyfmt.IsASCIIWord(d[k]) {
			k++
		}
		run := d[start:k]
		if len(run) > len("_EXPORTS") && strings.HasSuffix(run, "_EXPORTS") && !(run[0] >= '0' && run[0] <= '9') && !pyfmt.IsWordAt(d, k) {
			return run[:len(run)-len("_EXPORTS")], true
		}
		i = i + j + 1
	}
}

// foldNinjaLines splits build.ninja text into logical lines: a physical
// line ending in "$" is joined to the next with one space.
func foldNinjaLines(r io.Reader, each func(string)) error {
	br := bufio.NewReaderSize(r, 1<<20)
	var parts []string
	for {
		raw, err := br.ReadString('\n')
		if raw != "" || err == nil {
			l := pyfmt.DecodeReplace([]byte(strings.TrimSuffix(strings.TrimSuffix(raw, "\n"), "\r")))
			if strings.HasSuffix(l, "$") {
				parts = append(parts, l[:len(l)-1])
			} else {
				each(strings.Join(append(parts, l), " "))
				parts = nil
			}
		}
		if err == io.EOF {
			if parts != nil {
				each(strings.Join(parts, " "))
			}
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// ParseNinja runs the modern parser of pytorch_build.ninja_hipcc
// (docs/python.md) over a whole build.ninja stream: in the blocks of a
// "build …: HIP_COMPILER…" rule, a "  DEFINES = " line naming one of
// targets by its -D<target>_EXPORTS, and the "  FLAGS = " line that
// follows it within 10 indented lines. A read error returns what was
// gathered before it.
func ParseNinja(r io.Reader, targets []string) (map[string]*NinjaTarget, error) {
	n := ninjaScanner{want: targets}
	err := foldNinjaLines(r, n.line)
	return n.targets, err
}

// Ninja streams the build.ninja at p (a regular file, opened
// non-blocking, so a FIFO put in its place cannot hang the probe); an open
// or read error is ErrRead over the *fs.PathError of p, with what was
// gathered before a read error.
//
// Source: <source_path>/build/build.ninja.
func (fs FS) Ninja(p string, targets []string) (map[string]*NinjaTarget, error) {
	f, _, err := fs.m.OpenRegular(p)
	if err != nil {
		return nil, readErr(p, err)
	}
	defer f.Close()
	coll, err := ParseNinja(f, targets)
	if err != nil {
		var pe *os.PathError
		if !errors.As(err, &pe) {
			err = &os.PathError{Op: "read", Path: p, Err: err}
		}
		return coll, readErr(p, err)
	}
	return coll, nil
}
