package probe

import (
	"aorta-probe/internal/pyfmt"
	"aorta-probe/internal/pyjson"
	"aorta-probe/schema"
)

// theRock is the therock block plus the parsed manifest, which rocm and the
// GEMM libraries read too (one read, shared;
// docs/fields-process.md#therock-filesystem).
type theRock struct {
	block    schema.TheRock
	manifest pyjson.Map[any] // nil without a manifest
}

// collectTheRock is the therock block
// (docs/fields-process.md#therock-filesystem): the TheRock build manifest at
// <core>/share/therock/therock_manifest.json. Its absence is the normal case
// on classic installs and appends no reason; the only reason it appends is
// for patches too deep or too large to record (bounds.go).
func collectTheRock(s *state) theRock {
	t := theRock{block: schema.TheRock{Status: "absent", ManifestPath: s.rocm().manifestPath(), Submodules: []schema.TheRockSubmodule{}}}
	text := s.root.readText(t.block.ManifestPath)
	if text == nil {
		return t
	}
	v, err := pyjson.Decode(*text)
	m, isObj := v.(pyjson.Map[any])
	if err != nil || !isObj {
		return t
	}
	t.manifest = m
	b := &t.block
	b.Status = "present"
	b.RocmVersion = manifestString(m, "rocm_version")
	b.RocmPackageVersion = manifestString(m, "rocm_package_version")
	b.TheRockCommit = manifestString(m, "the_rock_commit")
	b.GithubRunID = manifestString(m, "github_run_id")
	b.GithubJob = manifestString(m, "github_job")
	subs, _ := mget(m, "submodules").([]any)
	for _, e := range subs {
		sm, ok := e.(pyjson.Map[any])
		if !ok {
			continue
		}
		sub := schema.TheRockSubmodule{
			Name:    manifestString(sm, "submodule_name"),
			URL:     manifestString(sm, "submodule_url"),
			PinSHA:  manifestString(sm, "pin_sha"),
			Patches: []any{},
		}
		if p, ok := mget(sm, "patches").([]any); ok {
			if why := valueBound(p); why != "" {
				// Kept out of the document, which must stay loadable
				// (bounds.go).
				s.reason("therock.submodules: patches of %s %s; recorded as []", pyfmt.Repr(deref0(sub.Name)), why)
			} else {
				sub.Patches = p
			}
		}
		if sub.Name != nil && *sub.Name == "rocm-libraries" {
			b.GemmLibrariesCommit = sub.PinSHA // the last one wins
		}
		b.Submodules = append(b.Submodules, sub)
	}
	return t
}

func mget(m pyjson.Map[any], k string) any {
	v, _ := m.Get(k)
	return v
}

// manifestString is therock's cleaning rule
// (docs/fields-process.md#therock-filesystem) applied to m[k]: null, objects,
// arrays and booleans are null; numbers and strings become their Python
// str(), stripped; empty is null.
func manifestString(m pyjson.Map[any], k string) *string {
	var s string
	switch v := mget(m, k).(type) {
	case string:
		s = v
	case pyjson.Number:
		s = pyjson.Str(v)
	default:
		return nil
	}
	if s = pyfmt.Strip(s); s == "" {
		return nil
	}
	return &s
}

func deref0(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
