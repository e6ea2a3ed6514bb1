package probe

import "fmt"

// Tests replace the random part of the rdhc temp file name, so the argv
// recorded in the golden documents is stable (scenarios put the file under
// their own root with env: TMPDIR=$ROOT/tmp, so names never clash).
func init() {
	rdhcTempName = func(attempt int) string { return fmt.Sprintf("test%04d", attempt) }
}
