package main

// buckFlag parses the --buck-* flags. It reports whether name was one of them.
func buckFlag(name string, value func() (string, error), flag func() error, c *config) (bool, error) {
	return false, nil
}

// validateBuck checks the Buck flags together, once all are parsed
// (context.md §22.3).
func validateBuck(c *config) error { return nil }
