package probe

import (
	"sort"

	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/internal/pyjson"
	"aorta-probe/schema"
)

// agentEnumeratorMaxOutput caps the enumerator's output streams: one short
// line per agent, so a mebibyte is thousands of times a real host's output.
// Output cut by the cap is not parsed (a partial list would give wrong
// counts); see docs/hardware.md.
const agentEnumeratorMaxOutput = 1 << 20

// collectGPUArch is the gpu_arch block
// (docs/hardware.md#gpu_arch--rocm_agent_enumerator).
//
// Source: stdout of rocm_agent_enumerator (no arguments), found with
// which() on the probe's PATH, else <core>/bin/rocm_agent_enumerator when it
// exists; run by that absolute path for at most 30 s (GPU_ARCH_TIMEOUT_SEC:
// enumeration takes ~16 s on an 8-GPU host). The data is the host kernel's KFD
// topology as the tool reports it.
func collectGPUArch(s *state) schema.GPUArch {
	var g schema.GPUArch
	path, argv0, ok := findAgentEnumerator(s)
	if !ok {
		s.reason("gpu_arch: rocm_agent_enumerator not on PATH (install rocminfo / rocm-core, or add %s/bin to PATH)", s.rocm().core)
		return g
	}
	r := s.run(machine.Command{Path: path, Argv: []string{argv0}, Timeout: machine.LongTimeout, MaxOutput: agentEnumeratorMaxOutput})
	if r.TimedOut() {
		s.reason("gpu_arch: rocm_agent_enumerator exceeded 30s timeout")
		return g
	}
	if rc, ok := r.Exit(); ok && rc != 0 {
		line, ok := lastLineOfStripped(stderrText(r))
		if !ok {
			line = "(no stderr)"
		}
		s.reason("gpu_arch: rocm_agent_enumerator exited %d (%s)", rc, line)
		return g
	}
	if err := r.LaunchErr(); err != nil {
		s.reason("gpu_arch: rocm_agent_enumerator invocation failed (%s)", invokeExc(err, argv0))
		return g
	}
	if r.StdoutCut {
		s.reason("gpu_arch: rocm_agent_enumerator output exceeded %d bytes; not parsed", agentEnumeratorMaxOutput)
		return g
	}
	targets := parseAgentEnumerator(toolText(r.Stdout))
	if len(targets) == 0 {
		s.reason("gpu_arch: rocm_agent_enumerator returned no GPU targets")
		return g
	}
	return gpuArchOf(targets)
}

// findAgentEnumerator returns the executable to start and the argv[0] it is
// started as. The <core>/bin fallback is the only place the probe executes
// a binary found under its root rather than on its search path, so under a
// foreign --root it is taken only when the caller gave an explicit search
// path (tests do); otherwise a mounted image's binary is never run.
func findAgentEnumerator(s *state) (path, argv0 string, ok bool) {
	if p, ok := s.which("rocm_agent_enumerator"); ok {
		return p, p, true
	}
	logical := s.rocm().core + "/bin/rocm_agent_enumerator"
	if s.root.Exists(logical) && (s.root.Live() || s.opt.Path != nil) {
		if host, err := s.root.ExecPath(logical); err == nil {
			return host, logical, true
		}
	}
	return "", "", false
}

// parseAgentEnumerator returns the agent lines of the enumerator's stdout:
// each line stripped, blank lines and the CPU placeholder gfx000 dropped.
// Every other line counts, without checking its gfx shape (as the Python probe).
func parseAgentEnumerator(out string) []string {
	var targets []string
	for _, line := range pyfmt.Splitlines(out) {
		t := pyfmt.Strip(line)
		if t == "" || t == "gfx000" {
			continue
		}
		targets = append(targets, t)
	}
	return targets
}

// gpuArchOf counts agents per target; targets and count keys are sorted by
// code point (gfx1100 before gfx942).
func gpuArchOf(targets []string) schema.GPUArch {
	counts := map[string]int{}
	for _, t := range targets {
		counts[t]++
	}
	uniq := make([]string, 0, len(counts))
	for t := range counts {
		uniq = append(uniq, t)
	}
	sort.Strings(uniq)
	m := make(pyjson.Map[int], 0, len(uniq))
	for _, t := range uniq { // unique keys: append, not Set
		m = append(m, pyjson.Entry[int]{Key: t, Value: counts[t]})
	}
	return schema.GPUArch{AgentCount: schema.Int(len(targets)), GfxTargets: uniq, AgentArchCounts: m}
}
