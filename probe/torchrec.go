package probe

import "aorta-probe/schema"

// collectTorchRec is the torchrec block (docs/python.md). Source: the whole
// identity algorithm runs inside the helper (find_spec without importing,
// version.py through the spec's loader, importlib.metadata distributions,
// RECORD and direct_url.json ownership); Go copies its five values and its
// reasons in order. Scope: process. TorchRec is never imported. Without an
// interpreter report the block is all null and silent, as for a genuinely
// absent torchrec.
func collectTorchRec(s *state) schema.TorchRec {
	t := s.python().TorchRec
	if t == nil {
		return schema.TorchRec{}
	}
	s.reasons = append(s.reasons, t.Reasons...)
	return t.Block
}
