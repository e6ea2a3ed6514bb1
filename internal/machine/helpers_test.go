package machine

// ptrV is *p, or "null" for nil.
func ptrV(p *string) string {
	if p == nil {
		return "null"
	}
	return *p
}
