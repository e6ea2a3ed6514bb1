// Command genfleet writes a synthetic fleet for scripts/bench-fleet.sh:
// N documents of about SIZE bytes built from one real env.json, two of
// them planted outliers (another hipBLASLt lib_hash, another amdgpu
// package version).
//
//	go run ./scripts/genfleet [-n 1000] [-size 400000] BASE.json DIR
package main

import (
	"flag"
	"fmt"
	"os"

	"aorta-probe/internal/fleetgen"
)

func main() {
	n := flag.Int("n", 1000, "number of documents")
	size := flag.Int("size", 400000, "approximate size of each document in bytes")
	flag.Parse()
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: genfleet [-n N] [-size BYTES] BASE.json DIR")
		os.Exit(2)
	}
	base, err := os.ReadFile(flag.Arg(0))
	check(err)
	tmpl, err := fleetgen.Template(base, *size, nil)
	check(err)
	lib, err := fleetgen.Template(base, *size, map[string]any{"hipblaslt.lib_hash": "sha256:" + fmt.Sprintf("%064d", 1)})
	check(err)
	drv, err := fleetgen.Template(base, *size, map[string]any{"amdgpu_driver.package_version": "6.12.12-2194681.24.04"})
	check(err)
	check(os.MkdirAll(flag.Arg(1), 0o755))
	check(fleetgen.Write(flag.Arg(1), *n, tmpl, map[int][]byte{*n / 7: lib, *n / 3: drv}))
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "genfleet:", err)
		os.Exit(1)
	}
}
