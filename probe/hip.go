package probe

import (
	"bytes"

	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"
	"aorta-probe/schema"
)

// hipconfigMaxOutput caps each hipconfig output stream. Real values are at
// most a few hundred bytes (cpp_config); a value cut by the cap is not the
// tool's value and counts as "no usable value".
const hipconfigMaxOutput = 64 << 10

// hipPlatforms are the words `hipconfig --platform` prints: the word
// that splits a combined run (docs/hardware.md#hip--hipconfig).
var hipPlatforms = [...][]byte{[]byte("amd"), []byte("nvidia")}

// hipPair is one combined run: `hipconfig --<before> --platform --<after>`.
// hipconfig prints the selected values in a fixed order (cpp_config,
// compiler, platform, runtime, …, version) with nothing between them, so
// the output is before's value, the platform's, then after's.
type hipPair struct{ before, after string }

// hipPairs are the two combined runs that answer the five flags.
var hipPairs = [...]hipPair{{"cpp_config", "runtime"}, {"compiler", "version"}}

// collectHIP is the hip block (docs/hardware.md#hip--hipconfig).
//
// Source: the stripped stdout of `hipconfig --version`, `--platform`,
// `--compiler`, `--runtime`, `--cpp_config`. The gate is
// which("hipconfig") on the probe's PATH; there is no <core>/bin fallback.
// Each hipconfig run starts a compiler (`clang++ --version`), so the five
// values come from two runs, `--cpp_config --platform --runtime` and
// `--compiler --platform --version`, each split exactly around the
// platform word (hipSplit); a value a combined run does not answer is
// asked for alone, as is every value when $HIP_PLATFORM holds a word
// hipconfig would print as it is.
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
	values := map[string]*string{}
	if hipPlatformAnchors(s) {
		values = hipconfigPairs(s)
	} else {
		// One run per flag, all together (state.parallel): five hanging
		// hipconfig calls cost one timeout, not five.
		got := make([]*string, len(fields))
		var runs []func(*state)
		for i, f := range fields {
			runs = append(runs, func(s *state) { got[i] = hipconfigValue(s, "--"+f.key) })
		}
		s.parallel(runs...)
		for i, f := range fields {
			values[f.key] = got[i]
		}
	}
	for _, f := range fields {
		*f.dst = values[f.key]
		if *f.dst == nil {
			s.reason("hip.%s: hipconfig --%s returned no usable value", f.key, f.key)
		}
	}
	return h
}

// hipPlatformAnchors reports whether `hipconfig --platform` prints one of
// hipPlatforms: hipconfig prints "amd" or "nvidia" unless $HIP_PLATFORM
// is set, and maps the deprecated "hcc" and "nvcc" to them; any other
// value it prints as it is, so the platform cannot anchor a split.
func hipPlatformAnchors(s *state) bool {
	v, ok := s.env("HIP_PLATFORM")
	if !ok {
		return true
	}
	switch v {
	case "amd", "nvidia", "hcc", "nvcc":
		return true
	}
	return false
}

// hipconfigPairs answers the five flags with the two combined runs of
// hipPairs, together. Then, together again, every flag they did not
// answer is asked for alone: both flags of a combined run that failed
// (exit status, signal, start failure, output over the cap) or whose
// output does not split exactly, a flag whose value it left empty
// (hipconfig given only flags that print nothing prints its whole
// configuration instead), and the platform when neither split or the two
// disagree. A timed-out combined run is not followed by single runs (they
// would wait as long): its flags are null.
func hipconfigPairs(s *state) map[string]*string {
	type answer struct {
		before, platform, after *string
		split, timedOut         bool
	}
	var got [len(hipPairs)]answer
	runs := make([]func(*state), len(hipPairs))
	for i, p := range hipPairs {
		runs[i] = func(s *state) {
			r := s.run(hipconfigCommand("--"+p.before, "--platform", "--"+p.after))
			a := &got[i]
			switch {
			case r.TimedOut():
				a.timedOut = true
			case r.Err == nil && !r.StdoutCut:
				a.before, a.platform, a.after, a.split = hipSplit(r.Stdout)
			}
		}
	}
	s.parallel(runs...)
	values := map[string]*string{}
	var alone []string
	for i, p := range hipPairs {
		values[p.before], values[p.after] = got[i].before, got[i].after
		for _, k := range []string{p.before, p.after} {
			if values[k] == nil && !got[i].timedOut {
				alone = append(alone, k)
			}
		}
	}
	first, second := got[0], got[1]
	switch {
	case first.split && second.split && *first.platform != *second.platform:
		alone = append(alone, "platform") // a tool that answers differently each run
	case first.split:
		values["platform"] = first.platform
	case second.split:
		values["platform"] = second.platform
	case !first.timedOut || !second.timedOut:
		alone = append(alone, "platform")
	}
	single := make([]*string, len(alone))
	runs = runs[:0]
	for i, k := range alone {
		runs = append(runs, func(s *state) { single[i] = hipconfigValue(s, "--"+k) })
	}
	s.parallel(runs...)
	for i, k := range alone {
		values[k] = single[i]
	}
	return values
}

// hipSplit splits the output of `hipconfig --A --platform --B`, which is
// A's value, the platform word, then B's value, with nothing between them.
// The platform is one of hipPlatforms (hipPlatformAnchors), so when the
// output holds exactly one occurrence of either word, that occurrence is
// the platform and the text before and after it are A's and B's values,
// byte for byte what `hipconfig --A` and `hipconfig --B` print. With no
// occurrence or several, ok is false and nothing is returned. Each value is
// stripped as a single run's output is; an empty value is nil.
func hipSplit(out []byte) (a, platform, b *string, ok bool) {
	at, word := -1, []byte(nil)
	for _, w := range hipPlatforms {
		n := bytes.Count(out, w)
		if n == 0 {
			continue
		}
		if n > 1 || at >= 0 {
			return nil, nil, nil, false
		}
		at, word = bytes.Index(out, w), w
	}
	if at < 0 {
		return nil, nil, nil, false
	}
	return hipText(out[:at]), hipText(word), hipText(out[at+len(word):]), true
}

// hipText is one hipconfig value: the stripped text, nil when empty.
func hipText(b []byte) *string {
	v := pyfmt.Strip(toolText(b))
	if v == "" {
		return nil
	}
	return &v
}

// hipconfigCommand is `hipconfig FLAGS…` by bare name for at most 5 s
// (SHORT_TIMEOUT_SEC).
func hipconfigCommand(flags ...string) machine.Command {
	return machine.Command{Argv: append([]string{"hipconfig"}, flags...), Timeout: machine.ShortTimeout, MaxOutput: hipconfigMaxOutput, MaxStderr: hipconfigMaxOutput}
}

// hipconfigValue runs `hipconfig <flag>` and returns its stripped stdout;
// nil on a non-zero exit, timeout, start failure, output over the cap, or
// empty output.
func hipconfigValue(s *state, flag string) *string {
	r := s.run(hipconfigCommand(flag))
	if r.Err != nil || r.StdoutCut {
		return nil
	}
	return hipText(r.Stdout)
}
