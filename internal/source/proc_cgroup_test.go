package source

import (
	"reflect"
	"strings"
	"testing"
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
		got, ok := CgroupContainerID(tc.in)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("CgroupContainerID(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
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
		if got := strings.Join(CgroupTokens(in), " "); got != want {
			t.Errorf("CgroupTokens(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseCgroup(t *testing.T) {
	got := ParseCgroup("12:cpu,cpuacct:/docker/x\n0::/a:b\nmalformed\n4:memory\n")
	want := []CgroupLine{{"12", []string{"cpu", "cpuacct"}, "/docker/x"}, {"0", nil, "/a:b"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func FuzzParseCgroup(f *testing.F) {
	f.Add("12:cpu,cpuacct:/docker/abc123def456\n0::/\n")
	f.Add("0::/kubepods.slice/x:y")
	f.Fuzz(func(t *testing.T, s string) {
		for _, l := range ParseCgroup(s) {
			if strings.Contains(l.ID, ":") {
				t.Fatalf("id %q holds a colon", l.ID)
			}
		}
		if id, ok := CgroupContainerID(s); ok && (len(id) < 12 || len(id) > 64 || !strings.Contains(s, id)) {
			t.Fatalf("bad container id %q", id)
		}
		CgroupTokens(s)
	})
}
