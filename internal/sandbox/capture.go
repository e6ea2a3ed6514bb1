package sandbox

import (
	"context"
	"io"
	"os"
	"path/filepath"
)

// PodmanCapture runs `aorta-probe capture` in a FROM-scratch podman
// container (the "podman" case's invocation) and returns the archive it
// wrote: a capture of a real container, for testdata (docs/capture.md).
// args follow the archive path (--redact-hostname, OUT, flags).
func PodmanCapture(ctx context.Context, bin, dir string, log io.Writer, args ...string) ([]byte, error) {
	out, err := podmanRun(ctx, bin, dir, log, nil, append([]string{"capture", "/out/capture.txtar"}, args...)...)
	if err != nil {
		return nil, err
	}
	return os.ReadFile(filepath.Join(out, "capture.txtar"))
}
