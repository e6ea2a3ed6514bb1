package probe

import (
	"errors"
	"slices"
	"sync/atomic"

	"aorta-probe/internal/archive"
	"aorta-probe/internal/machine"
	"aorta-probe/schema"
)

// A capture cut short (docs/capture.md, "A capture cut short"): its
// deadline or a signal ended the collection, some probes did not finish,
// and the live document says so for each ("<block>: not captured
// (collection interrupted)"). The archive records that cut
// (archive.Cut); a replay, whose commands all answer at once, must not
// finish what the capture did not, nor give a cause that did not occur
// (a killed command read as one that timed out by itself, a command never
// started read as one the archive lacks). So a replay of a cut capture:
//
//   - reports each probe the capture did not finish as not captured,
//     with the captured cause, whatever it computes;
//   - runs such a probe only up to the cut: the commands it had recorded
//     (no more), a command the cut killed taken as killed by the end of
//     the collection, one the archive lacks as never started;
//   - starts no probe the capture never started;
//   - fills the not-captured rocm and therock blocks with the roots as
//     far as the capture had resolved them.

// cutBook is a collection's bookkeeping of a cut: the cut of the capture a
// replay answers from, and where this collection was cut, for its archive.
type cutBook struct {
	// cut is where the capture a replay answers from was cut short (nil
	// live, or when it finished): its unfinished probes are replayed up
	// to the cut and their blocks say what the live document said.
	cut     *archive.Cut
	cutRuns map[string]*atomic.Int32 // commands recorded per unfinished probe
	// rootsUnresolved: gather found the roots unresolved.
	rootsUnresolved bool
	why             string   // the interruption, as gather found it
	unfinished      []string // the beside rows the collection ended before (gatherBeside)
}

// whyUnfinished is the cause of a row not finished when the collection
// ended: the interruption, or, for a row the capture replayed did not
// finish (cut), what the live document said. The first cause is kept for
// the archive's cut.
func (c *collector) whyUnfinished(cut bool) string {
	why := c.interruption()
	if cut {
		why = c.cut.Why
	}
	if c.why == "" {
		c.why = why
	}
	return why
}

// cutOf is where this collection was cut short, for the archive of a
// capture: prov's probe records say which of the document's probes did
// not finish, gatherBeside which beside rows.
func (c *collector) cutOf(probes []schema.ProbeRecord) archive.Cut {
	cut := archive.Cut{Why: c.why, RootsUnresolved: c.rootsUnresolved}
	for _, p := range probes {
		if p.Outcome != "deadline" {
			continue
		}
		sl := c.slots[p.Name]
		cut.Unfinished = append(cut.Unfinished, archive.CutProbe{Name: p.Name, Commands: len(c.states[sl.index].allCommands())})
		if !sl.started.Load() {
			cut.NotStarted = append(cut.NotStarted, p.Name)
		}
	}
	for _, name := range c.unfinished {
		cut.Unfinished = append(cut.Unfinished, archive.CutProbe{Name: name})
	}
	return cut
}

// replayCut sets up c to replay the cut of the capture it answers from.
func (c *collector) replayCut(cut *archive.Cut) {
	if cut == nil {
		return
	}
	c.cut = cut
	c.cutRuns = map[string]*atomic.Int32{}
	for _, p := range cut.Unfinished {
		c.cutRuns[p.Name] = new(atomic.Int32)
	}
}

// cutNotStarted reports whether the capture replayed never started the
// probe name.
func (c *collector) cutNotStarted(name string) bool {
	return c.cut != nil && slices.Contains(c.cut.NotStarted, name)
}

// pastCut reports whether s, a probe the capture replayed did not
// finish, has run as many commands as it had when the capture ended.
func (s *state) pastCut() bool {
	limit, unfinished := s.cut.Probe(s.name)
	return unfinished && s.cutRuns[s.name].Load() >= int32(limit)
}

// notRunBeforeCut reports whether r is the answer of a replay lacking a
// command that s, a probe the capture did not finish (or a helper shared
// by probes, the Python helper), asked for: the capture never started
// it, the collection having ended.
func (s *state) notRunBeforeCut(r machine.Result) bool {
	if s.cut == nil || !errors.As(r.Err, new(*archive.NotCapturedError)) {
		return false
	}
	_, unfinished := s.cut.Probe(s.name)
	_, row := s.slots[s.name]
	return unfinished || !row
}

// cutShort reports whether r is a command killed because the collection
// ended (this one's, or the capture's a replay answers from), not at its
// own timeout.
func (s *state) cutShort(r machine.Result) bool {
	return r.TimedOut() && (s.ctx.Err() != nil || r.Cut)
}

// rootsAtEnd are the ROCm roots the not-captured rocm and therock blocks
// name, and whether they were resolved: as far as resolution had come
// when the document was put together (in a replay, as far as the
// capture's had).
func (c *collector) rootsAtEnd() (rocmRoots, bool) {
	if c.cut != nil {
		if c.cut.RootsUnresolved {
			return classicRoots("/opt/rocm", "none"), false
		}
		return c.rocm(), true
	}
	select {
	case <-c.rootsDone:
		return c.rocm(), true
	default:
		return classicRoots("/opt/rocm", "none"), false
	}
}
