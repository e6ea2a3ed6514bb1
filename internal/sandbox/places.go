package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// holderSource is a tiny program that runs its arguments (the probe) as
// a child, then stays alive until it is stopped: a FROM-scratch container
// whose own process took a document and that can then be entered with
// docker exec and nsenter (DockerPlaces).
const holderSource = `package main

import (
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

func main() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
	}
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGTERM, syscall.SIGINT)
	<-c
}
`

// HolderName is the holder's name inside the DockerPlaces image.
const HolderName = "holder"

// buildHolder compiles holderSource, statically, into dir.
func buildHolder(ctx context.Context, goTool, dir string, log io.Writer) (string, error) {
	src := filepath.Join(dir, "holder-src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(src, "main.go"), []byte(holderSource), 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte("module holder\n\ngo 1.21\n"), 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, HolderName)
	cmd := exec.CommandContext(ctx, goTool, "build", "-trimpath", "-o", bin, ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the holder: %v\n%s", err, out)
	}
	fmt.Fprintf(log, "built %s\n", bin)
	return bin, nil
}

// DockerPlaces runs the probe in four places of one private Docker engine
// (docs/triage.md, "The truth table"): "docker" (docker run --rm, FROM
// scratch), "docker-own" (a container's own process, which then stays
// alive), "docker-exec" (docker exec into that container) and "nsenter"
// (nsenter -t PID -a into it from the host). It returns the documents by
// name; goTool builds the holder.
func DockerPlaces(ctx context.Context, bin, goTool, dir string, log io.Writer) (map[string][]byte, error) {
	sb := docker()
	if why := sb.missing(os.Geteuid(), exec.LookPath); why != "" {
		return nil, errors.New(why)
	}
	if _, err := exec.LookPath("nsenter"); err != nil {
		return nil, fmt.Errorf("nsenter not found on $PATH")
	}
	holder, err := buildHolder(ctx, goTool, dir, log)
	if err != nil {
		return nil, err
	}
	out := filepath.Join(dir, "out")
	if err := os.MkdirAll(out, 0o777); err != nil {
		return nil, err
	}
	tarball := filepath.Join(dir, "image.tar")
	if err := writeTarFiles(tarball, [][2]string{{ProbeName, bin}, {HolderName, holder}}); err != nil {
		return nil, err
	}
	image := fmt.Sprintf("localhost/aorta-probe-places:%d-%d", os.Getpid(), time.Now().UnixNano())
	name := fmt.Sprintf("aorta-probe-places-%d", os.Getpid())
	err = withDocker(ctx, dir, log, func(cli func(args ...string) []string) error {
		if _, err := command(ctx, log, cli("import", tarball, image)...); err != nil {
			return err
		}
		defer command(context.WithoutCancel(ctx), log, cli("rmi", "--force", image)...)
		if _, err := command(ctx, log, cli("run", "--rm", "--network", "none",
			"-v", out+":/out", image, "/"+ProbeName, "/out/docker.json")...); err != nil {
			return err
		}
		if _, err := command(ctx, log, cli("run", "-d", "--name", name, "--network", "none",
			"-v", out+":/out", image, "/"+HolderName, "/"+ProbeName, "/out/docker-own.json")...); err != nil {
			return err
		}
		defer command(context.WithoutCancel(ctx), log, cli("rm", "--force", name)...)
		if err := waitFile(ctx, filepath.Join(out, "docker-own.json"), 2*time.Minute); err != nil {
			return err
		}
		if _, err := command(ctx, log, cli("exec", name, "/"+ProbeName, "/out/docker-exec.json")...); err != nil {
			return err
		}
		pid, err := command(ctx, log, cli("inspect", "--format", "{{.State.Pid}}", name)...)
		if err != nil {
			return err
		}
		_, err = command(ctx, log, "nsenter", "-t", strings.TrimSpace(string(pid)), "-a", "/"+ProbeName, "/out/nsenter.json")
		return err
	})
	if err != nil {
		return nil, err
	}
	docs := map[string][]byte{}
	for _, k := range []string{"docker", "docker-own", "docker-exec", "nsenter"} {
		b, err := readDoc(filepath.Join(out, k+".json"))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		docs[k] = b
	}
	return docs, nil
}

// waitFile waits until path exists.
func waitFile(ctx context.Context, path string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		if _, err := os.Stat(path); err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not appear within %s", path, limit)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
