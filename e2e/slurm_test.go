package e2e

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"aorta-probe/cli/capture"
	"aorta-probe/internal/testtree"
)

// TestSlurmCluster runs the static binary on a real Slurm cluster, the way
// docs/fleet.md tells users to: munged, one slurmctld and three
// `slurmd -N nodeN` on this host, each with its own port, all state,
// configuration, munge key and socket in a temporary directory. It checks
// that `srun -N3 --ntasks-per-node=1 aorta-probe --out-dir D` (no shell
// anywhere) writes D/node1.json..node3.json and that `diff --fleet D` finds
// no outlier; that node2 rerun with HSA_OVERRIDE_GFX_VERSION exported is
// the one named outlier; that deploy/slurm/probe-array.sbatch writes one
// document per array task; and that a step run with `srun --container` (runc,
// a bundle holding only the binary) is a different place from the bare
// step on the same node; and that deploy/slurm/task-prolog.sh, the
// cluster's TaskProlog, probes inside a step that asks for it, with the
// step's environment. Every daemon is stopped by its pid, on failure
// too, and a process left behind fails the test. It skips without root or
// the binaries (apt-get install slurm-wlm munge runc), and fails instead
// under AORTA_PROBE_REQUIRE_SANDBOXES=1. The cluster is the test's own
// (ports, directory, marker), so it runs in parallel with the package's
// other parallel tests; its steps run in order.
func TestSlurmCluster(t *testing.T) {
	t.Parallel()
	bin := e2eBinary(t)
	if os.Geteuid() != 0 {
		skipOrFail(t, "the Slurm cluster needs root (slurmd starts the tasks)")
	}
	for _, tool := range []string{"munged", "slurmctld", "slurmd", "srun", "sbatch", "sinfo", "runc"} {
		if _, err := lookTool(tool); err != nil {
			skipOrFail(t, fmt.Sprintf("the Slurm cluster needs %s (apt-get install slurm-wlm munge runc): %v", tool, err))
		}
	}
	// The daemons' Pdeathsig follows the thread that started them: keep
	// this goroutine on one thread, which then outlives them.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c := startSlurm(t)

	out := filepath.Join(c.dir, "env")
	os.Mkdir(out, 0o755)
	t.Run("srun -N3", func(t *testing.T) {
		c.srun(t, "-N3", "--ntasks-per-node=1", bin, "--no-python", "--out-dir", out)
		entries, _ := os.ReadDir(out)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if strings.Join(names, " ") != "node1.json node2.json node3.json" {
			t.Fatalf("%s holds %q, want node1.json node2.json node3.json", out, names)
		}
		for _, n := range names {
			b, _ := os.ReadFile(filepath.Join(out, n))
			checkDocument(t, string(b))
		}
		code, report, errs := runCmd(t, exec.Command(bin, "diff", "--fleet", out))
		if code != 0 || !strings.HasPrefix(report, "fleet: 3 documents") {
			t.Errorf("diff --fleet: exit %d, want 0\n%s%s", code, report, errs)
		}
	})

	t.Run("one node with a knob", func(t *testing.T) {
		c.srun(t, "-N1", "-w", "node2", "--export=ALL,HSA_OVERRIDE_GFX_VERSION=9.4.2", bin, "--no-python", "--out-dir", out)
		b, _ := os.ReadFile(filepath.Join(out, "node2.json"))
		if v := field(checkDocument(t, string(b)), "env_vars.HSA_OVERRIDE_GFX_VERSION"); v != "9.4.2" {
			t.Errorf("node2.json: env_vars.HSA_OVERRIDE_GFX_VERSION %v, want 9.4.2", v)
		}
		code, report, errs := runCmd(t, exec.Command(bin, "diff", "--fleet", out))
		_, outliers, _ := strings.Cut(report, "\nOutliers")
		if code != 1 || !strings.Contains(outliers, "\n  "+filepath.Join(out, "node2.json")+": 1 field\n    env_vars.HSA_OVERRIDE_GFX_VERSION ") ||
			strings.Contains(outliers, "node1.json") || strings.Contains(outliers, "node3.json") {
			t.Errorf("diff --fleet: exit %d, want 1 with node2.json the one outlier\n%s%s", code, report, errs)
		}
	})

	t.Run("srun --container", func(t *testing.T) {
		bundle, inner := c.bundle(t, bin)
		c.srun(t, "-N1", "-w", "node1", "--container="+bundle, "/aorta-probe", "--no-python", "--out-dir", "/out")
		// Slurm 22.05 gives a container step no SLURMD_NODENAME, and the
		// bundle shares the node's UTS namespace (docs/fleet.md): the file
		// is named after the host name, or node1 where Slurm passes it.
		host, _ := os.Hostname()
		entries, _ := os.ReadDir(inner)
		if len(entries) != 1 || (entries[0].Name() != "node1.json" && entries[0].Name() != capture.NodeFileName(host)+".json") {
			t.Fatalf("the container step wrote %v, want node1.json or %s.json", entries, capture.NodeFileName(host))
		}
		t.Logf("the container step wrote %s", entries[0].Name())
		code, report, errs := runCmd(t, exec.Command(bin, "diff", filepath.Join(out, "node1.json"), filepath.Join(inner, entries[0].Name())))
		if code != 1 || !strings.HasPrefix(report, "different places") {
			t.Errorf("diff bare vs container: exit %d, want 1 and \"different places\"\n%s%s", code, report, errs)
		}
	})

	t.Run("sbatch array", func(t *testing.T) {
		// deploy/slurm/probe-array.sbatch: one document per array task,
		// each in DIR/array-JOBID/TASKID/, named after its node.
		dir := filepath.Join(c.dir, "array-env")
		os.Mkdir(dir, 0o755)
		script, err := filepath.Abs("deploy/slurm/probe-array.sbatch")
		if err != nil {
			t.Fatal(err)
		}
		// Not sbatch --wait, which looks first after 2 s and then after
		// 8 s more: the job is polled until its tasks are done.
		id := c.run(t, "sbatch", "--parsable", "--array=1-3", "--export=ALL,AORTA_PROBE="+bin+",AORTA_PROBE_PYTHON=/nonexistent/python3", script, dir)
		c.waitJob(t, strings.TrimSpace(id), 3)
		docs, _ := filepath.Glob(filepath.Join(dir, "array-*", "*", "*.json"))
		if len(docs) != 3 {
			t.Fatalf("the array wrote %q, want 3 documents", docs)
		}
		for _, d := range docs {
			task := filepath.Base(filepath.Dir(d))
			if !slices.Contains([]string{"1", "2", "3"}, task) || !slices.Contains([]string{"node1.json", "node2.json", "node3.json"}, filepath.Base(d)) {
				t.Errorf("unexpected %s", d)
			}
			b, _ := os.ReadFile(d)
			checkDocument(t, string(b))
		}
	})

	t.Run("task prolog", func(t *testing.T) {
		// deploy/slurm/task-prolog.sh probes in the step's own place and
		// environment when the step exports AORTA_PROBE_OUT_DIR.
		prolog := filepath.Join(c.dir, "prolog-env")
		os.Mkdir(prolog, 0o755)
		c.srun(t, "-N3", "--ntasks-per-node=1",
			"--export=ALL,AORTA_PROBE_OUT_DIR="+prolog+",AORTA_PROBE="+bin+",AORTA_PROBE_PYTHON=/nonexistent/python3,HSA_OVERRIDE_GFX_VERSION=9.4.2",
			"/bin/true")
		steps, _ := filepath.Glob(filepath.Join(prolog, "*.0"))
		if len(steps) != 1 {
			t.Fatalf("the prolog wrote %v, want one JOBID.0 directory", steps)
		}
		for _, n := range []string{"node1", "node2", "node3"} {
			b, err := os.ReadFile(filepath.Join(steps[0], n+".json"))
			if err != nil {
				t.Fatal(err)
			}
			if v := field(checkDocument(t, string(b)), "env_vars.HSA_OVERRIDE_GFX_VERSION"); v != "9.4.2" {
				t.Errorf("%s: env_vars.HSA_OVERRIDE_GFX_VERSION %v, want the step's 9.4.2", n, v)
			}
		}
		code, report, errs := runCmd(t, exec.Command(bin, "diff", filepath.Join(out, "node1.json"), filepath.Join(steps[0], "node1.json")))
		if code != 1 || !strings.HasPrefix(report, "same place, different software") {
			t.Errorf("diff bare step vs prolog: exit %d, want 1 and \"same place, different software\"\n%s%s", code, report, errs)
		}
	})
}

