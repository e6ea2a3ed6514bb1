package source

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseOSRelease(t *testing.T) {
	got := ParseOSRelease("# comment\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\nVERSION_ID='12'\nBAD LINE\nQ=\"a\\\"b\\\\c\"\n=x\nID=ubuntu\n")
	want := map[string]string{"PRETTY_NAME": "Debian GNU/Linux 12 (bookworm)", "ID": "ubuntu", "VERSION_ID": "12", "Q": `a"b\c`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func FuzzParseOSRelease(f *testing.F) {
	f.Add("ID=debian\nVERSION_ID=\"12\"\n")
	f.Fuzz(func(t *testing.T, s string) {
		for k := range ParseOSRelease(s) {
			if k == "" || strings.ContainsAny(k, " \t\n") {
				t.Fatalf("bad key %q", k)
			}
		}
	})
}

func TestOSReleaseRead(t *testing.T) {
	for _, tc := range []struct {
		name, archive, path, id string
	}{
		{"etc first", "-- etc/os-release --\nID=debian\n-- usr/lib/os-release --\nID=ubuntu\n", "/etc/os-release", "debian"},
		{"empty etc falls through", "-- etc/os-release --\n\n-- usr/lib/os-release --\nID=ubuntu\n", "/usr/lib/os-release", "ubuntu"},
		{"usr/lib alone", "-- usr/lib/os-release --\nID=rhel\n", "/usr/lib/os-release", "rhel"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := fakeFS(t, tc.archive).OSRelease()
			if err != nil || o.Path != tc.path || o.Fields["ID"] != tc.id {
				t.Errorf("OSRelease = %+v, %v", o, err)
			}
		})
	}
	if o, err := fakeFS(t, "").OSRelease(); !errors.Is(err, ErrRead) || o.Path != "" {
		t.Errorf("none: %+v, %v; want ErrRead", o, err)
	}
}
