package source

import (
	"errors"
	"io/fs"
	"reflect"
	"testing"
)

func TestParseProcStatus(t *testing.T) {
	st := ParseProcStatus("Name:\taorta-probe\nPid:\t1\nPPid:\t0\nTracerPid:\t0\nNSpid:\t4182\t1\nUid:\t0 0 0 0\n")
	if st.Pid != 1 || st.PPid != 0 || !reflect.DeepEqual(st.NSpid, []int{4182, 1}) || !st.Has["PPid"] {
		t.Errorf("got %+v", st)
	}
	bad := ParseProcStatus("Pid:\tx\nNSpid:\t1 y\nPPid\n")
	if bad.Has["Pid"] || bad.Has["NSpid"] || bad.Has["PPid"] {
		t.Errorf("malformed lines accepted: %+v", bad)
	}
}

func FuzzParseProcStatus(f *testing.F) {
	f.Add("Pid:\t1\nPPid:\t0\nNSpid:\t4182\t1\n")
	f.Fuzz(func(t *testing.T, s string) {
		st := ParseProcStatus(s)
		if st.Has["NSpid"] && len(st.NSpid) == 0 {
			t.Fatal("NSpid marked present but empty")
		}
	})
}

func TestProcStatusRead(t *testing.T) {
	src := fakeFS(t, "-- proc/self/status --\nPid:\t7\nNSpid:\t7\t1\n-- proc/1/status --\nPid:\t1\n")
	if st, err := src.ProcStatus("self"); err != nil || st.Pid != 7 || len(st.NSpid) != 2 {
		t.Errorf("ProcStatus(self) = %+v, %v", st, err)
	}
	if st, err := src.ProcStatus("1"); err != nil || st.Pid != 1 || !st.Has["Pid"] {
		t.Errorf("ProcStatus(1) = %+v, %v", st, err)
	}
	st, err := src.ProcStatus("2")
	if !errors.Is(err, ErrRead) || !errors.Is(err, fs.ErrNotExist) || st.Has == nil || len(st.Has) != 0 {
		t.Errorf("ProcStatus(2) = %+v, %v; want an empty status and ErrRead", st, err)
	}
}
