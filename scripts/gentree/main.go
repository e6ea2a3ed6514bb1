// Command gentree writes a synthetic ROCm install of realistic shape for
// scripts/bench-hash.sh: four large shared libraries behind soname links,
// Tensile kernel directories (flat for rocBLAS, under gfx942/ and gfx950/
// for hipBLASLt) and an MIOpen db, with sizes drawn from a fixed seed.
//
//	go run ./scripts/gentree [-mib 2300] [-files 5600] DIR
//
// DIR/opt/rocm is the install; point ROCM_PATH (or --root DIR) at it.
package main

import (
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
)

func main() {
	totalMiB := flag.Int("mib", 2300, "approximate total size in MiB")
	nfiles := flag.Int("files", 5600, "number of kernel files")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: gentree [-mib N] [-files N] DIR")
		os.Exit(2)
	}
	t := newTree(filepath.Join(flag.Arg(0), "opt", "rocm"))
	// Libraries: ~45% of the bytes; kernel files the rest.
	libBytes := int64(*totalMiB) << 20 * 45 / 100
	t.libraries(libBytes)
	t.kernels(int64(*totalMiB)<<20-libBytes, *nfiles)
	if err := os.MkdirAll(filepath.Join(t.root, ".info"), 0o755); err != nil {
		fatal(err)
	}
	if err := os.WriteFile(filepath.Join(t.root, ".info", "version"), []byte("7.2.1\n"), 0o644); err != nil {
		fatal(err)
	}
}

// tree writes files of random content under root, from a fixed seed.
type tree struct {
	root string
	rng  *rand.Rand
	// block is one block of random bytes; each file is a slice of it
	// with its own name as a header, so every file has distinct content.
	block []byte
}

func newTree(root string) *tree {
	t := &tree{root: root, rng: rand.New(rand.NewSource(1)), block: make([]byte, 64<<20)}
	t.rng.Read(t.block)
	return t
}

func (t *tree) write(p string, size int64) {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		fatal(err)
	}
	f, err := os.Create(p)
	if err != nil {
		fatal(err)
	}
	hdr := []byte(p + "\n")
	if _, err := f.Write(hdr); err != nil {
		fatal(err)
	}
	for left := size - int64(len(hdr)); left > 0; {
		off := t.rng.Intn(len(t.block) / 2)
		n := min(left, int64(len(t.block)-off))
		if _, err := f.Write(t.block[off : off+int(n)]); err != nil {
			fatal(err)
		}
		left -= n
	}
	if err := f.Close(); err != nil {
		fatal(err)
	}
}

func link(target, p string) {
	if err := os.Symlink(target, p); err != nil {
		fatal(err)
	}
}

// libraries writes four large shared libraries behind soname links.
func (t *tree) libraries(bytes int64) {
	libs := []struct {
		soname, major, full string
		share               int64
	}{
		{"libhipblaslt.so", "libhipblaslt.so.1", "libhipblaslt.so.1.2.70201", 30},
		{"librocblas.so", "librocblas.so.5", "librocblas.so.5.2.70201", 30},
		{"libMIOpen.so", "libMIOpen.so.1", "libMIOpen.so.1.0.70201", 25},
		{"librccl.so", "librccl.so.1", "librccl.so.1.0.70201", 15},
	}
	lib := filepath.Join(t.root, "lib")
	for _, l := range libs {
		t.write(filepath.Join(lib, l.full), bytes*l.share/100)
		link(l.full, filepath.Join(lib, l.major))
		link(l.major, filepath.Join(lib, l.soname))
	}
}

// kernels writes n kernel files of bytes in all, split hipBLASLt 45% /
// rocBLAS 35% / MIOpen 20% of the count, sizes log-uniform-ish around the
// mean.
func (t *tree) kernels(bytes int64, n int) {
	lib := filepath.Join(t.root, "lib")
	mean := bytes / int64(n)
	size := func() int64 {
		// 1/8 .. 2x the mean, averaging about the mean.
		return mean/8 + t.rng.Int63n(mean*15/8+1)
	}
	hb := n * 45 / 100
	rb := n * 35 / 100
	mi := n - hb - rb
	exts := []string{".co", ".hsaco", ".dat", ".co", ".hsaco", ".yaml"}
	for i := 0; i < hb; i++ {
		arch := []string{"gfx942", "gfx950"}[i%2]
		ext := exts[i%len(exts)]
		name := fmt.Sprintf("TensileLibrary_Type_HH_Contraction_l_Ailk_Bljk_Cijk_Dijk_%05d_%s%s", i, arch, ext)
		t.write(filepath.Join(lib, "hipblaslt", "library", arch, name), size())
	}
	for i := 0; i < rb; i++ {
		arch := []string{"gfx942", "gfx90a", "gfx950"}[i%3]
		ext := exts[i%len(exts)]
		name := fmt.Sprintf("TensileLibrary_Type_SS_Contraction_l_Alik_Bljk_Cijk_Dijk_%05d_%s%s", i, arch, ext)
		t.write(filepath.Join(lib, "rocblas", "library", name), size())
	}
	dbExts := []string{".HIP.fdb.txt", ".db.txt", ".kdb", ".kdb", ".tn.model"}
	for i := 0; i < mi; i++ {
		arch := []string{"gfx942_304", "gfx90a_104", "gfx950_256"}[i%3]
		name := fmt.Sprintf("%s_%05d%s", arch, i, dbExts[i%len(dbExts)])
		t.write(filepath.Join(t.root, "share", "miopen", "db", name), size())
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "gentree:", err)
	os.Exit(1)
}
