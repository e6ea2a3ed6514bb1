// Command hostilegpus writes one of the hostile GPU trees of issue 32
// item 4 (fakeroot.HostileGPUs) for scripts/bench-hostile-gpus.sh, at the
// issue's sizes or any other:
//
//	go run ./scripts/hostilegpus [-gpus N] [-shared] [-firmware N] [-fifos N] [-dirs N] [-nonnodes N] [-page] DIR
//
// Run the probe over it with --root DIR --no-python.
package main

import (
	"flag"
	"fmt"
	"os"

	"aorta-probe/internal/fakeroot"
)

func main() {
	var h fakeroot.HostileGPUs
	flag.IntVar(&h.GPUs, "gpus", 1, "kfd GPU nodes")
	flag.BoolVar(&h.SharedRender, "shared", false, "every GPU without location_id on renderD128")
	flag.IntVar(&h.Firmware, "firmware", 0, "fw_version files per device")
	flag.IntVar(&h.FIFOs, "fifos", 0, "FIFOs in each fw_version")
	flag.IntVar(&h.Dirs, "dirs", 0, "directories in each fw_version")
	flag.IntVar(&h.NonNodes, "nonnodes", 0, "entries of kfd nodes/ that are no node")
	flag.BoolVar(&h.Page, "page", false, "page-sized attributes of control bytes")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: hostilegpus [flags] DIR")
		os.Exit(2)
	}
	if err := h.Build(flag.Arg(0)); err != nil {
		fmt.Fprintln(os.Stderr, "hostilegpus:", err)
		os.Exit(1)
	}
}
