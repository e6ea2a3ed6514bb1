package probe

import (
	"aorta-probe/internal/pyfmt"
	"aorta-probe/schema"
)

// hipconfigMaxOutput caps each hipconfig output stream. Real values are at
// most a few hundred bytes (cpp_config); a value cut by the cap is not the
// tool's value and counts as "no usable value".
const hipconfigMaxOutput = 64 << 10

// collectHIP is the hip block (docs/hardware.md#hip--hipconfig).
//
// Source: `hipconfig --version`, `--platform`, `--compiler`, `--runtime`,
// `--cpp_config`, one run per flag (hipconfig concatenates the outputs of
// combined flags without a delimiter), each stdout stripped. The gate is
// which("hipconfig") on the probe's PATH; there is no <core>/bin fallback.
func collectHIP(s *state) schema.HIP {
	var h schema.HIP
	if _, ok := s.which("hipconfig"); !ok {
		s.reason("hip: hipconfig not on PATH; all hip.* fields = null")
		return h
	}
	fields := []struct {
		key string
		dst **string
	}{
		{"version", &h.Version},
		{"platform", &h.Platform},
		{"compiler", &h.Compiler},
		{"runtime", &h.Runtime},
		{"cpp_config", &h.CppConfig},
	}
	// The five runs are independent: they run together (state.parallel),
	// so five hanging hipconfig calls cost one timeout, not five.
	var runs []func(*state)
	for _, f := range fields {
		runs = append(runs, func(s *state) { *f.dst = hipconfigValue(s, "--"+f.key) })
	}
	s.parallel(runs...)
	for _, f := range fields {
		if *f.dst == nil {
			s.reason("hip.%s: hipconfig --%s returned no usable value", f.key, f.key)
		}
	}
	return h
}

// hipconfigValue runs `hipconfig <flag>` by bare name for at most 5 s
// (SHORT_TIMEOUT_SEC) and returns its
// stripped stdout; nil on a non-zero exit, timeout, start failure, output
// over the cap, or empty output.
func hipconfigValue(s *state, flag string) *string {
	r := s.run(Command{Argv: []string{"hipconfig", flag}, Timeout: ShortTimeout, MaxOutput: hipconfigMaxOutput, MaxStderr: hipconfigMaxOutput})
	if r.Err != nil || r.StdoutCut {
		return nil
	}
	v := pyfmt.Strip(toolText(r.Stdout))
	if v == "" {
		return nil
	}
	return &v
}
