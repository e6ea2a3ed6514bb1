package probe

import (
	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"

	"bytes"
	"io"
	"strings"
	"syscall"

	"aorta-probe/internal/lazyre"
	"aorta-probe/internal/source"
	"aorta-probe/schema"
)

// hostInfo is the host block plus the provenance-only os-release.
type hostInfo struct {
	host schema.Host
	os   *schema.OSRelease
}

// collectHost is the host block
// (docs/fields-process.md#host-host-kernel-glibc-filesystem). The kernel
// fields come from uname(2). A static binary has no libc, so glibc_version
// cannot be confstr(_CS_GNU_LIBC_VERSION) of the running process as in
// Python; it is the version banner of the libc.so.6 the filesystem's dynamic
// loader would use — the libc of every dynamically linked workload process.
func collectHost(s *state) hostInfo {
	var h schema.Host
	u, err := s.opt.Uname()
	if err != nil {
		s.reason("host.kernel_release: os.uname() failed (%s)", pyfmt.ExcStr(err))
	} else {
		h.KernelRelease, h.KernelVersion, h.Machine = &u.Release, &u.Version, &u.Machine
	}
	v, reason := glibcVersion(s.root, u.Machine)
	if reason != "" {
		s.reason("host.glibc_version: %s", reason)
	} else {
		h.GlibcVersion = &v
	}
	return hostInfo{host: h, os: osRelease(s.root)}
}

func sysUname() (machine.Uname, error) {
	var u syscall.Utsname
	if err := syscall.Uname(&u); err != nil {
		return machine.Uname{}, err
	}
	str := func(f [65]int8) string {
		b := make([]byte, 0, len(f))
		for _, c := range f {
			if c == 0 {
				break
			}
			b = append(b, byte(c))
		}
		return string(b)
	}
	return machine.Uname{Release: str(u.Release), Version: str(u.Version), Machine: str(u.Machine)}, nil
}

// libcDirs are where a glibc dynamic loader finds libc.so.6: the multiarch
// directory of the machine first (Debian, Ubuntu), then the lib64 and lib
// directories of other distributions.
func libcDirs(machine string) []string {
	var dirs []string
	if machine != "" {
		triplet := machine + "-linux-gnu"
		if machine == "armv7l" {
			triplet = "arm-linux-gnueabihf"
		}
		dirs = append(dirs, "/lib/"+triplet, "/usr/lib/"+triplet)
	}
	return append(dirs, "/lib64", "/usr/lib64", "/lib", "/usr/lib")
}

// glibcVersion returns the version of the filesystem's glibc, or the reason
// it has none: on musl the reason Python itself gives there (confstr has no
// such name), otherwise a plain statement of what was searched.
func glibcVersion(root *machine.FS, machine string) (string, string) {
	dirs := libcDirs(machine)
	for _, d := range dirs {
		p := d + "/libc.so.6"
		f, _, err := root.OpenRegular(p)
		if err != nil {
			continue
		}
		v, ok := scanLibcBanner(io.LimitReader(f, libcScanBudget))
		f.Close()
		if ok {
			return v, ""
		}
	}
	if ms, _ := root.ReadDir("/lib"); ms != nil {
		for _, e := range ms {
			if strings.HasPrefix(e.Name(), "ld-musl-") {
				return "", "os.confstr failed (unrecognized configuration name)"
			}
		}
	}
	return "", "no glibc libc.so.6 with a version banner in " + strings.Join(dirs, ", ") +
		" (a static probe has no libc of its own)"
}

// libcBanner matches the banner glibc embeds in libc.so.6 (and prints when
// run): "GNU C Library (Debian GLIBC 2.36-9+deb12u4) stable release version 2.36."
var libcBanner = lazyre.New(`GNU C Library [^\x00\n]*?release version ([0-9]+\.[0-9]+(?:\.[0-9]+)?)`)

// libcScanBudget bounds how much of a libc.so.6 is searched for the banner.
// The banner lives in .rodata, in the first megabytes of the file (at 1.6
// MiB of Debian 12's 1.9 MiB libc.so.6); a build with its debug sections
// kept is a few times larger, still with .rodata near the start. A file
// whose first 64 MiB hold no banner (a sparse multi-GiB file planted under
// --root, say) is a libc without one: the rest is not read
// (docs/design-notes.md).
const libcScanBudget = 64 << 20

// scanLibcBanner streams r with a fixed buffer (libc.so.6 is megabytes) and
// returns the banner's version. Chunks overlap so a banner that straddles a
// chunk boundary is still found.
func scanLibcBanner(r io.Reader) (string, bool) {
	const chunk, overlap = 16 << 10, 256
	buf := make([]byte, overlap+chunk)
	keep := 0
	for {
		n, err := io.ReadFull(r, buf[keep:])
		data := buf[:keep+n]
		if i := bytes.Index(data, []byte("GNU C Library")); i >= 0 {
			if m := libcBanner().FindSubmatch(data[i:]); m != nil {
				return string(m[1]), true
			}
		}
		if err != nil {
			return "", false
		}
		keep = copy(buf, data[len(data)-overlap:])
	}
}

// osRelease is the image the probe's filesystem comes from (recorded in
// probe_provenance): /etc/os-release, else /usr/lib/os-release.
func osRelease(r *machine.FS) *schema.OSRelease {
	o, err := source.NewFS(r).OSRelease()
	if err != nil {
		return nil
	}
	get := func(k string) *string {
		if v, ok := o.Fields[k]; ok {
			return &v
		}
		return nil
	}
	return &schema.OSRelease{Path: o.Path, ID: get("ID"), VersionID: get("VERSION_ID"), PrettyName: get("PRETTY_NAME")}
}