// slurmCluster is a running test cluster.
type slurmCluster struct {
	dir, conf, runcRoot string
	env                 []string
	daemons             []*exec.Cmd
}

// slurmMarker is set in the environment of every daemon and srun the test
// starts; whatever still carries it after the teardown was left behind.
const slurmMarker = "AORTA_PROBE_SLURM_TEST"

func lookTool(name string) (string, error) {
	for _, d := range []string{"/usr/sbin", "/usr/bin", "/sbin", "/bin"} {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return exec.LookPath(name)
}

// freePorts returns n TCP ports free on this host right now.
func freePorts(t *testing.T, n int) []int {
	var ports []int
	var ls []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

// startSlurm brings up munged, slurmctld and slurmd node1..3 and waits
// until the three nodes are idle. The teardown is registered first.
func startSlurm(t *testing.T) *slurmCluster {
	dir := t.TempDir()
	c := &slurmCluster{dir: dir, conf: filepath.Join(dir, "etc", "slurm.conf"), runcRoot: filepath.Join(dir, "runc")}
	t.Cleanup(func() { c.stop(t) })
	for _, d := range []string{"etc", "state", "log", "munge", "runc", "spool/node1", "spool/node2", "spool/node3"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	c.env = []string{
		"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + dir, "LC_ALL=C",
		"SLURM_CONF=" + c.conf, slurmMarker + "=" + dir,
	}
	key := make([]byte, 1024)
	rand.Read(key)
	if err := os.WriteFile(filepath.Join(dir, "munge", "munge.key"), key, 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "munge", "munge.sock")
	c.start(t, "munged", "munged", "-F", "--force", "--socket="+sock,
		"--key-file="+filepath.Join(dir, "munge", "munge.key"), "--pid-file="+filepath.Join(dir, "munge", "munged.pid"),
		"--log-file="+filepath.Join(dir, "log", "munged.log"), "--seed-file="+filepath.Join(dir, "munge", "seed"))
	c.waitFor(t, "munged's socket", func() bool { _, err := os.Stat(sock); return err == nil })

	p := freePorts(t, 4)
	prolog, err := filepath.Abs("deploy/slurm/task-prolog.sh")
	if err != nil {
		t.Fatal(err)
	}
	conf := fmt.Sprintf(`ClusterName=aortaprobe
SlurmctldHost=localhost
SlurmctldPort=%d
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=%[2]s/munge/munge.sock
CredType=cred/munge
StateSaveLocation=%[2]s/state
SlurmdSpoolDir=%[2]s/spool/%%n
SlurmctldPidFile=%[2]s/slurmctld.pid
SlurmdPidFile=%[2]s/slurmd-%%n.pid
SlurmctldLogFile=%[2]s/log/slurmctld.log
SlurmdLogFile=%[2]s/log/slurmd-%%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
TaskProlog=%[6]s
MpiDefault=none
MailProg=/bin/true
SwitchType=switch/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=1
SelectType=select/linear
ReturnToService=2
NodeName=node1 NodeHostname=localhost Port=%[3]d CPUs=1 State=UNKNOWN
NodeName=node2 NodeHostname=localhost Port=%[4]d CPUs=1 State=UNKNOWN
NodeName=node3 NodeHostname=localhost Port=%[5]d CPUs=1 State=UNKNOWN
PartitionName=debug Nodes=node[1-3] Default=YES MaxTime=INFINITE State=UP
`, p[0], dir, p[1], p[2], p[3], prolog)
	// oci.conf sits beside slurm.conf: srun --container runs runc with
	// its state under the test's own root.
	oci := fmt.Sprintf(`RunTimeQuery="runc --root=%[1]s state %%n.%%u.%%j.%%s.%%t"
RunTimeKill="runc --root=%[1]s kill -a %%n.%%u.%%j.%%s.%%t"
RunTimeDelete="runc --root=%[1]s delete --force %%n.%%u.%%j.%%s.%%t"
RunTimeRun="runc --root=%[1]s run %%n.%%u.%%j.%%s.%%t -b %%b"
`, c.runcRoot)
	for name, text := range map[string]string{"slurm.conf": conf, "oci.conf": oci} {
		if err := os.WriteFile(filepath.Join(dir, "etc", name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c.start(t, "slurmctld", "slurmctld", "-D", "-i", "-f", c.conf)
	for _, n := range []string{"node1", "node2", "node3"} {
		c.start(t, "slurmd-"+n, "slurmd", "-D", "-N", n, "-f", c.conf)
	}
	c.waitFor(t, "three idle nodes", func() bool {
		cmd := exec.Command("sinfo", "--noheader", "--Node", "--format=%N %t")
		cmd.Env, cmd.Dir = c.env, dir
		b, _ := cmd.Output()
		return strings.Count(string(b), " idle\n") == 3
	})
	return c
}

// start runs a daemon in the foreground, its own process group, its
// output in log/NAME.out, killed when the test process dies.
func (c *slurmCluster) start(t *testing.T, name, tool string, args ...string) {
	t.Helper()
	path, err := lookTool(tool)
	if err != nil {
		t.Fatal(err)
	}
	logf, err := os.Create(filepath.Join(c.dir, "log", name+".out"))
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd := exec.Command(path, args...)
	cmd.Env, cmd.Dir, cmd.Stdout, cmd.Stderr = c.env, c.dir, logf, logf
	// Pdeathsig: a test process killed outright (a -timeout panic) takes
	// its daemons with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	c.daemons = append(c.daemons, cmd)
}

// waitFor polls ready for up to 30 s.
func (c *slurmCluster) waitFor(t *testing.T, what string, ready func() bool) {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		if ready() {
			return
		}
	}
	c.logs(t)
	t.Fatalf("no %s after 30 s", what)
}

// srun runs one step (at most 2 minutes of the cluster's time).
func (c *slurmCluster) srun(t *testing.T, args ...string) {
	t.Helper()
	c.run(t, "srun", append([]string{"--time=2"}, args...)...)
}

// run runs a Slurm client and fails the test unless it exits 0 within
// 60 s; it returns the client's stdout.
func (c *slurmCluster) run(t *testing.T, tool string, args ...string) string {
	t.Helper()
	path, err := lookTool(tool)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	var stdout, stderr bytes.Buffer
	cmd.Env, cmd.Dir, cmd.Stdout, cmd.Stderr = c.env, c.dir, &stdout, &stderr
	if err := cmd.Run(); err != nil {
		c.logs(t)
		t.Fatalf("%s %q: %v\n%s%s", tool, args, err, stdout.Bytes(), stderr.Bytes())
	}
	return stdout.String()
}

// waitJob polls the batch job id (scontrol, every 200 ms, for at most
// 60 s) until it has n records (an array's tasks), each COMPLETED with
// exit code 0:0: what `sbatch --wait` exiting 0 says, without its sleeps
// of 2 s and more. A task in any other finished state fails the test.
func (c *slurmCluster) waitJob(t *testing.T, id string, n int) {
	t.Helper()
	var last string
	for end := time.Now().Add(60 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		cmd := exec.Command("scontrol", "--oneliner", "show", "job", id)
		cmd.Env, cmd.Dir = c.env, c.dir
		b, err := cmd.Output()
		if err != nil {
			last = err.Error()
			continue
		}
		last = string(b)
		done := 0
		for _, rec := range strings.Split(strings.TrimSpace(last), "\n") {
			state, exit := recordField(rec, "JobState"), recordField(rec, "ExitCode")
			switch state {
			case "PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "SUSPENDED", "REQUEUED", "RESIZING":
			case "COMPLETED":
				if exit != "0:0" {
					c.logs(t)
					t.Fatalf("job %s: a task completed with exit code %s:\n%s", id, exit, last)
				}
				done++
			default:
				c.logs(t)
				t.Fatalf("job %s: a task ended %s (exit code %s):\n%s", id, state, exit, last)
			}
		}
		if done == n {
			return
		}
	}
	c.logs(t)
	t.Fatalf("job %s: not %d completed tasks after 60 s; last scontrol answer:\n%s", id, n, last)
}

// recordField is the value of KEY=VALUE in a one-line scontrol record.
func recordField(rec, key string) string {
	for _, f := range strings.Fields(rec) {
		if v, ok := strings.CutPrefix(f, key+"="); ok {
			return v
		}
	}
	return ""
}

// bundle writes an OCI bundle whose root holds only the binary, as
// /aorta-probe, with inner bound at /out; from `runc spec`, it shares the
// node's UTS namespace (the container sees the node's host name) and
// runs without a terminal.
func (c *slurmCluster) bundle(t *testing.T, bin string) (bundle, inner string) {
	t.Helper()
	bundle, inner = filepath.Join(c.dir, "bundle"), filepath.Join(c.dir, "container-env")
	for _, d := range []string{filepath.Join(bundle, "rootfs"), inner} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := testtree.WriteFile(filepath.Join(bundle, "rootfs", "aorta-probe"), b, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("runc", "spec", "--bundle", bundle).CombinedOutput(); err != nil {
		t.Fatalf("runc spec: %v\n%s", err, out)
	}
	var spec map[string]any
	path := filepath.Join(bundle, "config.json")
	if b, err = os.ReadFile(path); err == nil {
		err = json.Unmarshal(b, &spec)
	}
	if err != nil {
		t.Fatal(err)
	}
	spec["process"].(map[string]any)["terminal"] = false
	spec["root"] = map[string]any{"path": "rootfs", "readonly": true}
	delete(spec, "hostname")
	linux := spec["linux"].(map[string]any)
	var ns []any
	for _, n := range linux["namespaces"].([]any) {
		if n.(map[string]any)["type"] != "uts" {
			ns = append(ns, n)
		}
	}
	linux["namespaces"] = ns
	spec["mounts"] = append(spec["mounts"].([]any), map[string]any{
		"destination": "/out", "type": "bind", "source": inner, "options": []string{"rbind", "rw"},
	})
	if b, err = json.Marshal(spec); err == nil {
		err = os.WriteFile(path, b, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	return bundle, inner
}

// logs puts the tail of every daemon log into the test log.
func (c *slurmCluster) logs(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(c.dir, "log", "*"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		t.Logf("%s:\n%s", filepath.Base(f), lastChars(string(b), 1500))
	}
}

func lastChars(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// stop ends every daemon by its pid (SIGTERM, then SIGKILL after 10 s),
// removes containers runc still knows, then fails the test for every
// process that still carries the marker (a slurmstepd, a task, a
// container), killing it.
func (c *slurmCluster) stop(t *testing.T) {
	if t.Failed() {
		c.logs(t)
	}
	stopDaemons(t, c.daemons)
	if b, err := exec.Command("runc", "--root", c.runcRoot, "list", "--quiet").Output(); err == nil {
		for _, id := range strings.Fields(string(b)) {
			t.Errorf("container %s left behind: deleted", id)
			exec.Command("runc", "--root", c.runcRoot, "delete", "--force", id).Run()
		}
	}
	// A step's slurmstepd may still be finishing when its srun returns.
	var left []int
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		left = marked(slurmMarker + "=" + c.dir)
		if len(left) == 0 || time.Now().After(end) {
			break
		}
	}
	for _, pid := range left {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		t.Errorf("process %d (%s) left behind: killed", pid, strings.ReplaceAll(string(b), "\x00", " "))
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// marked lists the processes whose environment holds the entry env.
func marked(env string) []int {
	var pids []int
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		f, err := os.Open(filepath.Join("/proc", p.Name(), "environ"))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
			if i := strings.IndexByte(string(data), 0); i >= 0 {
				return i + 1, data[:i], nil
			}
			if atEOF && len(data) > 0 {
				return len(data), data, nil
			}
			return 0, nil, nil
		})
		for sc.Scan() {
			if sc.Text() == env {
				pids = append(pids, pid)
				break
			}
		}
		f.Close()
	}
	return pids
}
