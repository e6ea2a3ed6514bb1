package probe

import (
	"syscall"

	"aorta-probe/internal/lazyre"
	"aorta-probe/internal/machine"
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
// on classic installs and appends no reason. A manifest that is there but
// unusable (empty, unreadable, not JSON, not an object) gives status
// "invalid" and one "therock: …" reason, and rocm and the GEMM libraries see
// no manifest. A usable one appends a reason when submodules are malformed
// (manifestSubmodules), and for patches too deep or too large to record
// (bounds.go).
func collectTheRock(s *state) theRock {
	t := theRock{block: absentTheRock(s.rocm().manifestPath())}
	m, why := readManifest(s.root, t.block.ManifestPath)
	if why != "" {
		t.block.Status = "invalid"
		s.reason("therock: %s", why)
		return t
	}
	if m == nil {
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
	manifestSubmodules(s, m, b)
	return t
}

func absentTheRock(path string) schema.TheRock {
	return schema.TheRock{Status: "absent", ManifestPath: path, Submodules: []schema.TheRockSubmodule{}}
}

// readManifest reads the manifest at p as the Python probe does (read-text,
// then JSON). It returns the object, or nil and "" when there is no file
// (ENOENT on lstat: absent, no reason), or the reason text of an invalid
// manifest, in the Python probe's words:
//
//	<p> could not be checked (<exc>)           no text, and lstat failed otherwise
//	<p> present but empty or unreadable        no text, but something is there
//	<p> is not valid JSON (<exc>)              positions in the stripped text
//	<p> is a JSON <type>, not an object        list, str, int, float, bool, NoneType
func readManifest(root *machine.FS, p string) (pyjson.Map[any], string) {
	text := root.ReadText(p)
	if text == nil {
		_, err := root.Lstat(p)
		switch {
		case err == nil:
			return nil, p + " present but empty or unreadable"
		case isENOENT(err):
			return nil, ""
		default:
			return nil, p + " could not be checked (" + pyfmt.ExcStr(err) + ")"
		}
	}
	return readManifestText(*text, p)
}

// readManifestText is readManifest's JSON step over the stripped text of
// the manifest at p.
func readManifestText(text, p string) (pyjson.Map[any], string) {
	v, err := pyjson.Decode(text)
	if err != nil {
		return nil, p + " is not valid JSON (" + err.Error() + ")"
	}
	m, ok := v.(pyjson.Map[any])
	if !ok {
		return nil, p + " is a JSON " + pyjson.TypeName(v) + ", not an object"
	}
	return m, ""
}

func isENOENT(err error) bool {
	en, ok := pyfmt.Errno(err)
	return ok && en == syscall.ENOENT
}

// manifestSubmodules fills b.Submodules and b.GemmLibrariesCommit from the
// manifest's submodules array: each object element (others skipped) with
// its name, url and pin cleaned (the pin by manifestPin), and the
// rocm-libraries pin of the last such entry. Malformed entries are counted
// into one reason: the non-array value or non-object elements (unusable),
// the kept entries without a name (unnamed) or without a full pin
// (unpinned).
func manifestSubmodules(s *state, m pyjson.Map[any], b *schema.TheRock) {
	var unusable, unnamed, unpinned int
	raw, present := m.Get("submodules")
	subs, isList := raw.([]any)
	if present && raw != nil && !isList {
		unusable++
	}
	for _, e := range subs {
		sm, ok := e.(pyjson.Map[any])
		if !ok {
			unusable++
			continue
		}
		sub := schema.TheRockSubmodule{
			Name:    manifestString(sm, "submodule_name"),
			URL:     manifestString(sm, "submodule_url"),
			PinSHA:  manifestPin(sm),
			Patches: []any{},
		}
		if sub.Name == nil {
			unnamed++
		}
		if sub.PinSHA == nil {
			unpinned++
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
			b.GemmLibrariesCommit = sub.PinSHA // the last one wins, even null
		}
		b.Submodules = append(b.Submodules, sub)
	}
	if unusable+unnamed+unpinned > 0 {
		s.reason("therock.submodules: %d unusable, %d unnamed and %d without a full 40-char pin_sha in %s", unusable, unnamed, unpinned, b.ManifestPath)
	}
}

// fullPin is a whole commit id: 40 lower-case hex digits.
var fullPin = lazyre.New(`^[0-9a-f]{40}$`)

// manifestPin is a submodule's pin_sha cleaned as manifestString, then
// lower-cased, and kept only when it is a full 40-hex commit id (a 40-digit
// JSON integer passes); else nil.
func manifestPin(sm pyjson.Map[any]) *string {
	p := manifestString(sm, "pin_sha")
	if p == nil {
		return nil
	}
	low := pyfmt.Lower(*p)
	if !fullPin().MatchString(low) {
		return nil
	}
	return &low
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
