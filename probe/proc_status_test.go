package probe

import (
	"reflect"
	"testing"
)

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

func FuzzParseProcStatus(f *testing.F) {
	f.Add("Pid:\t1\nPPid:\t0\nNSpid:\t4182\t1\n")
	f.Fuzz(func(t *testing.T, s string) {
		st := parseProcStatus(s)
		if st.Has["NSpid"] && len(st.NSpid) == 0 {
			t.Fatal("NSpid marked present but empty")
		}
	})
}
