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
	tarball, out, image, err := imageInputs(bin, dir, "podman")
	if err != nil {
		return nil, err
	}
	if _, err := command(ctx, log, podmanArgv("import", tarball, image)...); err != nil {
		return nil, err
	}
	defer command(context.WithoutCancel(ctx), log, podmanArgv("rmi", "--force", image)...)
	run := []string{"run", "--rm", "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=4096:4096",
		"-v", out + ":/out", image, "/" + ProbeName, "capture", "/out/capture.txtar"}
	if _, err := command(ctx, log, podmanArgv(append(run, args...)...)...); err != nil {
		return nil, err
	}
	return os.ReadFile(filepath.Join(out, "capture.txtar"))
}
