package machine

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkRootFSStat is the cost of one stat of a five-component path
// with a link on the way (/opt/rocm -> rocm-7.2.1): under a root with
// openat2, with the portable walk, and the kernel following links from a
// joined host path (the pre-FS way, which escapes the root); and on
// the live  go test ./probe -run XXX -bench RootFS -benchmem
func BenchmarkRootFSStat(b *testing.B) {
	root := b.TempDir()
	mkfilesB(b, root, "opt/rocm-7.2.1/lib/libamdhip64.so.6", "opt/rocm -> rocm-7.2.1")
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
	mkfilesB(b, root, "opt/rocm-7.2.1/.info/version", "opt/rocm -> rocm-7.2.1")
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

func mkfilesB(b *testing.B, root string, specs ...string) {
	for _, s := range specs {
		name, target, isLink := cutArrow(s)
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		var err error
		if isLink {
			err = os.Symlink(target, p)
		} else {
			err = os.WriteFile(p, []byte(name), 0o644)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}
