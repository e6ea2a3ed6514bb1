// Package fakeroot expands a fake machine root from a text archive, so that
// scenario tests run the real probe code over real files, links and modes,
// while the repository never holds a file name with a colon (PCI addresses
// have them; Go modules and Buck reject them).
//
// The archive is txtar-shaped: free text (the scenario's description and
// its settings) up to the first marker line, then sections
//
//	-- path --             a regular file, 0644, with the lines that follow
//	-- path [exec] --      a file with mode 0755 (fake tools: #!/bin/sh scripts)
//	-- path [nul] --       a file whose line ends are NUL bytes (environ, cmdline)
//	-- path [noeol] --     a file without the final newline
//	-- path [dir] --       an empty directory
//	-- path [fifo] --      a named pipe
//	-- path [mode 0000] -- a file with the given octal mode
//	-- path -> target --   a symbolic link
//	-- path [base64] --    a file whose content is the base64 text that follows
//	-- path [size N] --    a file of N bytes: the content that follows, then
//	                       zeros (a sparse file; captures record large files so)
//	-- path [sha256 HEX] -- the file's SHA-256 as captured (File.SHA256; its
//	                       bytes are not in the archive, docs/capture.md)
//	-- path [sparse] --    lines "OFFSET QUOTED" (Go-quoted strings) written at
//	                       their offsets (with [size N]: the text runs of a
//	                       large binary, docs/capture.md)
//	-- path [errno NAME] -- not a file: the error (EACCES, …) reading path gave
//	                       when captured (File.Errno); Expand creates nothing.
//	                       NAME is "OP ERRNO" (open EACCES); the probe's
//	                       scenario tests answer OP on /path with ERRNO in a
//	                       plain scenario too (beside [dir]: an unlistable
//	                       directory)
//
// Paths are relative to the root ("proc/self/cgroup"). Settings in the
// free text are lines "key: value" (see Archive.Settings).
package fakeroot

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// File is one section of an archive.
type File struct {
	Path string
	Data []byte
	Link string // symlink target when non-empty
	Mode os.FileMode
	Dir  bool
	FIFO bool
	// Size is the file's length when the archive gives it ([size N]):
	// Data is written, the rest is a hole; -1 when not given.
	Size int64
	// SHA256 is the hex digest of [sha256 HEX]; "" when not given.
	SHA256 string
	// Errno names the error of [errno NAME]; "" for a real entry.
	Errno string
	// Sparse holds the [sparse] chunks: Data at their offsets.
	Sparse []Chunk
}

// Chunk is part of a [sparse] file: Data at byte Off.
type Chunk struct {
	Off  int64
	Data []byte
}

// Archive is a parsed archive.
type Archive struct {
	Comment string
	Files   []File
}

// Settings returns the "key: value" lines of the comment, in order; a key
// may repeat (env: A=1, env: B=2).
func (a *Archive) Settings() [][2]string {
	var out [][2]string
	for _, line := range strings.Split(a.Comment, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || strings.ContainsAny(k, " \t") || k == "" {
			continue
		}
		out = append(out, [2]string{k, strings.TrimSpace(v)})
	}
	return out
}

// Parse reads an archive.
func Parse(data []byte) (*Archive, error) {
	a := &Archive{}
	var cur *File
	var body strings.Builder
	var attrs []string
	flush := func() error {
		if cur == nil {
			a.Comment = body.String()
			return nil
		}
		text, err := applyAttrs(cur, attrs, body.String())
		if err != nil {
			return err
		}
		cur.Data = []byte(text)
		a.Files = append(a.Files, *cur)
		return nil
	}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "-- ") && strings.HasSuffix(line, " --") && len(line) > 6 {
			if err := flush(); err != nil {
				return nil, err
			}
			var err error
			if cur, attrs, err = parseHeader(line); err != nil {
				return nil, err
			}
			body.Reset()
			continue
		}
		body.WriteString(line)
		body.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return a, flush()
}

// parseHeader reads a "-- PATH [attr]... --" or "-- PATH -> TARGET --"
// line: the file it starts and its attributes, last first.
func parseHeader(line string) (*File, []string, error) {
	spec := strings.TrimSpace(line[3 : len(line)-3])
	f, attrs := &File{Mode: 0o644, Size: -1}, []string(nil)
	if p, target, ok := strings.Cut(spec, " -> "); ok {
		f.Path, f.Link = strings.TrimSpace(p), strings.TrimSpace(target)
	} else {
		for strings.HasSuffix(spec, "]") {
			i := strings.LastIndex(spec, " [")
			if i < 0 {
				break
			}
			attrs = append(attrs, spec[i+2:len(spec)-1])
			spec = strings.TrimSpace(spec[:i])
		}
		f.Path = spec
	}
	if f.Path == "" || filepath.IsAbs(f.Path) || strings.Contains(f.Path, "..") {
		return nil, nil, fmt.Errorf("fakeroot: bad path in %q", line)
	}
	return f, attrs, nil
}

