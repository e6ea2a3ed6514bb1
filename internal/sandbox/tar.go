package sandbox

import (
	"archive/tar"
	"fmt"
	"io"
	"os"
)

// writeTar writes a tarball at path holding one executable, name, with the
// contents of bin: the whole root filesystem of a FROM-scratch image.
func writeTar(path, bin, name string) error {
	in, err := os.Open(bin)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(f)
	hdr := &tar.Header{Name: name, Mode: 0o755, Size: fi.Size(), ModTime: fi.ModTime(), Typeflag: tar.TypeReg, Format: tar.FormatPAX}
	if err := tw.WriteHeader(hdr); err != nil {
		f.Close()
		return fmt.Errorf("tar %s: %w", path, err)
	}
	if _, err := io.Copy(tw, in); err != nil {
		f.Close()
		return fmt.Errorf("tar %s: %w", path, err)
	}
	if err := tw.Close(); err != nil {
		f.Close()
		return fmt.Errorf("tar %s: %w", path, err)
	}
	return f.Close()
}
