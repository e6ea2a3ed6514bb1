package machine

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"

	"aorta-probe/internal/testtree"
)

// resolvers are the two ways FS resolves under a root: openat2 (where
// the kernel has it) and the portable walk, forced by the option.
var resolvers = []struct {
	name     string
	portable bool
}{{"openat2", false}, {"walk", true}}

// TestRootFSResolve: every path under a root resolves inside it, with the
// same answer from openat2 and from the portable walk.
func TestRootFSResolve(t *testing.T) {
	dir := t.TempDir()
	host := filepath.Join(dir, "host")
	root := filepath.Join(dir, "root")
	testtree.Make(t, host, "secret", "etc/hostname", "d/link -> secret")
	up := strings.Repeat("../", 30)
	testtree.Make(t, root,
		"opt/rocm-7.2.1/lib/x", "opt/rocm-7.2.1/include/",
		"opt/rocm -> /opt/rocm-7.2.1",                                       // absolute, inside the root
		"abs-host -> "+host+"/secret",                                       // absolute host path
		"etc/hostname -> "+up+strings.TrimPrefix(host, "/")+"/etc/hostname", // relative escape
		"esc-dir -> "+up+strings.TrimPrefix(host, "/")+"/d",
		"up -> ../../..",
		"deep/a/b -> ../../opt/rocm",
		"loop -> loop2", "loop2 -> loop", "self -> self/x",
		"dangling -> nowhere",
		"file-link -> opt/rocm-7.2.1/lib/x",
		"rel-lib -> lib",
		"c40 -> opt/rocm-7.2.1/lib/x")
	// A chain of links: c0 -> c1 -> ... -> c40 -> the file: from c1 the
	// kernel follows 40 links (allowed), from c0 41 (ELOOP).
	for i := 39; i >= 0; i-- {
		testtree.Make(t, root, fmt.Sprintf("c%d -> c%d", i, i+1))
	}
	cases := []struct {
		in   string
		want string // the machine path of the file or directory reached
		err  syscall.Errno
	}{
		{in: "/opt/rocm/lib/x", want: "/opt/rocm-7.2.1/lib/x"},
		{in: "/opt/rocm/lib/../lib/x", want: "/opt/rocm-7.2.1/lib/x"},
		{in: "/opt/rocm/../rocm-7.2.1/lib/x", want: "/opt/rocm-7.2.1/lib/x"}, // ".." after a link is physical
		{in: "/up/opt/rocm", want: "/opt/rocm-7.2.1"},                        // ".." above the root stays at the root
		{in: "/../../../opt/rocm/lib/x", want: "/opt/rocm-7.2.1/lib/x"},
		{in: "/deep/a/b/lib/../lib/x", want: "/opt/rocm-7.2.1/lib/x"},
		{in: "/", want: "/"},
		{in: "//opt//rocm/", want: "/opt/rocm-7.2.1"},
		{in: "lib/x", want: "/opt/rocm-7.2.1/lib/x"}, // relative: against the cwd /opt/rocm
		{in: "/c1", want: "/opt/rocm-7.2.1/lib/x"},
		{in: "/c0", err: syscall.ELOOP},
		{in: "/abs-host", err: syscall.ENOENT},
		{in: "/etc/hostname", err: syscall.ENOENT},
		{in: "/esc-dir/link", err: syscall.ENOENT},
		{in: "/loop", err: syscall.ELOOP},
		{in: "/self", err: syscall.ELOOP},
		{in: "/dangling", err: syscall.ENOENT},
		{in: "/file-link/..", err: syscall.ENOTDIR},
		{in: "/file-link/", err: syscall.ENOTDIR},
		{in: "/opt/rocm/lib/x/y", err: syscall.ENOTDIR},
		{in: "/opt/rocm/lib/x/.", err: syscall.ENOTDIR},
		{in: "/missing/..", err: syscall.ENOENT},
	}
	for _, rv := range resolvers {
		t.Run(rv.name, func(t *testing.T) {
			r := NewFS(root, "/opt/rocm", rv.portable)
			for _, tc := range cases {
				fi, err := r.Stat(tc.in)
				if tc.err != 0 {
					var en syscall.Errno
					if !errors.As(err, &en) || en != tc.err {
						t.Errorf("stat(%q) = %v, %v; want %v", tc.in, fi, err, tc.err)
					}
					if err != nil && strings.Contains(err.Error(), root) {
						t.Errorf("error names the host path: %v", err)
					}
					continue
				}
				want, werr := os.Stat(filepath.Join(root, tc.want))
				if err != nil || werr != nil || !os.SameFile(fi, want) {
					t.Errorf("stat(%q) = %v, %v; want the file %s", tc.in, fi, err, tc.want)
				}
				if rv.portable {
					ap, _ := r.Abs(tc.in)
					if got, err := r.walk(ap, true); err != nil || got != tc.want {
						t.Errorf("walk(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
					}
				}
			}
			if !rv.portable && r.noOpenat2.Load() {
				t.Log("this kernel has no usable openat2: the portable walk answered both runs")
			}
			// lstat, readlink and readDir resolve the parent inside the root.
			if l, err := r.Readlink("/up/opt/rocm"); err != nil || l != "/opt/rocm-7.2.1" {
				t.Errorf("readlink(/up/opt/rocm) = %q, %v", l, err)
			}
			if _, err := r.Readlink("/esc-dir/link"); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("readlink through an escaping link: %v", err)
			}
			if fi, err := r.Lstat("/opt/rocm"); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
				t.Errorf("lstat(/opt/rocm) = %v, %v", fi, err)
			}
			if _, err := r.Readlink("/opt/rocm/lib/x"); err == nil {
				t.Error("readlink of a regular file succeeded")
			}
			es, err := r.ReadDir("/opt/rocm")
			if err != nil || len(es) != 2 || es[0].Name() != "include" || !es[0].IsDir() || es[1].Name() != "lib" {
				t.Errorf("readDir(/opt/rocm) = %v, %v", es, err)
			}
			if es, err := r.ReadDir("/"); err == nil {
				for _, e := range es {
					if e.Name() == "abs-host" {
						if fi, err := e.Info(); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
							t.Errorf("Info of a link entry: %v, %v", fi, err)
						}
					}
				}
			}
			if _, err := r.ReadDir("/esc-dir"); err == nil {
				t.Error("readDir through an escaping link succeeded")
			}
			if b, err := r.ReadFile("/opt/rocm/lib/x", 100); err != nil || string(b) != "opt/rocm-7.2.1/lib/x" {
				t.Errorf("readFile = %q, %v", b, err)
			}
			if r.Exists("/abs-host") || r.IsDir("/esc-dir") || r.ReadText("/etc/hostname") != nil {
				t.Error("a host file was seen through a link")
			}
			// realpath (Path.resolve, non-strict): what does not resolve is
			// appended as written.
			for in, want := range map[string]string{
				"/opt/rocm/missing/../lib": "/opt/rocm-7.2.1/lib",
				"/deep/a/b/x/y":            "/opt/rocm-7.2.1/x/y",
				"rel-lib":                  "/opt/rocm-7.2.1/rel-lib",
				"/abs-host":                host + "/secret",
			} {
				if got := r.Realpath(in); got != want {
					t.Errorf("realpath(%q) = %q, want %q", in, got, want)
				}
			}
		})
	}
}

