package probe

import (
	"strings"
	"testing"

	"aorta-probe/internal/pyjson"
)

func TestNICRunHostile(t *testing.T) {
	for _, tc := range []struct {
		name, lspci, sudo string
		hang              []string
		want              []string
	}{
		{"lspci never exits", "exec sleep 600", "", []string{"lspci"}, []string{
			"nics.ainic: lspci exceeded 5s timeout", "nics.broadcom: lspci exceeded 5s timeout", "nics.cx7: lspci exceeded 5s timeout"}},
		{"lspci dies by SIGSEGV", "kill -SEGV $$", "", nil, []string{
			"nics.ainic: lspci exited -11 (no stderr)", "nics.broadcom: lspci exited -11 (no stderr)", "nics.cx7: lspci exited -11 (no stderr)"}},
		{"lspci megabytes: present", `case "$2" in 1dd8:1002) yes 'c1:00.0 Ethernet controller' | head -c 6000000;; *) ;; esac`, "", nil, []string{
			"nics.ainic.rdma_devices: ibv_devices not on PATH", "nics.ainic.links: rdma not on PATH"}},
		// The crash takes longer than hangTimeout: only the named
		// "nicctl show version" calls may be cut short.
		{"nicctl under sudo", `case "$2" in 1dd8:1002) echo c1:00.0;; *) ;; esac`, `[ "$1 $2 $3" = "-n -E nicctl" ] || exit 99; case "$5" in version) exec sleep 600;; card) sleep 0.2; kill -SEGV $$;; *) exit 1;; esac`, []string{"nicctl show version"}, []string{
			"nics.ainic.rdma_devices: ibv_devices not on PATH",
			"nics.ainic.links: rdma not on PATH",
			"nics.ainic.nicctl_version: nicctl exited 1 (no stderr; likely sudo-n unavailable)",
			"nics.ainic.card.firmware: nicctl exceeded 5s timeout",
			"nics.ainic.card.host_sw: nicctl exceeded 5s timeout",
			"nics.ainic.card: nicctl exited -11 (no stderr; likely sudo-n unavailable)",
			"nics.ainic.dcqcn: no AINIC RDMA device resolved; cannot query dcqcn"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scripts := map[string]string{"lspci": tc.lspci}
			if tc.sudo != "" {
				scripts["sudo"] = tc.sudo
				scripts["nicctl"] = "exit 99"
			}
			s, _ := toolState(t, scripts, tc.hang...)
			n := collectNICs(s)
			wantReasons(t, s, tc.want...)
			if strings.Contains(tc.name, "present") || tc.sudo != "" {
				if n.AINIC.Present == nil || !*n.AINIC.Present || n.CX7.Present == nil || *n.CX7.Present {
					t.Errorf("nics = %s", pyjson.Encode(n))
				}
			}
		})
	}
	t.Run("sudo missing", func(t *testing.T) {
		s, _ := toolState(t, map[string]string{"lspci": `case "$2" in 1dd8:1002) echo c1:00.0;; esac`, "nicctl": "exit 99", "ibv_devices": "echo rdma0", "rdma": "echo"})
		collectNICs(s)
		wantReasons(t, s,
			"nics.ainic.nicctl_version: failed to invoke sudo ([Errno 2] No such file or directory: 'sudo')",
			"nics.ainic.card.firmware: failed to invoke sudo ([Errno 2] No such file or directory: 'sudo')",
			"nics.ainic.card.host_sw: failed to invoke sudo ([Errno 2] No such file or directory: 'sudo')",
			"nics.ainic.card: failed to invoke sudo ([Errno 2] No such file or directory: 'sudo')",
			"nics.ainic.dcqcn: no AINIC RDMA device resolved; cannot query dcqcn")
	})
}
