package main

// pythonFlag parses the flags that choose the workload interpreter. It
// reports whether name was one of them.
func pythonFlag(name string, value func() (string, error), flag func() error, c *config) (bool, error) {
	return false, nil
}
