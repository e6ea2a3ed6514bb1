package cli

import "runtime/debug"

// version is set at link time (-ldflags "-X aorta-probe/cli.version=…");
// otherwise the module version recorded by the go command, else "dev".
var version = ""

// Version is the binary's version: what the linker set, else the module
// version recorded by the go command, else "dev".
func Version() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
