package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"aorta-probe/internal/pyjson"
	"aorta-probe/internal/testdoc"
	"aorta-probe/schema"
)

// TestPromtool runs Prometheus's own checker on what aorta-probe metrics
// writes for every golden scenario document (promtool check metrics: the
// text format parses, and its lint finds nothing: HELP, TYPE, names), and
// the rules of deploy/prometheus/ through promtool check rules and their
// unit tests (promtool test rules). It skips without promtool (apt-get
// install prometheus), and fails instead under
// AORTA_PROBE_REQUIRE_SANDBOXES=1.
func TestPromtool(t *testing.T) {
	t.Parallel()
	bin := e2eBinary(t)
	promtool, err := lookTool("promtool")
	if err != nil {
		skipOrFail(t, fmt.Sprintf("promtool is missing (apt-get install prometheus): %v", err))
	}
	goldens, _ := filepath.Glob("testdata/golden/*.json")
	if len(goldens) == 0 {
		t.Fatal("no golden documents")
	}
	for _, g := range goldens {
		t.Run(filepath.Base(g), func(t *testing.T) {
			code, text, errs := runCmd(t, exec.Command(bin, "metrics", g))
			if code != 0 || !strings.Contains(text, "\naorta_env_info{") {
				t.Fatalf("aorta-probe metrics %s: exit %d\n%s%s", g, code, text, errs)
			}
			check := exec.Command(promtool, "check", "metrics")
			check.Stdin = strings.NewReader(text)
			if out, err := check.CombinedOutput(); err != nil || len(out) > 0 {
				t.Errorf("promtool check metrics: %v\n%s\non:\n%s", err, out, text)
			}
		})
	}
	t.Run("rules", func(t *testing.T) {
		for _, args := range [][]string{{"check", "rules", "aorta-rules.yml"}, {"test", "rules", "aorta-rules.test.yml"}} {
			cmd := exec.Command(promtool, args...)
			cmd.Dir = "deploy/prometheus"
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "SUCCESS") {
				t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
			}
		}
	})
}

