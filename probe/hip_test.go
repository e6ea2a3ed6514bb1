package probe

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"aorta-probe/internal/pyjson"
	"aorta-probe/schema"
)

func TestHIPHostile(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		hangs      bool
	}{
		{"never exits", "exec sleep 600", true},
		{"child keeps pipes", "sleep 600 &\nwait", true},
		{"endless output", "exec yes 7.2.53211", true},
		{"megabytes then exits", "yes 7.2.53211 | head -c 6000000\nexit 0", false},
		{"dies by SIGSEGV", "echo 7.2.1\nkill -SEGV $$", false},
		{"empty output", "printf ' \\n\\t'", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hang []string
			if tc.hangs {
				hang = []string{"hipconfig"}
			}
			s, _ := toolState(t, map[string]string{"hipconfig": tc.body}, hang...)
			if h := collectHIP(s); h != (schema.HIP{}) {
				t.Errorf("hip = %s, want all null", pyjson.Encode(h))
			}
			wantReasons(t, s, allHIPReasons()...)
		})
	}
	t.Run("not on PATH", func(t *testing.T) {
		s, root := toolState(t, map[string]string{"hipconfig": "echo 1"})
		if err := os.Chmod(filepath.Join(root, "bin", "hipconfig"), 0o644); err != nil {
			t.Fatal(err)
		}
		collectHIP(s)
		wantReasons(t, s, "hip: hipconfig not on PATH; all hip.* fields = null")
		if len(s.commands) != 0 {
			t.Errorf("ran %d commands", len(s.commands))
		}
	})
	t.Run("one run per flag", func(t *testing.T) {
		s, _ := toolState(t, map[string]string{"hipconfig": `case "$*" in --version) echo " 7.2.53211-e1a6bc5663 ";; --platform) echo amd;; --cpp_config) exit 1;; *) exit 99;; esac`})
		h := collectHIP(s)
		if derefOr(h.Version, "") != "7.2.53211-e1a6bc5663" || derefOr(h.Platform, "") != "amd" || h.Compiler != nil {
			t.Errorf("hip = %s", pyjson.Encode(h))
		}
		wantReasons(t, s, allHIPReasons()[2:]...)
		var argv []string
		for _, c := range s.commands {
			argv = append(argv, strings.Join(c.Argv, " "))
		}
		want := []string{"hipconfig --version", "hipconfig --platform", "hipconfig --compiler", "hipconfig --runtime", "hipconfig --cpp_config"}
		if !reflect.DeepEqual(argv, want) {
			t.Errorf("argv = %q", argv)
		}
	})
}