// TestRootFSNoOpenat2: a kernel without openat2 (ENOSYS; a seccomp filter
// answering EPERM is handled alike) falls back to the walk, with the same
// answers.
func TestRootFSNoOpenat2(t *testing.T) {
	root := t.TempDir()
	testtree.Make(t, root, "opt/rocm-7.2.1/lib/x", "opt/rocm -> /opt/rocm-7.2.1", "esc -> ../../../../../../../../etc/hostname")
	r := NewFS(root, "/", false)
	r.openat2Call = func(int, *byte, *openHow) (int, syscall.Errno) { return -1, syscall.ENOSYS }
	if b, err := r.ReadFile("/opt/rocm/lib/x", 100); err != nil || string(b) != "opt/rocm-7.2.1/lib/x" {
		t.Errorf("readFile = %q, %v", b, err)
	}
	if !r.noOpenat2.Load() {
		t.Error("ENOSYS did not switch to the walk")
	}
	if r.Exists("/esc") {
		t.Error("the walk followed an escaping link")
	}
}

// TestOpenat2KeepsRacing: a path for which openat2 answers EAGAIN try
// after try (a rename or mount raced each lookup's "..") is resolved by
// the walk, with the same answer; the next path tries openat2 again.
func TestOpenat2KeepsRacing(t *testing.T) {
	root := t.TempDir()
	testtree.Make(t, root, "sys/devices/pci/gpu/current_compute_partition", "sys/class/drm/card0 -> ../../devices/pci/gpu")
	r := NewFS(root, "/", false)
	var tries int
	racing := true
	r.openat2Call = func(dir int, path *byte, how *openHow) (int, syscall.Errno) {
		tries++
		if racing {
			return -1, syscall.EAGAIN
		}
		return rawOpenat2(dir, path, how)
	}
	want := "sys/devices/pci/gpu/current_compute_partition"
	if b, err := r.ReadFile("/sys/class/drm/card0/current_compute_partition", 100); err != nil || string(b) != want {
		t.Errorf("read while openat2 races: %q, %v; want %q", b, err, want)
	}
	if tries != openat2TriesEAGAIN || r.noOpenat2.Load() {
		t.Errorf("openat2 tried %d times (want %d), given up for good: %v", tries, openat2TriesEAGAIN, r.noOpenat2.Load())
	}
	racing, tries = false, 0
	if b, err := r.ReadFile("/sys/class/drm/card0/current_compute_partition", 100); err != nil || string(b) != want || tries != 1 {
		t.Errorf("read once the race is over: %q, %v after %d openat2 calls; want %q after 1", b, err, tries, want)
	}
}

