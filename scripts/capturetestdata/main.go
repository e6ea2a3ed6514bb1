// Command capturetestdata captures two real places of the machine it runs
// on — the host, and a FROM-scratch podman container — into the scenario
// archives testdata/roots/capture-host.txtar and
// testdata/roots/capture-podman-scratch.txtar (docs/capture.md). Run it
// as root from the repository root, then regenerate their goldens:
//
//	go run ./scripts/capturetestdata && go test ./probe -run TestScenarios -update
//
// The archives are sealed (docs/capture.md, "Integrity"): after an edit
// by hand, or to seal archives of an aorta-probe that did not, run
//
//	go run ./scripts/capturetestdata -reseal testdata/roots/capture-*.txtar
//
// which replaces each one's end section by the one its content calls for.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"aorta-probe/internal/archive"
	"aorta-probe/internal/sandbox"
)

func main() {
	run := run
	if len(os.Args) > 1 && os.Args[1] == "-reseal" {
		run = func() error { return reseal(os.Args[2:]) }
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "capturetestdata:", err)
		os.Exit(1)
	}
}

func run() error {
	dir, err := os.MkdirTemp("", "capturetestdata-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, sandbox.ProbeName)
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return err
	}
	// The host, with a fixed small environment so the archive holds no
	// value of the caller's.
	host := exec.Command(bin, "capture", "testdata/roots/capture-host.txtar", "--redact-hostname", filepath.Join(dir, "host.json"))
	host.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", "HOME=/nonexistent"}
	host.Stdout, host.Stderr = os.Stderr, os.Stderr
	if err := host.Run(); err != nil {
		return fmt.Errorf("host capture: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	b, err := sandbox.PodmanCapture(ctx, bin, dir, os.Stderr, "--redact-hostname", "/out/env.json")
	if err != nil {
		return fmt.Errorf("podman capture: %w", err)
	}
	return os.WriteFile("testdata/roots/capture-podman-scratch.txtar", b, 0o644)
}

// reseal seals each archive in place (archive.Seal).
func reseal(paths []string) error {
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if b, err = archive.Seal(b); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
