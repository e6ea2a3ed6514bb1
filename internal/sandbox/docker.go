package sandbox

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// docker starts a private Docker engine (docs/isolation.md#real-sandboxes:
// vfs storage, no iptables, no bridge) with its own socket, data root and
// exec root, so it never meets another daemon on the machine; imports the
// one-binary tarball; runs it with --network none; removes the image and
// stops the daemon it started, by its pid.
func docker() Sandbox {
	return Sandbox{
		Key: "docker", Label: "docker run (FROM scratch)",
		Tools: []string{"dockerd", "docker", "containerd", "runc"}, Root: true,
		run: runDocker,
	}
}

// dockerReady bounds the wait for a fresh engine to answer.
const dockerReady = 90 * time.Second

func runDocker(ctx context.Context, bin, dir string, log io.Writer) (doc []byte, err error) {
	tarball, out, image, err := imageInputs(bin, dir, "docker")
	if err != nil {
		return nil, err
	}
	err = withDocker(ctx, dir, log, func(cli func(args ...string) []string) error {
		if _, err := command(ctx, log, cli("import", tarball, image)...); err != nil {
			return err
		}
		defer command(context.WithoutCancel(ctx), log, cli("rmi", "--force", image)...)
		_, err := command(ctx, log, cli("run", "--rm", "--network", "none",
			"-v", out+":/out", image, "/"+ProbeName, "/out/env.json")...)
		return err
	})
	if err != nil {
		return nil, err
	}
	return readDoc(filepath.Join(out, "env.json"))
}

// withDocker starts the private engine, runs use with the CLI prefix that
// talks to it, and stops it.
func withDocker(ctx context.Context, dir string, log io.Writer, use func(cli func(args ...string) []string) error) (err error) {
	// A unix socket path has at most 107 bytes; containerd's socket lives
	// several levels under the exec root, so the engine's state goes in a
	// short directory of its own.
	state, err := os.MkdirTemp("", "apd-")
	if err != nil {
		return err
	}
	defer func() {
		if rmErr := os.RemoveAll(state); rmErr != nil {
			fmt.Fprintf(log, "removing %s: %v\n", state, rmErr)
		}
	}()
	sock := "unix://" + filepath.Join(state, "docker.sock")
	execRoot := filepath.Join(state, "exec")
	daemonLog, err := os.Create(filepath.Join(dir, "dockerd.log"))
	if err != nil {
		return err
	}
	defer daemonLog.Close()
	argv := []string{"dockerd", "--storage-driver", "vfs", "--iptables=false", "--ip6tables=false", "--bridge=none",
		"--host", sock, "--data-root", filepath.Join(state, "data"), "--exec-root", execRoot,
		"--pidfile", filepath.Join(state, "dockerd.pid")}
	fmt.Fprintf(log, "$ %s &\n", strings.Join(argv, " "))
	daemon := exec.Command(argv[0], argv[1:]...)
	daemon.Stdout, daemon.Stderr = daemonLog, daemonLog
	daemon.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := daemon.Start(); err != nil {
		return fmt.Errorf("%s: %w", strings.Join(argv, " "), err)
	}
	exited := make(chan error, 1)
	go func() { exited <- daemon.Wait() }()
	defer func() {
		stopDaemon(daemon.Process, exited, execRoot, log)
		if err != nil {
			err = fmt.Errorf("%w\n--- dockerd.log (tail) ---\n%s", err, tailFile(daemonLog.Name(), 3000))
		}
	}()

	cli := func(args ...string) []string { return append([]string{"docker", "--host", sock}, args...) }
	wait, cancel := context.WithTimeout(ctx, dockerReady)
	defer cancel()
	for {
		if _, err := command(wait, io.Discard, cli("info")...); err == nil {
			break
		}
		select {
		case e := <-exited:
			exited <- e
			return fmt.Errorf("dockerd exited before answering: %v", e)
		case <-wait.Done():
			return fmt.Errorf("%w within %s", errNoDaemon, dockerReady)
		case <-time.After(250 * time.Millisecond):
		}
	}
	return use(cli)
}

// stopDaemon sends SIGTERM to the dockerd this package started and waits;
// after 30 s it sends SIGKILL. A containerd that dockerd started and left
// behind (its pid file is in our exec root) is stopped the same way.
func stopDaemon(p *os.Process, exited chan error, execRoot string, log io.Writer) {
	fmt.Fprintf(log, "stopping dockerd (pid %d)\n", p.Pid)
	p.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		fmt.Fprintf(log, "dockerd (pid %d) ignored SIGTERM; killing it\n", p.Pid)
		p.Kill()
		<-exited
	}
	b, err := os.ReadFile(filepath.Join(execRoot, "containerd", "containerd.pid"))
	if err != nil {
		return
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 1 {
		return
	}
	if syscall.Kill(pid, 0) == nil {
		fmt.Fprintf(log, "stopping the containerd dockerd left (pid %d)\n", pid)
		syscall.Kill(pid, syscall.SIGTERM)
		for i := 0; i < 100 && syscall.Kill(pid, 0) == nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
	}
}

func tailFile(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	return string(tail(b, n))
}
