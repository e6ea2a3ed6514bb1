// Package sandbox runs a built aorta-probe binary inside real sandboxes —
// unshare, bubblewrap, a bare chroot, a FROM-scratch podman container and a
// Docker engine — and summarises the env.json each run writes. The root
// package's sandbox tests and scripts/sandbox-table.sh share it, so the
// table in the docs and the test assertions describe the same runs.
//
// Nothing here is part of the probe: it starts processes with os/exec
// directly, needs root for most cases, and is only built by tests and the
// table command.
package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// Sandbox is one way of running the probe.
type Sandbox struct {
	// Key names the case in test names and logs ("unshare-m").
	Key string
	// Label is the command line shape, for tables ("unshare -m").
	Label string
	// Tools must be on $PATH.
	Tools []string
	// Root says the case needs euid 0.
	Root bool
	// wrap, when set, is the argv prefix that puts a command in the
	// sandbox; Unavailable runs it around `true` first, so a kernel or
	// seccomp policy that refuses the namespace reads as unavailable, not
	// as a probe failure.
	wrap func(out string) []string
	// run does the whole case and returns the env.json bytes.
	run func(ctx context.Context, bin, dir string, log io.Writer) ([]byte, error)
}

// ProbeName is the binary's name inside images and chroots.
const ProbeName = "aorta-probe"

// K8sServiceHost is the value the host-k8s-env case exports.
const K8sServiceHost = "10.96.0.1"

// All returns every case, host first: the others compare with it.
func All() []Sandbox {
	return []Sandbox{
		{Key: "host", Label: "host (no sandbox)", run: wrapped(nil)},
		// The host again, with a variable that only corroborates.
		{
			Key: "host-k8s-env", Label: "host with KUBERNETES_SERVICE_HOST set",
			Tools: []string{"env"},
			run: wrapped(func(string) []string {
				return []string{"env", "KUBERNETES_SERVICE_HOST=" + K8sServiceHost}
			}),
		},
		unshare("unshare-m", true, "-m"),
		unshareShell(),
		unshare("unshare-pf-mount-proc", true, "-pf", "--mount-proc"),
		// A user namespace needs no privilege where the kernel allows
		// unprivileged ones; the preflight finds out.
		unshare("unshare-U", false, "-U"),
		unshare("unshare-Ur", false, "-Ur"),
		unshare("unshare-n", true, "-n"),
		unshareEscaped("unshare-m-setsid", "-m"),
		unshareEscaped("unshare-n-setsid", "-n"),
		nsenterMount(),
		prootCase(),
		nspawn(),
		bubblewrap(),
		chroot(),
		chrootProc(),
		podman("podman", "podman run (FROM scratch)"),
		// Every namespace but mnt is the host's: the marker is genuine,
		// the root mount (overlay) says so.
		podman("podman-host-ns", "podman run --pid=host --network=host --ipc=host --uts=host --cgroupns=host",
			"--pid=host", "--network=host", "--ipc=host", "--uts=host", "--cgroupns=host"),
		docker(),
	}
}

// Lookup returns the case named key.
func Lookup(key string) (Sandbox, bool) {
	for _, sb := range All() {
		if sb.Key == key {
			return sb, true
		}
	}
	return Sandbox{}, false
}

// Unavailable says why the case cannot run here ("" when it can): a
// missing tool, no root, or a sandbox that refuses to start.
func (sb Sandbox) Unavailable(ctx context.Context) string {
	if why := sb.missing(os.Geteuid(), exec.LookPath); why != "" {
		return why
	}
	if sb.wrap != nil {
		tru, err := exec.LookPath("true")
		if err != nil {
			return fmt.Sprintf("%s: true not found on $PATH for the preflight", sb.Label)
		}
		dir, err := os.MkdirTemp("", "aorta-sandbox-preflight-")
		if err != nil {
			return fmt.Sprintf("%s: %v", sb.Label, err)
		}
		defer os.RemoveAll(dir)
		argv := append(sb.wrap(dir), tru)
		if _, err := command(ctx, io.Discard, argv...); err != nil {
			return fmt.Sprintf("%s: the sandbox does not start here: %v", sb.Label, err)
		}
	}
	if strings.HasPrefix(sb.Key, "podman") {
		if _, err := command(ctx, io.Discard, podmanArgv("info")...); err != nil {
			return fmt.Sprintf("%s: podman does not work here: %v", sb.Label, err)
		}
	}
	return ""
}

