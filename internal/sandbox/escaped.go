package sandbox

import (
	"context"
	"errors"
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

// pollEvery is how often a case polls for an event (a file written, a
// process started); never a fixed sleep.
const pollEvery = 20 * time.Millisecond

// unshareEscaped is `unshare FLAG sh -c 'setsid -f aorta-probe OUT'`: the
// probe leaves the sandbox's process tree (setsid -f forks, the shell and
// unshare exit), so it is re-parented to PID 1 or a subreaper and no
// ancestor shows the boundary. The document is complete once OUT exists:
// the probe renames it into place.
func unshareEscaped(key, flag string) Sandbox {
	return Sandbox{
		Key: key, Label: "unshare " + flag + " sh -c 'setsid -f …'",
		Tools: []string{"unshare", "sh", "setsid"}, Root: true,
		wrap: func(string) []string { return []string{"unshare", flag} },
		run: func(ctx context.Context, bin, dir string, log io.Writer) ([]byte, error) {
			out := filepath.Join(dir, "env.json")
			script := `setsid -f "$0" "$1" </dev/null >/dev/null 2>&1`
			if _, err := command(ctx, log, "unshare", flag, "sh", "-c", script, bin, out); err != nil {
				return nil, err
			}
			if err := waitFor(ctx, func() bool { _, err := os.Stat(out); return err == nil }); err != nil {
				return nil, fmt.Errorf("the escaped probe wrote no %s: %w", out, err)
			}
			return readDoc(out)
		},
	}
}

// nsenterMount enters only the mount namespace of a running "container"
// (`unshare -pf --mount-proc sleep`, whose /proc is the procfs of its own
// pid namespace) and runs the probe there: `nsenter -t PID -m aorta-probe
// OUT`. That procfs does not list the probe.
func nsenterMount() Sandbox {
	return Sandbox{
		Key: "nsenter-m", Label: "nsenter -t CONTAINER -m",
		Tools: []string{"unshare", "nsenter", "sleep"}, Root: true,
		wrap: func(string) []string { return []string{"unshare", "-pf", "--mount-proc"} },
		run: func(ctx context.Context, bin, dir string, log io.Writer) ([]byte, error) {
			argv := []string{"unshare", "-pf", "--mount-proc", "sleep", "300"}
			fmt.Fprintf(log, "$ %s &\n", strings.Join(argv, " "))
			c := exec.Command(argv[0], argv[1:]...)
			c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := c.Start(); err != nil {
				return nil, fmt.Errorf("%s: %w", strings.Join(argv, " "), err)
			}
			defer func() {
				syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
				c.Wait()
			}()
			// The container's init is unshare's child once it runs sleep
			// (the procfs is mounted before the exec).
			var child int
			err := waitFor(ctx, func() bool {
				b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", c.Process.Pid, c.Process.Pid))
				if err != nil {
					return false
				}
				f := strings.Fields(string(b))
				if len(f) == 0 {
					return false
				}
				child, _ = strconv.Atoi(f[0])
				comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", child))
				return err == nil && strings.TrimSpace(string(comm)) == "sleep"
			})
			if err != nil {
				return nil, fmt.Errorf("the container (%s) never ran sleep: %w", strings.Join(argv, " "), err)
			}
			out := filepath.Join(dir, "env.json")
			if _, err := command(ctx, log, "nsenter", "-t", strconv.Itoa(child), "-m", bin, out); err != nil {
				return nil, err
			}
			return readDoc(out)
		},
	}
}

// prootCase is `proot aorta-probe OUT`: a ptrace-based fake root over the
// host's /, no namespaces, no privilege.
func prootCase() Sandbox {
	prefix := func(string) []string { return []string{"proot"} }
	return Sandbox{
		Key: "proot", Label: "proot",
		Tools: []string{"proot"},
		wrap:  prefix, run: wrapped(prefix),
	}
}

// nspawn runs the probe as PID 2 of a systemd-nspawn container whose root
// is a directory holding only the binary, an empty usr/ and
// etc/os-release (nspawn refuses a directory that does not look like an
// OS tree). --register=no and --keep-unit keep it off the system bus (CI
// machines run no systemd as PID 1, so there is none); -q drops the
// banner. nspawn's warning about removing its propagation directory is
// harmless.
func nspawn() Sandbox {
	return Sandbox{
		Key: "systemd-nspawn", Label: "systemd-nspawn -D DIR --as-pid2",
		Tools: []string{"systemd-nspawn"}, Root: true,
		run: inRoot([]string{"usr", "etc"}, func(root string) error {
			return os.WriteFile(filepath.Join(root, "etc", "os-release"), []byte("ID=aorta-sandbox\n"), 0o644)
		}, func(root string) []string {
			return NspawnArgv(root, "/"+ProbeName, "/out/env.json")
		}),
	}
}

// NspawnArgv is the systemd-nspawn invocation that works as root on a
// machine without a system bus (docs/isolation.md).
func NspawnArgv(root string, argv ...string) []string {
	return append([]string{"systemd-nspawn", "-D", root, "--register=no", "--keep-unit", "--as-pid2", "-q"}, argv...)
}

// waitFor polls cond every pollEvery until it holds or ctx ends.
func waitFor(ctx context.Context, cond func() bool) error {
	t := time.NewTicker(pollEvery)
	defer t.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			return errors.Join(errors.New("gave up waiting"), ctx.Err())
		case <-t.C:
		}
	}
	return nil
}