// TestOpenat2UnderMountStorm: while another thread mounts and unmounts a
// tmpfs in a private mount namespace (mount_lock is the host's, whatever
// the namespace), openat2 through a ".." answers EAGAIN now and then; a
// read through FS never fails. Needs CAP_SYS_ADMIN.
func TestOpenat2UnderMountStorm(t *testing.T) {
	root := t.TempDir()
	testtree.Make(t, root, "devices/gpu/f", "class/drm/card0 -> ../../devices/gpu")
	mnt := t.TempDir()
	started, done := make(chan error), make(chan struct{})
	defer close(done)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine, its namespace with it
		if err := syscall.Unshare(syscall.CLONE_NEWNS); err != nil {
			started <- err
			return
		}
		if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
			started <- err
			return
		}
		started <- nil
		for {
			select {
			case <-done:
				return
			default:
			}
			syscall.Mount("storm", mnt, "tmpfs", 0, "")
			syscall.Unmount(mnt, 0)
		}
	}()
	if err := <-started; err != nil {
		t.Skipf("no private mount namespace to mount in (needs CAP_SYS_ADMIN): %v", err)
	}
	r := NewFS(root, "/", false)
	raced := 0
	r.openat2Call = func(dir int, path *byte, how *openHow) (int, syscall.Errno) {
		fd, e := rawOpenat2(dir, path, how)
		if e == syscall.EAGAIN {
			raced++
		}
		return fd, e
	}
	for i := range 20000 {
		if b, err := r.ReadFile("/class/drm/card0/f", 100); err != nil || string(b) != "devices/gpu/f" {
			t.Fatalf("read %d under the storm: %q, %v", i, b, err)
		}
	}
	t.Logf("openat2 answered EAGAIN %d times in 20000 reads", raced)
}

// TestRootFSLive: under "/" the kernel resolves, as for the workload.
func TestRootFSLive(t *testing.T) {
	dir := t.TempDir()
	testtree.Make(t, dir, "f", "l -> f")
	r := NewFS("/", dir, false)
	if got := r.ReadText("l"); got == nil || *got != filepath.Join(dir, "f")[1:] && *got != "f" {
		t.Errorf("relative read against the cwd: %v", got)
	}
	if _, err := r.ReadHead("/dev/zero", 10); err == nil {
		t.Error("/dev/zero read as a file")
	}
	if got, want := r.Realpath(dir+"/l"), dir+"/f"; got != want {
		t.Errorf("realpath = %q, want %q", got, want)
	}
}

