package sandbox

import (
	"archive/tar"
	"fmt"
	"io"
	"os"
	"time"
)

// writeTar writes a tarball at path holding one executable, name, with the
// contents of bin: the whole root filesystem of a FROM-scratch image.
func writeTar(path, bin, name string) error {
	return writeTarFiles(path, [][2]string{{name, bin}})
}

// writeTarFiles is writeTar for several executables: {name, source} pairs.
func writeTarFiles(path string, files [][2]string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(f)
	for _, nf := range files {
		if err := addFile(tw, nf[0], nf[1]); err != nil {
			f.Close()
			return fmt.Errorf("tar %s: %w", path, err)
		}
	}
	if err := tw.Close(); err != nil {
		f.Close()
		return fmt.Errorf("tar %s: %w", path, err)
	}
	return f.Close()
}

// addFile adds src as the executable name. Its modification time is the
// moment it is written, to the nanosecond (PAX keeps it): every tarball
// is a layer podman and Docker have never seen, even of a binary they
// imported before and removed. Reusing that layer's digest made podman
// fail with "trying to reuse blob … layer not known" when its blob cache
// outlived the removed image.
func addFile(tw *tar.Writer, name, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	hdr := &tar.Header{Name: name, Mode: 0o755, Size: fi.Size(), ModTime: time.Now(), Typeflag: tar.TypeReg, Format: tar.FormatPAX}
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	_, err = io.Copy(tw, in)
	return err
}
