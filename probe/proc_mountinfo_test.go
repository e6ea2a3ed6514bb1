package probe

import (
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