// FuzzRootFSResolvers: for any path, openat2 and the portable walk agree
// (the same file, or the same errno) on a tree of links of every kind.
func FuzzRootFSResolvers(f *testing.F) {
	root := f.TempDir()
	testtree.Make(f, root, "opt/rocm-7.2.1/lib/x", "opt/rocm-7.2.1/include/",
		"opt/rocm -> /opt/rocm-7.2.1", "up -> ../../..", "deep/a/b -> ../../opt/rocm",
		"loop -> loop2", "loop2 -> loop", "dangling -> nowhere", "file-link -> opt/rocm-7.2.1/lib/x",
		"abs-dir -> /opt/", "dot -> .", "dotdot -> ..")
	for _, s := range []string{"/opt/rocm/lib/x", "/up/opt/rocm/../rocm/lib/x", "/file-link/..", "lib/x",
		"/deep/a/b/include/", "/dot/dot/dotdot/opt", "/loop/x", "//abs-dir//rocm-7.2.1/.", "../../opt"} {
		f.Add(s)
	}
	kernel := NewFS(root, "/opt/rocm", false)
	walk := NewFS(root, "/opt/rocm", true)
	if _, err := kernel.Stat("/"); err != nil || kernel.noOpenat2.Load() {
		f.Skip("no usable openat2 on this kernel: nothing to compare")
	}
	f.Fuzz(func(t *testing.T, p string) {
		if strings.IndexByte(p, 0) >= 0 || len(p) > 512 {
			return
		}
		for _, op := range []struct {
			name string
			fn   func(*FS, string) (fs.FileInfo, error)
		}{{"stat", (*FS).Stat}, {"lstat", (*FS).Lstat}} {
			a, aerr := op.fn(kernel, p)
			b, berr := op.fn(walk, p)
			var ae, be syscall.Errno
			errors.As(aerr, &ae)
			errors.As(berr, &be)
			switch {
			case (aerr == nil) != (berr == nil) || ae != be:
				t.Errorf("%s(%q): openat2 %v, walk %v", op.name, p, aerr, berr)
			case aerr == nil && !os.SameFile(a, b):
				t.Errorf("%s(%q): openat2 and walk reach different files", op.name, p)
			}
		}
	})
}

