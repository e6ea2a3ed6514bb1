package sandbox

import (
	"debug/elf"
	"fmt"
)

// CheckStatic reports whether the ELF file at path is statically linked:
// no PT_INTERP program header (no dynamic loader is asked for) and no
// DT_NEEDED entry (no shared library is). It needs no `file` tool.
func CheckStatic(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return checkStatic(f, path)
}

func checkStatic(f *elf.File, path string) error {
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			interp := make([]byte, p.Filesz)
			n, _ := p.ReadAt(interp, 0)
			return fmt.Errorf("%s: dynamically linked: PT_INTERP asks for %q", path, trimNUL(interp[:n]))
		}
	}
	libs, err := f.DynString(elf.DT_NEEDED)
	if err != nil {
		// No .dynamic section reads as an error on some inputs; a file
		// without one needs nothing.
		if f.Section(".dynamic") == nil {
			return nil
		}
		return fmt.Errorf("%s: reading DT_NEEDED: %w", path, err)
	}
	if len(libs) > 0 {
		return fmt.Errorf("%s: dynamically linked: DT_NEEDED %v", path, libs)
	}
	return nil
}

func trimNUL(b []byte) string {
	for len(b) > 0 && b[len(b)-1] == 0 {
		b = b[:len(b)-1]
	}
	return string(b)
}
