package probe

import (
	"strings"

	"aorta-probe/internal/pyfmt"
	"aorta-probe/schema"
)

// collectRCCL is the rccl block
// (docs/rocm-libraries.md#rccl-filesystem-plugin-fields-process-scope).
//
// Source: NCCL_VERSION_CODE in <inc>/include/rccl/rccl.h;
// <lib>/lib/librccl.so*, librccl-anp.so* and librccl-net.so* (content
// hashes; the last two are documented absences); $NCCL_NET_PLUGIN resolved
// as a path, or as a library name on $LD_LIBRARY_PATH then <lib>/lib
// (process scope: it is this process's environment).
func collectRCCL(s *state) schema.RCCL {
	r := schema.RCCL{NetPluginMode: "internal"}
	header := s.rocm().inc + "/include/rccl/rccl.h"
	libDir := s.rocm().lib + "/lib"

	text := s.root.ReadText(header)
	r.VersionCode = rcclVersionCode(text)
	if r.VersionCode != nil {
		r.Version = schema.Str(rcclVersion(*r.VersionCode))
	}
	r.LibHash = libHash(s, libDir, "librccl.so")

	plugin := pyfmt.Strip(s.getenv("NCCL_NET_PLUGIN"))
	if plugin != "" {
		r.NetPluginMode = "unknown"
		if p, ok := resolveNetPlugin(s, plugin, libDir); ok {
			r.NetPluginMode, r.PluginPath = "external", schema.Str(p)
			if sum, err := s.sha256OfPath(p); err == nil {
				r.PluginLibHash = &sum
			}
		}
	}
	r.AnpLibHash = libHash(s, libDir, "librccl-anp.so")
	r.NetLibHash = libHash(s, libDir, "librccl-net.so")

	if r.VersionCode == nil {
		headerReason(s, "rccl.version_code", header, text, "a readable NCCL_VERSION_CODE define")
	}
	if r.LibHash == nil {
		s.reason("rccl.lib_hash: %s/librccl.so missing or unreadable", libDir)
	}
	switch {
	case r.NetPluginMode == "unknown":
		s.reason("rccl.net_plugin_mode: NCCL_NET_PLUGIN=%s set but could not be resolved to a readable .so on its path / LD_LIBRARY_PATH / %s", pyfmt.Repr(plugin), libDir)
	case r.NetPluginMode == "external" && r.PluginLibHash == nil:
		s.reason("rccl.plugin_lib_hash: NCCL_NET_PLUGIN resolved to %s but it could not be read to hash", *r.PluginPath)
	}
	return r
}

// resolveNetPlugin finds the file NCCL_NET_PLUGIN names
// (docs/rocm-libraries.md#rccl-filesystem-plugin-fields-process-scope): a
// value with a slash is a path (pathlib-normalised, relative to the cwd); a
// bare name is tried in each $LD_LIBRARY_PATH entry, then in libDir, as every
// spelling netPluginNames gives. The answer must be a regular file (links
// followed).
func resolveNetPlugin(s *state, value, libDir string) (string, bool) {
	if strings.Contains(value, "/") {
		p := pathlibStr(value)
		return p, s.root.IsRegular(p)
	}
	var dirs []string
	for _, d := range strings.Split(s.getenv("LD_LIBRARY_PATH"), ":") {
		if d != "" {
			dirs = append(dirs, d)
		}
	}
	dirs = append(dirs, libDir)
	names := netPluginNames(value)
	for _, d := range dirs {
		for _, n := range names {
			if p := pathlibJoin(d, n); s.root.IsRegular(p) {
				return p, true
			}
		}
	}
	return "", false
}

// netPluginNames is NCCL's spelling list for a bare plugin name: the value,
// then lib<stem>.so, <stem>.so, lib<stem> and <stem> (stem = the value less
// a leading "lib"), in that order without duplicates.
func netPluginNames(value string) []string {
	stem := strings.TrimPrefix(value, "lib")
	names := []string{value}
	for _, n := range []string{"lib" + stem + ".so", stem + ".so", "lib" + stem, stem} {
		dup := false
		for _, m := range names {
			dup = dup || m == n
		}
		if !dup {
			names = append(names, n)
		}
	}
	return names
}