func TestResolve(t *testing.T) {
	root := t.TempDir()
	testtree.Make(t, root, "opt/rocm-7.2.1/lib/x", "opt/rocm -> rocm-7.2.1", "abs -> /opt/rocm/lib",
		"up -> ../../..", "deep/a/b -> ../../opt/rocm")
	r := NewFS(root, "/", false)
	for _, tc := range []struct{ in, want string }{
		{"/opt/rocm/lib/x", "/opt/rocm-7.2.1/lib/x"},
		{"/abs/x", "/opt/rocm-7.2.1/lib/x"},
		{"/up/opt/rocm", "/opt/rocm-7.2.1"}, // ".." above the root stays at the root
		{"/deep/a/b/lib/../lib/x", "/opt/rocm-7.2.1/lib/x"},
		{"/", "/"},
		{"//opt//rocm/", "/opt/rocm-7.2.1"},
	} {
		got, err := r.walk(tc.in, true)
		if err != nil || got != tc.want {
			t.Errorf("resolve(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// BenchmarkRootFSStat is the cost of one stat of a five-component path
// with a link on the way (/opt/rocm -> rocm-7.2.1): under a root with
// openat2, with the portable walk, and the kernel following links from a
// joined host path (the pre-FS way, which escapes the root); and on
// the live  go test ./probe -run XXX -bench RootFS -benchmem
func BenchmarkRootFSStat(b *testing.B) {
	root := b.TempDir()
	testtree.Make(b, root, "opt/rocm-7.2.1/lib/libamdhip64.so.6", "opt/rocm -> rocm-7.2.1")
	const p = "/opt/rocm/lib/libamdhip64.so.6"
	for _, rv := range resolvers {
		b.Run(rv.name, func(b *testing.B) {
			r := NewFS(root, "/", rv.portable)
			for b.Loop() {
				if _, err := r.Stat(p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("joined-host-path", func(b *testing.B) {
		for b.Loop() {
			if _, err := os.Stat(filepath.Join(root, p)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("live", func(b *testing.B) {
		r := NewFS("/", "/", false)
		for b.Loop() {
			if _, err := r.Stat(root + p); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkRootFSReadText is read-text of a small file through a link.
func BenchmarkRootFSReadText(b *testing.B) {
	root := b.TempDir()
	testtree.Make(b, root, "opt/rocm-7.2.1/.info/version", "opt/rocm -> rocm-7.2.1")
	for _, rv := range resolvers {
		b.Run(rv.name, func(b *testing.B) {
			r := NewFS(root, "/", rv.portable)
			for b.Loop() {
				if r.ReadText("/opt/rocm/.info/version") == nil {
					b.Fatal("unreadable")
				}
			}
		})
	}
	b.Run("live", func(b *testing.B) {
		r := NewFS("/", "/", false)
		for b.Loop() {
			if r.ReadText(root+"/opt/rocm/.info/version") == nil {
				b.Fatal("unreadable")
			}
		}
	})
}

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

// TestReadAtMost: the whole reader up to n bytes whatever size stat
// reported (exact, 0 as procfs says, smaller as for a file that grew, larger
// as for one that shrank), in one buffer when the size was right.
func TestReadAtMost(t *testing.T) {
	text := strings.Repeat("0123456789", 300) // 3000 bytes
	for _, tc := range []struct {
		name    string
		n, size int64
		want    string
	}{
		{"exact size", 1 << 20, 3000, text},
		{"size 0 (procfs)", 1 << 20, 0, text},
		{"grew since stat", 1 << 20, 100, text},
		{"shrank since stat", 1 << 20, 9000, text},
		{"cut at n", 1234, 3000, text[:1234]},
		{"cut at n, size 0", 700, 0, text[:700]},
		{"n 0", 0, 3000, ""},
	} {
		b, err := readAtMost(strings.NewReader(tc.want+text[len(tc.want):]), tc.n, tc.size)
		if err != nil || string(b) != tc.want {
			t.Errorf("%s: read %d bytes, %v; want %d", tc.name, len(b), err, len(tc.want))
		}
		if tc.name == "exact size" && cap(b) != 3001 {
			t.Errorf("exact size: buffer of %d bytes, want one of 3001", cap(b))
		}
	}
	if _, err := readAtMost(iotest.ErrReader(io.ErrUnexpectedEOF), 10, 10); err != io.ErrUnexpectedEOF {
		t.Errorf("a failing reader: %v", err)
	}
}

// TestReadDirMax: a listing stops once it holds more than max entries,
// FIFOs, directories and links counted like files; under the cap it is
// whole and sorted, as ReadDir; a link to a directory is listed where it
// leads inside the root; a FIFO where the directory should be fails at
// once. The same under a root and live.
func TestReadDirMax(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "d")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"c", "a"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "b"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/d", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, fsys := range []struct {
		name string
		r    *FS
		base string
	}{{"root", NewFS(root, "/", false), ""}, {"live", NewFS("/", "/", false), root}} {
		t.Run(fsys.name, func(t *testing.T) {
			for _, tc := range []struct {
				max  int
				n    int
				more bool
			}{{4, 4, false}, {5, 4, false}, {3, 4, true}, {0, 1, true}} {
				es, more, err := fsys.r.ReadDirMax(fsys.base+"/d", tc.max)
				if err != nil || more != tc.more || len(es) != tc.n {
					t.Errorf("max %d: %d entries, more %v, %v; want %d, %v", tc.max, len(es), more, err, tc.n, tc.more)
				}
				if !more && err == nil && strings.Join(direntNames(es), " ") != "a b c sub" {
					t.Errorf("max %d: %q, want sorted", tc.max, direntNames(es))
				}
			}
			if fsys.name == "root" {
				if es, _, err := fsys.r.ReadDirMax("/link", 10); err != nil || len(es) != 4 || es[1].Type()&fs.ModeNamedPipe == 0 {
					t.Errorf("through the link: %v, %v", es, err)
				}
			}
			if _, _, err := fsys.r.ReadDirMax(fsys.base+"/fifo", 10); !errors.Is(err, syscall.ENOTDIR) {
				t.Errorf("a FIFO: %v, want ENOTDIR", err)
			}
		})
	}
}