// missing is the part of Unavailable that needs no command: root first,
// since the tools of root-only cases (chroot, dockerd) live in /usr/sbin,
// which is not on an ordinary user's $PATH, and "not found" would hide
// the real reason.
func (sb Sandbox) missing(euid int, lookPath func(string) (string, error)) string {
	if sb.Root && euid != 0 {
		return fmt.Sprintf("%s: needs root (euid is %d)", sb.Label, euid)
	}
	for _, tool := range sb.Tools {
		if _, err := lookPath(tool); err != nil {
			return fmt.Sprintf("%s: %s not found on $PATH", sb.Label, tool)
		}
	}
	return ""
}

// Run runs the probe binary bin in the sandbox, with dir as scratch space
// (it must exist and be empty), and returns the env.json it wrote. log
// receives the commands and their output.
func (sb Sandbox) Run(ctx context.Context, bin, dir string, log io.Writer) ([]byte, error) {
	return sb.run(ctx, bin, dir, log)
}

// wrapped is a case that runs prefix + [bin, dir/env.json].
func wrapped(prefix func(out string) []string) func(context.Context, string, string, io.Writer) ([]byte, error) {
	return func(ctx context.Context, bin, dir string, log io.Writer) ([]byte, error) {
		out := filepath.Join(dir, "env.json")
		var argv []string
		if prefix != nil {
			argv = prefix(dir)
		}
		argv = append(argv, bin, out)
		if _, err := command(ctx, log, argv...); err != nil {
			return nil, err
		}
		return readDoc(out)
	}
}

func unshare(key string, root bool, flags ...string) Sandbox {
	prefix := func(string) []string { return append([]string{"unshare"}, flags...) }
	return Sandbox{
		Key: key, Label: "unshare " + strings.Join(flags, " "),
		Tools: []string{"unshare"}, Root: root,
		wrap: prefix, run: wrapped(prefix),
	}
}

// unshareShell is `unshare -m sh -c 'aorta-probe OUT; true'`: the probe's
// parent is a shell inside the new mount namespace, the way launchers that
// enter a namespace and then run a script start it.
func unshareShell() Sandbox {
	return Sandbox{
		Key: "unshare-m-shell", Label: "unshare -m sh -c '…; true'",
		Tools: []string{"unshare", "sh"}, Root: true,
		wrap: func(string) []string { return []string{"unshare", "-m"} },
		run: func(ctx context.Context, bin, dir string, log io.Writer) ([]byte, error) {
			out := filepath.Join(dir, "env.json")
			// The trailing `; true` keeps the shell from exec'ing the probe.
			script := `"$0" "$1"; rc=$?; true; exit $rc`
			if _, err := command(ctx, log, "unshare", "-m", "sh", "-c", script, bin, out); err != nil {
				return nil, err
			}
			return readDoc(out)
		},
	}
}

// bubblewrap is `bwrap --unshare-all` over a read-only view of /, with a
// fresh /proc and /dev and the output directory writable.
func bubblewrap() Sandbox {
	prefix := func(out string) []string {
		return []string{"bwrap", "--unshare-all", "--die-with-parent",
			"--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--bind", out, out}
	}
	return Sandbox{
		Key: "bwrap", Label: "bwrap --unshare-all",
		// bwrap makes its own user namespace when not root.
		Tools: []string{"bwrap"},
		wrap:  prefix, run: wrapped(prefix),
	}
}

// chroot runs the probe in a directory that holds only the binary and an
// empty out/: no /proc, no /sys, no markers.
func chroot() Sandbox {
	return Sandbox{
		Key: "chroot", Label: "chroot (binary only)",
		Tools: []string{"chroot"}, Root: true,
		run: inRoot(nil, nil, func(root string) []string {
			return []string{"chroot", root, "/" + ProbeName, "/out/env.json"}
		}),
	}
}

// chrootProc is a chroot into a directory holding the binary and a
// mounted /proc — what most chroot-based sandboxes look like. The proc
// mount is made inside `unshare -m`, so it disappears with the namespace.
func chrootProc() Sandbox {
	return Sandbox{
		Key: "chroot-proc", Label: "unshare -m + chroot with /proc",
		Tools: []string{"unshare", "sh", "mount", "chroot"}, Root: true,
		wrap: func(string) []string { return []string{"unshare", "-m"} },
		run: inRoot([]string{"proc"}, nil, func(root string) []string {
			script := `mount -t proc proc "$1/proc" && exec chroot "$1" /` + ProbeName + ` /out/env.json`
			return []string{"unshare", "-m", "sh", "-c", script, "sh", root}
		}),
	}
}

// podmanArgv is the podman invocation prefix of
// docs/isolation.md#real-sandboxes.
func podmanArgv(args ...string) []string {
	return append([]string{"podman", "--runtime", "runc", "--cgroup-manager", "cgroupfs"}, args...)
}

