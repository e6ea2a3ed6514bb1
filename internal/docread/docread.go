// Package docread reads one JSON document for the subcommands that take
// documents (diff, diff --fleet, diff --env-markers, validate): one bounded,
// streaming reader, so that no input — /dev/zero, a FIFO, a 100 GB file —
// can make them hold more than MaxBytes (docs/usage.md, "Reading
// documents").
package docread

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// MaxBytes is the most a document may hold: far above any real env.json
// (a document with --extended catalogs is a few MiB), low enough that no
// input exhausts memory.
const MaxBytes = 64 << 20

// ErrTooLarge is the error of an input longer than MaxBytes.
var ErrTooLarge = fmt.Errorf("larger than %d MiB: not an env.json document", MaxBytes>>20)

// chunk is what one read asks for, and the block a stream is kept in.
const chunk = 1 << 20

// Read reads the file at path, or stdin when path is "-", in chunks, and
// stops at the first of: the end, MaxBytes+1 bytes (ErrTooLarge), or a
// byte no JSON text may hold anywhere (a control character other than
// tab, line feed and carriage return: /dev/zero's NUL). In the last case
// the text up to and including that byte is returned: the JSON decoder
// fails on it at the same place, with the same message, as on the whole
// input, so what comes after is never read. An open or read error is an
// *os.PathError naming path.
func Read(path string, stdin io.Reader) (string, error) {
	r, size := stdin, int64(0)
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return "", err
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
		r = f
	} else if stdin == nil {
		return "", &os.PathError{Op: "read", Path: path, Err: errors.New("no standard input")}
	}
	// The text is built in a strings.Builder, whose String makes no copy
	// (a fleet reads hundreds of megabytes). A regular file's size is
	// known: one allocation of that size plus one byte to see the end,
	// never more than the cap. Anything else (a pipe, /dev/zero) is read
	// into fixed blocks first and copied once at its end, so that the
	// growth of one buffer never holds its old copies too: over the cap,
	// at most MaxBytes are held.
	var b strings.Builder
	var blocks [][]byte
	if size > 0 {
		b.Grow(int(min(size+1, MaxBytes+1)))
	}
	total := 0
	// A regular file smaller than a chunk is read through a block of its
	// size (plus the byte that sees the end), not a whole chunk: a fleet
	// of 40 KB documents would otherwise allocate and clear 1 MiB each.
	bs := chunk
	if size > 0 && size+1 < chunk {
		bs = int(size + 1)
	}
	block := make([]byte, bs)
	for {
		n, err := io.ReadFull(r, block)
		p := block[:n]
		for i, c := range p {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
				p, err = p[:i+1], io.EOF
				break
			}
		}
		if total += len(p); total > MaxBytes {
			return "", ErrTooLarge
		}
		if size > 0 {
			b.Write(p)
		} else if len(p) > 0 {
			blocks = append(blocks, p)
			block = make([]byte, chunk)
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return "", &os.PathError{Op: "read", Path: path, Err: unwrap(err)}
		}
	}
	if size == 0 {
		b.Grow(total)
		for _, p := range blocks {
			b.Write(p)
		}
	}
	return b.String(), nil
}

func unwrap(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
