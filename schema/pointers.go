package schema

// Str returns a pointer to s, for the many nullable string fields.
func Str(s string) *string { return &s }

// Bool returns a pointer to b.
func Bool(b bool) *bool { return &b }

// Int returns a pointer to n.
func Int(n int) *int { return &n }
