package source

import (
	"errors"
	"io/fs"
	"reflect"
	"testing"
)

func TestParseMountInfo(t *testing.T) {
	text := `22 27 0:21 / /proc rw,relatime - proc proc rw
36 35 98:0 /mnt1 /mnt\0402 rw,noatime master:1 shared:2 - ext3 /dev/root rw,errors=continue
1 0 0:1 / / rw - overlay overlay rw,lowerdir=/a
short line
7 6 0:3 / /x rw no-separator ext4 /dev/x
`
	got := ParseMountInfo(text)
	want := []Mount{
		{"22", "27", "/", "/proc", "proc", "proc"},
		{"36", "35", "/mnt1", "/mnt 2", "ext3", "/dev/root"},
		{"1", "0", "/", "/", "overlay", "overlay"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if m, ok := RootMount(got); !ok || m.FSType != "overlay" {
		t.Errorf("rootMount = %+v, %v", m, ok)
	}
}

func FuzzParseMountInfo(f *testing.F) {
	f.Add("36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw\n")
	f.Add("1 0 0:1 / / rw - overlay overlay rw\\")
	f.Fuzz(func(t *testing.T, s string) {
		for _, m := range ParseMountInfo(s) {
			if m.FSType == "" || m.ID == "" {
				t.Fatalf("empty field in %+v", m)
			}
		}
	})
}

func TestSelfMountInfo(t *testing.T) {
	ms, err := fakeFS(t, "-- proc/self/mountinfo --\n1 0 0:1 / / rw - overlay overlay rw\n").SelfMountInfo()
	if m, ok := RootMount(ms); err != nil || !ok || m.FSType != "overlay" {
		t.Errorf("SelfMountInfo = %+v, %v", ms, err)
	}
	ms, err = fakeFS(t, "").SelfMountInfo()
	if ms != nil || !errors.Is(err, ErrRead) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no procfs: %+v, %v; want ErrRead over ErrNotExist", ms, err)
	}
}