// TestPrometheusFleet is the Prometheus path of docs/fleet.md with the
// real components: three node_exporters on loopback ports, each with
// --collector.textfile.directory holding the .prom file aorta-probe
// metrics wrote from one node's document (node c on another ROCm), and a
// Prometheus server on loopback scraping them with the rules of
// deploy/prometheus/ loaded, its storage in a temporary directory. It
// queries Prometheus's HTTP API until the three aorta_env_info series are
// there, aorta:rocm_variants:count is 2 and the alerts fire: two ROCm
// variants, node c's knobs (it also sets HSA_XNACK) off the fleet's, node
// b's GPU link at x8 of x16 (a probe_provenance.gpus block). Every process it started is stopped by its
// pid. It skips without the binaries (apt-get install prometheus
// prometheus-node-exporter), and fails instead under
// AORTA_PROBE_REQUIRE_SANDBOXES=1.
func TestPrometheusFleet(t *testing.T) {
	t.Parallel()
	bin := e2eBinary(t)
	tools := map[string]string{}
	for _, tool := range []string{"prometheus", "prometheus-node-exporter"} {
		p, err := lookTool(tool)
		if err != nil {
			skipOrFail(t, fmt.Sprintf("the Prometheus fleet needs %s (apt-get install prometheus prometheus-node-exporter): %v", tool, err))
		}
		tools[tool] = p
	}
	rules, err := filepath.Abs("deploy/prometheus/aorta-rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	// Pdeathsig follows the thread that started the daemons: keep this
	// goroutine on one thread, which then outlives them.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	dir := t.TempDir()
	docs := map[string]testdoc.Object{
		"a": testdoc.Golden(t, "mi350-host.json"),
		"b": testdoc.Edited(t, "mi350-host.json", testdoc.Set("probe_provenance.gpus", degradedGPU())),
		"c": testdoc.Edited(t, "mi350-host.json", testdoc.Set("rocm.version", "7.3.0"), testdoc.Set("rocm.version_dev", "7.3.0-12"),
			testdoc.Set("env_vars.HSA_XNACK", "1")),
	}
	ports := freePorts(t, 4)
	d := &daemons{dir: dir}
	t.Cleanup(func() { d.stop(t) })
	var targets []string
	nodes := map[string]string{}
	for i, node := range []string{"a", "b", "c"} {
		textdir := filepath.Join(dir, "textfile-"+node)
		os.MkdirAll(textdir, 0o755)
		doc := filepath.Join(dir, node+".json")
		if err := os.WriteFile(doc, pyjson.Encode(docs[node]), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, out, errs := runCmd(t, exec.Command(bin, "metrics", doc, filepath.Join(textdir, "aorta.prom"))); code != 0 {
			t.Fatalf("aorta-probe metrics %s: exit %d\n%s%s", doc, code, out, errs)
		}
		addr := fmt.Sprintf("127.0.0.1:%d", ports[i])
		targets = append(targets, fmt.Sprintf("%q", addr))
		nodes[node] = addr
		d.start(t, "node-exporter-"+node, tools["prometheus-node-exporter"], "--web.listen-address="+addr,
			"--collector.disable-defaults", "--collector.textfile", "--collector.textfile.directory="+textdir)
	}
	config := fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - %q
scrape_configs:
  - job_name: aorta
    static_configs:
      - targets: [%s]
`, rules, strings.Join(targets, ", "))
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	api := fmt.Sprintf("http://127.0.0.1:%d", ports[3])
	d.start(t, "prometheus", tools["prometheus"], "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "tsdb"), fmt.Sprintf("--web.listen-address=127.0.0.1:%d", ports[3]))

	var envInfo, variants, alerts string
	ready := func() bool {
		var n int
		envInfo, n = query(api, "aorta_env_info")
		if n != 3 {
			return false
		}
		variants, n = query(api, "aorta:rocm_variants:count")
		if n != 1 || !strings.Contains(variants, `"2"]`) {
			return false
		}
		alerts = httpGet(api + "/api/v1/alerts")
		for _, want := range []string{
			`{"labels":{"alertname":"AortaFleetROCmVariants","severity":"warning"}`,
			`{"labels":{"alertname":"AortaKnobsDifferFromFleet","group":"env","hash":"`,
			`{"labels":{"alertname":"AortaPCIeLinkBelowMax","instance":"` + nodes["b"] + `","job":"aorta","pci":"0000:22:00.0","severity":"warning"}`,
		} {
			if !strings.Contains(alerts, want) {
				return false
			}
		}
		return true
	}
	ok := false
	for end := time.Now().Add(90 * time.Second); time.Now().Before(end); time.Sleep(time.Second) {
		if ok = ready(); ok {
			break
		}
	}
	t.Logf("aorta_env_info:\n%s", envInfo)
	t.Logf("aorta:rocm_variants:count:\n%s", variants)
	t.Logf("alerts:\n%s", alerts)
	if !ok {
		d.logs(t)
		t.Fatal("no three aorta_env_info series and two ROCm variants after 90 s")
	}
	if !strings.Contains(envInfo, `"rocm_version":"7.3.0"`) || strings.Count(envInfo, `"rocm_version":"7.2.1"`) != 2 {
		t.Errorf("aorta_env_info holds not two nodes on 7.2.1 and one on 7.3.0:\n%s", envInfo)
	}
	knobs := alerts[strings.Index(alerts, `"alertname":"AortaKnobsDifferFromFleet"`):]
	if knobs, _, _ = strings.Cut(knobs, "}"); !strings.Contains(knobs, `"instance":"`+nodes["c"]+`"`) {
		t.Errorf("AortaKnobsDifferFromFleet fires for %s, want node c (%s)", knobs, nodes["c"])
	}
	if strings.Count(alerts, `"alertname":"AortaKnobsDifferFromFleet"`) != 1 || strings.Count(alerts, `"alertname":"AortaPCIeLinkBelowMax"`) != 1 {
		t.Errorf("the knob and PCIe alerts fire for more than one node:\n%s", alerts)
	}
}

// degradedGPU is a probe_provenance.gpus of one MI300X, 0000:22:00.0,
// whose PCIe link trained at x8 of x16.
func degradedGPU() *schema.GPUs {
	i := func(v int) *int { return &v }
	s := func(v string) *string { return &v }
	return &schema.GPUs{PhysicalCount: i(1), PartitionCount: i(1), ComputePartition: s("SPX"), MemoryPartition: s("NPS1"),
		Devices: []schema.GPUDevice{{PCI: s("0000:22:00.0"), UniqueID: s("42"), GfxTarget: s("gfx942"),
			PCIe:       schema.GPUPCIe{CurrentLinkSpeed: s("32.0 GT/s PCIe"), CurrentLinkWidth: i(8), MaxLinkSpeed: s("32.0 GT/s PCIe"), MaxLinkWidth: i(16)},
			Partitions: []schema.GPUPartition{{Node: 1}}}}}
}

// query runs an instant PromQL query: the answer's text and how many
// results it holds (-1 when it is no successful vector answer).
func query(api, q string) (string, int) {
	text := httpGet(api + "/api/v1/query?query=" + url.QueryEscape(q))
	var r struct {
		Status string
		Data   struct{ Result []json.RawMessage }
	}
	if json.Unmarshal([]byte(text), &r) != nil || r.Status != "success" {
		return text, -1
	}
	return text, len(r.Data.Result)
}

// httpGet is the body of a GET, "" when there is none.
func httpGet(u string) string {
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(u)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return string(bytes.TrimSpace(b))
}

// daemons are the processes a test started, each logging to
// DIR/NAME.log.
type daemons struct {
	dir  string
	cmds []*exec.Cmd
	logf []string
}

// start runs a daemon in its own process group, killed when the test
// process dies (Pdeathsig).
func (d *daemons) start(t *testing.T, name, path string, args ...string) {
	t.Helper()
	logPath := filepath.Join(d.dir, name+".log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd := exec.Command(path, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = d.dir, logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	d.cmds = append(d.cmds, cmd)
	d.logf = append(d.logf, logPath)
}

// stop ends every daemon by its pid (stopDaemons).
func (d *daemons) stop(t *testing.T) { stopDaemons(t, d.cmds) }

// stopDaemons ends the daemons a test started, the last first, each by its
// pid: SIGTERM then, after 10 s, SIGKILL of its group (an error: it should
// end on SIGTERM).
func stopDaemons(t *testing.T, cmds []*exec.Cmd) {
	for i := len(cmds) - 1; i >= 0; i-- {
		cmd := cmds[i]
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Errorf("%s did not end on SIGTERM within 10 s: killed", cmd.Path)
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	}
}

// logs shows the tail of every daemon's log.
func (d *daemons) logs(t *testing.T) {
	for _, p := range d.logf {
		b, _ := os.ReadFile(p)
		if len(b) > 4000 {
			b = b[len(b)-4000:]
		}
		t.Logf("%s:\n%s", p, b)
	}
}
