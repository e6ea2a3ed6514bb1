package probe

import (
	"aorta-probe/internal/pyfmt"
	"aorta-probe/schema"

	"crypto/sha256"
	"encoding/hex"
)

// collectProbeNamespace is probe_namespace
// (docs/fields-process.md#probe_namespace-process): a salted hash of the
// mount namespace handle (else the cgroup namespace handle), so two documents
// can be compared for "same namespace on the same boot" without publishing
// inode numbers. The same row records probe_provenance.identity
// (probe_identity.go), which adds no partial reason.
func collectProbeNamespace(s *state) placeIdentity {
	bootID := s.root.ReadText("/proc/sys/kernel/random/boot_id")
	return placeIdentity{probeNamespace(s, bootID), collectIdentity(s, bootID)}
}

// placeIdentity is the probe_namespace row: the aorta key and the
// provenance identity.
type placeIdentity struct {
	namespace *string
	identity  schema.Identity
}

func probeNamespace(s *state, bootID *string) *string {
	if bootID == nil {
		s.reason("probe_namespace.boot_id: unavailable; fingerprint is local-only")
	}
	if t, err := s.root.Readlink("/proc/self/ns/mnt"); err != nil {
		s.reason("probe_namespace.mount_namespace: /proc/self/ns/mnt unreadable (%s: %s); trying cgroup namespace", pyfmt.ExcType(err), pyfmt.ExcStr(err))
	} else if t != "" {
		h := namespaceKey("mnt", bootID, t)
		return &h
	} else {
		s.reason("probe_namespace.mount_namespace: empty namespace handle; trying cgroup namespace")
	}
	t, err := s.root.Readlink("/proc/self/ns/cgroup")
	switch {
	case err != nil:
		s.reason("probe_namespace.cgroup_namespace: /proc/self/ns/cgroup unreadable (%s: %s)", pyfmt.ExcType(err), pyfmt.ExcStr(err))
	case t == "":
		s.reason("probe_namespace.cgroup_namespace: empty namespace handle")
	default:
		h := namespaceKey("cgroup-ns", bootID, t)
		return &h
	}
	return nil
}

// namespaceKey is probe_namespace's key(kind, token)
// (docs/fields-process.md#probe_namespace-process): the first 16 hex digits
// of SHA-256 over kind NUL boot_id NUL token (kind NUL token, and the prefix
// kind-local, without a boot id).
func namespaceKey(kind string, bootID *string, token string) string {
	material, prefix := kind+"\x00"+token, kind+"-local"
	if bootID != nil {
		material, prefix = kind+"\x00"+*bootID+"\x00"+token, kind
	}
	sum := sha256.Sum256([]byte(material))
	return prefix + ":" + hex.EncodeToString(sum[:])[:16]
}