// podman imports a tarball holding only the binary as an image and runs it
// exactly as docs/isolation.md#real-sandboxes says; the image is removed
// afterwards.
func podman(key, label string, extra ...string) Sandbox {
	return Sandbox{
		Key: key, Label: label,
		Tools: []string{"podman", "runc"}, Root: true,
		run: func(ctx context.Context, bin, dir string, log io.Writer) ([]byte, error) {
			out, err := podmanRun(ctx, bin, dir, log, extra, "/out/env.json")
			if err != nil {
				return nil, err
			}
			return readDoc(filepath.Join(out, "env.json"))
		},
	}
}

// podmanRun runs the binary with probeArgs in a FROM-scratch podman
// container (podman run flags extra), its /out bound to the directory it
// returns.
func podmanRun(ctx context.Context, bin, dir string, log io.Writer, extra []string, probeArgs ...string) (out string, err error) {
	tarball, out, image, err := imageInputs(bin, dir, "podman")
	if err != nil {
		return "", err
	}
	if _, err := command(ctx, log, podmanArgv("import", tarball, image)...); err != nil {
		return "", err
	}
	defer command(context.WithoutCancel(ctx), log, podmanArgv("rmi", "--force", image)...)
	args := append([]string{"run", "--rm", "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=4096:4096"}, extra...)
	args = append(args, "-v", out+":/out", image, "/"+ProbeName)
	if _, err := command(ctx, log, podmanArgv(append(args, probeArgs...)...)...); err != nil {
		return "", err
	}
	return out, nil
}

// imageInputs writes dir/image.tar holding only the binary, makes the
// output directory, and picks a unique image name.
func imageInputs(bin, dir, engine string) (tarball, out, image string, err error) {
	tarball, out = filepath.Join(dir, "image.tar"), filepath.Join(dir, "out")
	if err := os.MkdirAll(out, 0o777); err != nil {
		return "", "", "", err
	}
	if err := writeTar(tarball, bin, ProbeName); err != nil {
		return "", "", "", err
	}
	image = fmt.Sprintf("localhost/aorta-probe-sandbox-%s:%d-%d-%d", engine, os.Getpid(), time.Now().UnixNano(), images.Add(1))
	return tarball, out, image, nil
}

// images counts the image names imageInputs picked: cases running in
// parallel in one process never share one.
var images atomic.Int64

// readDoc reads the env.json a run wrote.
func readDoc(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("the probe wrote no document: %w", err)
	}
	return b, nil
}

// command runs argv with stdin from /dev/null, logs it and its output, and
// returns its stdout. A failure names the argv, the exit status and the
// last of stderr.
func command(ctx context.Context, log io.Writer, argv ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	fmt.Fprintf(log, "$ %s\n", strings.Join(argv, " "))
	err := cmd.Run()
	if stdout.Len() > 0 {
		fmt.Fprintf(log, "%s", tail(stdout.Bytes(), 2000))
	}
	if stderr.Len() > 0 {
		fmt.Fprintf(log, "%s", tail(stderr.Bytes(), 4000))
	}
	if err != nil {
		msg := strings.TrimSpace(string(tail(stderr.Bytes(), 600)))
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%v)", err, ctx.Err())
		}
		return stdout.Bytes(), fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, msg)
	}
	return stdout.Bytes(), nil
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// inRoot is the run of a case that puts the binary in a root of its own:
// binaryRoot with out/ and dirs, setup (when not nil) adding to it, then
// argv(root) run, and the document read from the root's out/env.json.
func inRoot(dirs []string, setup func(root string) error, argv func(root string) []string) func(context.Context, string, string, io.Writer) ([]byte, error) {
	return func(ctx context.Context, bin, dir string, log io.Writer) ([]byte, error) {
		root, err := binaryRoot(bin, dir, append([]string{"out"}, dirs...)...)
		if err != nil {
			return nil, err
		}
		if setup != nil {
			if err := setup(root); err != nil {
				return nil, err
			}
		}
		if _, err := command(ctx, log, argv(root)...); err != nil {
			return nil, err
		}
		return readDoc(filepath.Join(root, "out", "env.json"))
	}
}

// binaryRoot makes dir/root holding the binary as /ProbeName and the
// empty directories dirs, for the cases that chroot into it.
func binaryRoot(bin, dir string, dirs ...string) (string, error) {
	root := filepath.Join(dir, "root")
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			return "", err
		}
	}
	return root, copyFile(bin, filepath.Join(root, ProbeName), 0o755)
}

func copyFile(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s to %s: %w", src, dst, err)
	}
	return out.Close()
}

// errNoDaemon is returned when dockerd never answered.
var errNoDaemon = errors.New("dockerd did not answer docker info")
