package machine

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"
)

// TestUnwrapErrnoDeep: the errno of a read error is found however it is
// wrapped, so the *fs.PathError rebuilt with the logical path reads "read
// /logical: input/output error" and not the physical path inside. The copy
// of errnoOf that the filesystem reader (probe/rootfs.go then) had looked one *fs.PathError deep only.
func TestUnwrapErrnoDeep(t *testing.T) {
	for _, err := range []error{
		syscall.EIO,
		&fs.PathError{Op: "read", Path: "/root/x", Err: syscall.EIO},
		fmt.Errorf("scan: %w", &fs.PathError{Op: "read", Path: "/root/x", Err: syscall.EIO}),
		&fs.PathError{Op: "read", Path: "/root/x", Err: fmt.Errorf("chunk: %w", syscall.EIO)},
	} {
		if got := UnwrapErrno(err); got != syscall.EIO {
			t.Errorf("unwrapErrno(%v) = %v, want EIO", err, got)
		}
	}
	plain := errors.New("short read")
	if got := UnwrapErrno(plain); got != plain {
		t.Errorf("unwrapErrno(%v) = %v, want it unchanged", plain, got)
	}
}