// applyAttrs applies a file's attributes to it and returns its content
// as they transform text (the body between its header and the next).
func applyAttrs(f *File, attrs []string, text string) (string, error) {
	for _, at := range attrs {
		switch {
		case at == "base64":
			b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(text), ""))
			if err != nil {
				return "", fmt.Errorf("fakeroot: %s: bad base64: %w", f.Path, err)
			}
			text = string(b)
		case strings.HasPrefix(at, "size "):
			n, err := strconv.ParseInt(strings.TrimPrefix(at, "size "), 10, 64)
			if err != nil || n < 0 {
				return "", fmt.Errorf("fakeroot: %s: bad size %q", f.Path, at)
			}
			f.Size = n
		case strings.HasPrefix(at, "sha256 "):
			f.SHA256 = strings.TrimPrefix(at, "sha256 ")
		case strings.HasPrefix(at, "errno "):
			f.Errno = strings.TrimPrefix(at, "errno ")
		case at == "sparse":
			chunks, err := parseSparse(f.Path, text)
			if err != nil {
				return "", err
			}
			f.Sparse, text = append(f.Sparse, chunks...), ""
		case at == "nul":
			text = strings.ReplaceAll(text, "\n", "\x00")
		case at == "noeol":
			text = strings.TrimSuffix(text, "\n")
		case at == "exec":
			f.Mode = 0o755
		case at == "dir":
			f.Dir = true
		case at == "fifo":
			f.FIFO = true
		case strings.HasPrefix(at, "mode "):
			m, err := strconv.ParseUint(strings.TrimPrefix(at, "mode "), 8, 32)
			if err != nil {
				return "", fmt.Errorf("fakeroot: %s: bad mode %q", f.Path, at)
			}
			f.Mode = os.FileMode(m)
		default:
			return "", fmt.Errorf("fakeroot: %s: unknown attribute [%s]", f.Path, at)
		}
	}
	return text, nil
}

// parseSparse reads a [sparse] body: one "OFFSET QUOTED" line a chunk.
func parseSparse(path, text string) ([]Chunk, error) {
	var chunks []Chunk
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if line == "" {
			continue
		}
		o, q, _ := strings.Cut(line, " ")
		off, err := strconv.ParseInt(o, 10, 64)
		d, err2 := strconv.Unquote(q)
		if err != nil || err2 != nil || off < 0 {
			return nil, fmt.Errorf("fakeroot: %s: bad sparse line %q", path, line)
		}
		chunks = append(chunks, Chunk{off, []byte(d)})
	}
	return chunks, nil
}

// Expand creates the archive's files under dir.
func (a *Archive) Expand(dir string) error {
	var modes []File
	for _, f := range a.Files {
		p := filepath.Join(dir, f.Path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		var err error
		switch {
		case f.Errno != "":
			continue
		case f.Link != "":
			err = os.Symlink(f.Link, p)
		case f.Dir:
			err = os.MkdirAll(p, 0o755)
		case f.FIFO:
			err = syscall.Mkfifo(p, 0o644)
		default:
			err = writeFile(p, f)
			if f.Mode != 0o644 {
				modes = append(modes, f)
			}
		}
		if err != nil {
			return fmt.Errorf("fakeroot: %w", err)
		}
	}
	// Modes last, so a 0000 file does not stop the writes above.
	for _, f := range modes {
		if err := os.Chmod(filepath.Join(dir, f.Path), f.Mode); err != nil {
			return fmt.Errorf("fakeroot: %w", err)
		}
	}
	return nil
}

// writeFile writes a regular file: Data, the sparse chunks, then a hole
// up to Size. An executable (any x bit in Mode) is written holding
// syscall.ForkLock, so that no child forked meanwhile inherits it open
// for writing: a script of the archive run by a test would otherwise fail
// with ETXTBSY while another test's child still held the descriptor
// between its fork and exec. Other files take no lock: parallel tests
// expanding roots of hundreds of files would queue behind every fork.
func writeFile(p string, f File) error {
	if f.Mode&0o111 != 0 {
		syscall.ForkLock.RLock()
		defer syscall.ForkLock.RUnlock()
	}
	w, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = w.Write(f.Data)
	for _, c := range f.Sparse {
		if err == nil {
			_, err = w.WriteAt(c.Data, c.Off)
		}
	}
	if err == nil && f.Size >= 0 {
		err = w.Truncate(f.Size)
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return err
}

// Materialize parses the archive file and expands it into dir.
func Materialize(archive, dir string) (*Archive, error) {
	data, err := os.ReadFile(archive)
	if err != nil {
		return nil, err
	}
	a, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", archive, err)
	}
	return a, a.Expand(dir)
}
