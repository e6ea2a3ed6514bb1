package pyfmt

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

func TestRepr(t *testing.T) {
	for in, want := range map[string]string{
		"/nonexistent/librccl-net.so": `'/nonexistent/librccl-net.so'`,
		"it's":                        `"it's"`,
		`it's "x"`:                    `'it\'s "x"'`,
		"a\\b\n\t\r":                  `'a\\b\n\t\r'`,
		"\x00\x7f":                    `'\x00\x7f'`,
		"é\u00a0":                     `'é\xa0'`,
		"\u200b":                      `'\u200b'`,
		"\xff":                        `'\udcff'`,
		"(missing)":                   `'(missing)'`,
		"":                            `''`,
	} {
		if got := Repr(in); got != want {
			t.Errorf("Repr(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestExc(t *testing.T) {
	_, err := os.Readlink("/nonexistent/ns/mnt")
	if got := ExcStr(err); got != "[Errno 2] No such file or directory: '/nonexistent/ns/mnt'" {
		t.Errorf("ExcStr = %s", got)
	}
	if got := ExcType(err); got != "FileNotFoundError" {
		t.Errorf("ExcType = %s", got)
	}
	perm := &fs.PathError{Op: "open", Path: "/usr/bin/rdhc", Err: syscall.EACCES}
	if got := ExcType(perm) + ": " + ExcStr(perm); got != "PermissionError: [Errno 13] Permission denied: '/usr/bin/rdhc'" {
		t.Errorf("got %s", got)
	}
	inval := &fs.PathError{Op: "readlink", Path: "/etc/hostname", Err: syscall.EINVAL}
	if got := ExcType(inval) + ": " + ExcStr(inval); got != "OSError: [Errno 22] Invalid argument: '/etc/hostname'" {
		t.Errorf("got %s", got)
	}
	nf := fmt.Errorf("run: %w", exec.ErrNotFound)
	if got := ExcType(nf); got != "FileNotFoundError" {
		t.Errorf("not found: %s", got)
	}
	if got := ExcStr(errors.New("plain")); got != "plain" {
		t.Errorf("plain error: %s", got)
	}
	if got := ExcStr(syscall.Errno(200)); got == "" {
		t.Error("unknown errno rendered empty")
	}
}

func TestFirstRunes(t *testing.T) {
	if got := FirstRunes("ééé", 2); got != "éé" {
		t.Errorf("got %q", got)
	}
	if got := FirstRunes("ab", 5); got != "ab" {
		t.Errorf("got %q", got)
	}
}
