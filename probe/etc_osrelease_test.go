package probe

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseOSRelease(t *testing.T) {
	got := parseOSRelease("# comment\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\nVERSION_ID='12'\nBAD LINE\nQ=\"a\\\"b\\\\c\"\n=x\nID=ubuntu\n")
	want := map[string]string{"PRETTY_NAME": "Debian GNU/Linux 12 (bookworm)", "ID": "ubuntu", "VERSION_ID": "12", "Q": `a"b\c`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
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
