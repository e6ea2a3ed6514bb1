package schema

import (
	"testing"

	"aorta-probe/internal/pyjson"
)

// TestNotCapturedROCmSide: amdgpu_driver not captured is an absent host
// driver with nothing read; nics names each family with presence unknown.
func TestNotCapturedROCmSide(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    any
		want string
	}{
		{"amdgpu_driver", NotCapturedAMDGPUDriver(), `{"scope": "host_kernel", "status": "absent", "package_name": null, "package_version": null, "package_full_name": null, "package_manager": null, "module_version": null, "module_srcversion": null, "kmd_version": null, "kfd_device_present": false, "kfd_sysfs_present": false}`},
		{"nics", NotCapturedNICs(), `{"ainic": {"present": null}, "broadcom": {"present": null}, "cx7": {"present": null}}`},
	} {
		if got := string(pyjson.EncodeCompact(tc.v)); got != tc.want {
			t.Errorf("%s\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}
