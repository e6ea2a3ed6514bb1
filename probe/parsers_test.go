package probe

import (
	"reflect"
	"strings"
	"testing"

	"aorta-probe/internal/machine"
	"aorta-probe/internal/pyfmt"
)

func TestCgroupContainerID(t *testing.T) {
	// The Python probe's cgroup and marker fixtures.
	for _, tc := range []struct{ in, want string }{
		{"0::/system.slice/docker-4426af4f45ae09720a1e50f220d19db5b71cfe897480d860f0bc761d7f4be69d.scope", "4426af4f45ae09720a1e50f220d19db5b71cfe897480d860f0bc761d7f4be69d"},
		{"12:freezer:/docker/abc123def456789012345678901234567890abcd", "abc123def456789012345678901234567890abcd"},
		{"12:freezer:/docker/abc123def456", "abc123def456"},
		{"0::/kubepods.slice/kubepods-besteffort-pod123.slice", ""},
		{"0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1a2b3c4d_5e6f_7a8b_9c0d_1e2f3a4b5c6d.slice/cri-containerd-4426af4f45ae09720a1e50f220d19db5b71cfe897480d860f0bc761d7f4be69d.scope", "1e2f3a4b5c6d"},
		{"0::/", ""},
		{"0::/user.slice/user-1000.slice/session-3.scope", ""},
		{"0::/docker/ABCDEF0123456789", ""},
		{strings.Repeat("a", 70), strings.Repeat("a", 64)},
		{"x\n0::/docker/0123456789ab\n0::/docker/ffffffffffffffff", "0123456789ab"},
		{"", ""},
	} {
		got, ok := cgroupContainerID(tc.in)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("cgroupContainerID(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}

func TestCgroupTokens(t *testing.T) {
	for in, want := range map[string]string{
		"0::/kubepods.slice/cri-containerd-x.scope": "containerd kubepods",
		"0::/machine.slice/libpod-abc.scope":        "libpod",
		"0::/init.scope":                            "",
		"12:cpu:/lxc/x\n0::/crio-y":                 "lxc crio",
	} {
		if got := strings.Join(cgroupTokens(in), " "); got != want {
			t.Errorf("cgroupTokens(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseCgroup(t *testing.T) {
	got := parseCgroup("12:cpu,cpuacct:/docker/x\n0::/a:b\nmalformed\n4:memory\n")
	want := []cgroupLine{{"12", []string{"cpu", "cpuacct"}, "/docker/x"}, {"0", nil, "/a:b"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestParseMountInfo(t *testing.T) {
	text := `22 27 0:21 / /proc rw,relatime - proc proc rw
36 35 98:0 /mnt1 /mnt\0402 rw,noatime master:1 shared:2 - ext3 /dev/root rw,errors=continue
1 0 0:1 / / rw - overlay overlay rw,lowerdir=/a
short line
7 6 0:3 / /x rw no-separator ext4 /dev/x
`
	got := parseMountInfo(text)
	want := []mountInfo{
		{"22", "27", "/", "/proc", "proc", "proc"},
		{"36", "35", "/mnt1", "/mnt 2", "ext3", "/dev/root"},
		{"1", "0", "/", "/", "overlay", "overlay"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if m, ok := rootMount(got); !ok || m.FSType != "overlay" {
		t.Errorf("rootMount = %+v, %v", m, ok)
	}
}

func TestParseProcStatus(t *testing.T) {
	st := parseProcStatus("Name:\taorta-probe\nPid:\t1\nPPid:\t0\nTracerPid:\t0\nNSpid:\t4182\t1\nUid:\t0 0 0 0\n")
	if st.Pid != 1 || st.PPid != 0 || !reflect.DeepEqual(st.NSpid, []int{4182, 1}) || !st.Has["PPid"] {
		t.Errorf("got %+v", st)
	}
	bad := parseProcStatus("Pid:\tx\nNSpid:\t1 y\nPPid\n")
	if bad.Has["Pid"] || bad.Has["NSpid"] || bad.Has["PPid"] {
		t.Errorf("malformed lines accepted: %+v", bad)
	}
}

func TestParseOSRelease(t *testing.T) {
	got := parseOSRelease("# comment\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\nVERSION_ID='12'\nBAD LINE\nQ=\"a\\\"b\\\\c\"\n=x\nID=ubuntu\n")
	want := map[string]string{"PRETTY_NAME": "Debian GNU/Linux 12 (bookworm)", "ID": "ubuntu", "VERSION_ID": "12", "Q": `a"b\c`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestScanLibcBanner(t *testing.T) {
	banner := "GNU C Library (Debian GLIBC 2.36-9+deb12u4) stable release version 2.36.\n"
	for _, tc := range []struct {
		name, data, want string
	}{
		{"debian", "\x7fELF\x00junk\x00" + banner, "2.36"},
		{"straddles a chunk", strings.Repeat("x", 64<<10-20) + banner, "2.36"},
		{"ubuntu", "GNU C Library (Ubuntu GLIBC 2.35-0ubuntu3.8) stable release version 2.35.", "2.35"},
		{"three parts", "GNU C Library (GNU libc) release release version 2.28.9.", "2.28.9"},
		{"no banner", "musl libc (x86_64)\x00Version 1.2.4", ""},
		{"name without version", "GNU C Library\x00", ""},
	} {
		got, ok := scanLibcBanner(strings.NewReader(tc.data))
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("%s: got %q, %v; want %q", tc.name, got, ok, tc.want)
		}
	}
}

func TestNamespaceKey(t *testing.T) {
	// The probe_namespace vectors
	// (docs/fields-process.md#probe_namespace-process).
	boot := "boot-aaaa-bbbb"
	real := "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"
	for _, tc := range []struct {
		kind  string
		boot  *string
		token string
		want  string
	}{
		{"mnt", &boot, "mnt:[4026531840]", "mnt:8021806755e296c7"},
		{"mnt", nil, "mnt:[4026531840]", "mnt-local:305b131f331401a5"},
		{"cgroup-ns", &boot, "cgroup:[4026533001]", "cgroup-ns:df6f66f8b34bb519"},
		{"cgroup-ns", nil, "cgroup:[4026533001]", "cgroup-ns-local:dda69e0540ffde06"},
		{"mnt", &real, "mnt:[4026532569]", "mnt:50d635339c5cddd4"},
	} {
		if got := namespaceKey(tc.kind, tc.boot, tc.token); got != tc.want {
			t.Errorf("namespaceKey(%s, %v, %s) = %s, want %s", tc.kind, tc.boot != nil, tc.token, got, tc.want)
		}
	}
}

func TestNSInode(t *testing.T) {
	for _, tc := range []struct {
		link, kind string
		want       uint64
		ok         bool
	}{
		{"pid:[4026531836]", "pid", 4026531836, true},
		{"user:[4026532178]", "user", 4026532178, true},
		{"pid:[x]", "pid", 0, false},
		{"mnt:[1]", "pid", 0, false},
		{"pid:[12", "pid", 0, false},
	} {
		n, ok := nsInode(tc.link, tc.kind)
		if n != tc.want || ok != tc.ok {
			t.Errorf("nsInode(%q) = %d, %v", tc.link, n, ok)
		}
	}
}

func TestPyNormpath(t *testing.T) {
	for in, want := range map[string]string{
		"/opt/rocm/":          "/opt/rocm",
		"/opt//rocm/./lib/..": "/opt/rocm",
		"//net/rocm":          "//net/rocm",
		"///x":                "/x",
		"/../x":               "/x",
	} {
		if got := pyNormpath(in); got != want {
			t.Errorf("pyNormpath(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseCgroup(f *testing.F) {
	f.Add("12:cpu,cpuacct:/docker/abc123def456\n0::/\n")
	f.Add("0::/kubepods.slice/x:y")
	f.Fuzz(func(t *testing.T, s string) {
		for _, l := range parseCgroup(s) {
			if strings.Contains(l.ID, ":") {
				t.Fatalf("id %q holds a colon", l.ID)
			}
		}
		if id, ok := cgroupContainerID(s); ok && (len(id) < 12 || len(id) > 64 || !strings.Contains(s, id)) {
			t.Fatalf("bad container id %q", id)
		}
		cgroupTokens(s)
	})
}

func FuzzParseMountInfo(f *testing.F) {
	f.Add("36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw\n")
	f.Add("1 0 0:1 / / rw - overlay overlay rw\\")
	f.Fuzz(func(t *testing.T, s string) {
		for _, m := range parseMountInfo(s) {
			if m.FSType == "" || m.ID == "" {
				t.Fatalf("empty field in %+v", m)
			}
		}
	})
}

func FuzzParseProcStatus(f *testing.F) {
	f.Add("Pid:\t1\nPPid:\t0\nNSpid:\t4182\t1\n")
	f.Fuzz(func(t *testing.T, s string) {
		st := parseProcStatus(s)
		if st.Has["NSpid"] && len(st.NSpid) == 0 {
			t.Fatal("NSpid marked present but empty")
		}
	})
}

func FuzzParseOSRelease(f *testing.F) {
	f.Add("ID=debian\nVERSION_ID=\"12\"\n")
	f.Fuzz(func(t *testing.T, s string) {
		for k := range parseOSRelease(s) {
			if k == "" || strings.ContainsAny(k, " \t\n") {
				t.Fatalf("bad key %q", k)
			}
		}
	})
}

// FuzzReadText checks read-text on arbitrary version-file bytes: never a
// result with surrounding Python whitespace, never an empty string.
func FuzzReadText(f *testing.F) {
	f.Add([]byte("7.2.1\n"))
	f.Add([]byte("\r\n\x1c"))
	f.Add([]byte("\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		if err := writeFile(dir+"/version", b); err != nil {
			t.Fatal(err)
		}
		got := machine.NewFS(dir, "/", false).ReadText("/version")
		if got == nil {
			return
		}
		if *got == "" || pyfmt.Strip(*got) != *got || strings.Contains(*got, "\r") {
			t.Fatalf("readText(%q) = %q", b, *got)
		}
	})
}

func FuzzScanLibcBanner(f *testing.F) {
	f.Add([]byte("GNU C Library (Debian GLIBC 2.36-9) stable release version 2.36."))
	f.Fuzz(func(t *testing.T, b []byte) {
		if v, ok := scanLibcBanner(strings.NewReader(string(b))); ok && v == "" {
			t.Fatal("empty version reported as found")
		}
	})
}
