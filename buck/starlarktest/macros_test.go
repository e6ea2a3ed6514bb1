// Package starlarktest evaluates the Buck2 macros (buck/aorta_probe.bzl) and
// the root BUILD.buck with go.starlark.net against a mocked prelude:
// genrule, sh_test, go_binary and go_library record their kwargs, glob
// matches the real tree, read_config answers from a map. It is its own
// module so that the main module stays free of dependencies.
package starlarktest

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/syntax"
)

// repo is the repository root, two levels up.
var repo, _ = filepath.Abs("../..")

// rule is one recorded rule call.
type rule struct {
	kind   string
	kwargs map[string]starlark.Value
}

func (r rule) str(t *testing.T, k string) string {
	t.Helper()
	v, ok := r.kwargs[k]
	if !ok {
		t.Fatalf("%s has no %s", r.kind, k)
	}
	s, ok := starlark.AsString(v)
	if !ok {
		t.Fatalf("%s.%s is %s, not a string", r.kind, k, v.Type())
	}
	return s
}

func (r rule) strs(t *testing.T, k string) []string {
	t.Helper()
	l, ok := r.kwargs[k].(*starlark.List)
	if !ok {
		t.Fatalf("%s.%s is %v, not a list", r.kind, k, r.kwargs[k])
	}
	var out []string
	for i := 0; i < l.Len(); i++ {
		s, _ := starlark.AsString(l.Index(i))
		out = append(out, s)
	}
	return out
}

func (r rule) dict(t *testing.T, k string) map[string]string {
	t.Helper()
	d, ok := r.kwargs[k].(*starlark.Dict)
	if !ok {
		t.Fatalf("%s.%s is %v, not a dict", r.kind, k, r.kwargs[k])
	}
	out := map[string]string{}
	for _, it := range d.Items() {
		k, _ := starlark.AsString(it[0])
		v, ok := starlark.AsString(it[1])
		if !ok {
			v = it[1].String()
		}
		out[k] = v
	}
	return out
}

// prelude is the mocked prelude of one evaluation.
type prelude struct {
	rules  []rule
	config map[string]string
}

func (p *prelude) recorder(kind string) *starlark.Builtin {
	return starlark.NewBuiltin(kind, func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if len(args) > 0 {
			return nil, &evalError{kind + ": positional arguments are not accepted"}
		}
		r := rule{kind: kind, kwargs: map[string]starlark.Value{}}
		for _, kv := range kwargs {
			r.kwargs[string(kv[0].(starlark.String))] = kv[1]
		}
		p.rules = append(p.rules, r)
		return starlark.None, nil
	})
}

type evalError struct{ msg string }

func (e *evalError) Error() string { return e.msg }

func (p *prelude) globals() starlark.StringDict {
	readConfig := starlark.NewBuiltin("read_config", func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var section, key string
		var def starlark.Value = starlark.None
		if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 2, &section, &key, &def); err != nil {
			return nil, err
		}
		if v, ok := p.config[section+"."+key]; ok {
			return starlark.String(v), nil
		}
		return def, nil
	})
	fail := starlark.NewBuiltin("fail", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
		var parts []string
		for _, a := range args {
			s, ok := starlark.AsString(a)
			if !ok {
				s = a.String()
			}
			parts = append(parts, s)
		}
		return nil, &evalError{"fail: " + strings.Join(parts, " ")}
	})
	glob := starlark.NewBuiltin("glob", func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var include, exclude *starlark.List
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, "include", &include, "exclude?", &exclude); err != nil {
			return nil, err
		}
		var out []starlark.Value
		for i := 0; i < include.Len(); i++ {
			pat, _ := starlark.AsString(include.Index(i))
			matches, _ := filepath.Glob(filepath.Join(repo, pat))
		next:
			for _, m := range matches {
				rel, _ := filepath.Rel(repo, m)
				for j := 0; exclude != nil && j < exclude.Len(); j++ {
					ex, _ := starlark.AsString(exclude.Index(j))
					if ok, _ := filepath.Match(ex, rel); ok {
						continue next
					}
				}
				out = append(out, starlark.String(rel))
			}
		}
		return starlark.NewList(out), nil
	})
	native := starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{
		"genrule": p.recorder("genrule"),
		"sh_test": p.recorder("sh_test"),
	})
	return starlark.StringDict{
		"native": native, "read_config": readConfig, "fail": fail, "glob": glob,
		"go_binary": p.recorder("go_binary"), "go_library": p.recorder("go_library"),
	}
}

// eval runs a BUCK file body that may load //buck:aorta_probe.bzl.
func eval(t *testing.T, config map[string]string, src string) ([]rule, error) {
	t.Helper()
	p := &prelude{config: config}
	g := p.globals()
	var loaded starlark.StringDict
	thread := &starlark.Thread{Name: "BUCK", Load: func(th *starlark.Thread, module string) (starlark.StringDict, error) {
		if module != "//buck:aorta_probe.bzl" {
			return nil, &evalError{"unknown module " + module}
		}
		if loaded == nil {
			var err error
			loaded, err = starlark.ExecFileOptions(syntax.LegacyFileOptions(), th, filepath.Join(repo, "buck/aorta_probe.bzl"), nil, g)
			if err != nil {
				return nil, err
			}
		}
		return loaded, nil
	}}
	_, err := starlark.ExecFileOptions(syntax.LegacyFileOptions(), thread, "BUCK", src, g)
	return p.rules, err
}

const load = `load("//buck:aorta_probe.bzl", "aorta_probe_genrule", "aorta_probe_test")` + "\n"

func one(t *testing.T, rules []rule, err error, kind string) rule {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) != 1 || rules[0].kind != kind {
		t.Fatalf("rules %v, want one %s", rules, kind)
	}
	return rules[0]
}

func TestGenruleDefault(t *testing.T) {
	rules, err := eval(t, nil, load+`aorta_probe_genrule(name = "env")`)
	r := one(t, rules, err, "genrule")
	if got := r.str(t, "cmd"); got != `$(exe root//:aorta-probe) --execution-context buck2_action "$OUT"` {
		t.Errorf("cmd %q", got)
	}
	if r.str(t, "out") != "env.json" || r.str(t, "name") != "env" {
		t.Errorf("out/name %v", r.kwargs)
	}
	if env := r.dict(t, "env"); len(env) != 1 || env["AORTA_PROBE_NONCE"] != "" {
		t.Errorf("env %v", env)
	}
	if l := r.strs(t, "labels"); len(l) != 0 {
		t.Errorf("labels %q", l)
	}
}

func TestGenrulePlacementsAndNonce(t *testing.T) {
	tests := []struct {
		placement string
		label     string
	}{{"local_only", "uses_local_filesystem_abspaths"}, {"prefer_local", "large_copy"}, {"remote", ""}, {"default", ""}}
	for _, tt := range tests {
		t.Run(tt.placement, func(t *testing.T) {
			rules, err := eval(t, map[string]string{"aorta_probe.nonce": "31337"}, load+`aorta_probe_genrule(
    name = "env",
    probe = "//tools:probe",
    placement = "`+tt.placement+`",
    re_image = "docker://registry.example/rocm:6.4",
    args = ["--extended", "it's"],
    labels = ["mine"],
    visibility = ["PUBLIC"],
)`)
			r := one(t, rules, err, "genrule")
			want := `$(exe //tools:probe) --execution-context buck2_action '--extended' 'it'"'"'s' "$OUT"`
			if got := r.str(t, "cmd"); got != want {
				t.Errorf("cmd\n got %s\nwant %s", got, want)
			}
			env := r.dict(t, "env")
			if env["AORTA_PROBE_NONCE"] != "31337" || env["AORTA_RE_IMAGE"] != "docker://registry.example/rocm:6.4" {
				t.Errorf("env %v", env)
			}
			wantLabels := []string{"mine"}
			if tt.label != "" {
				wantLabels = append(wantLabels, tt.label)
			}
			if l := r.strs(t, "labels"); !slices.Equal(l, wantLabels) {
				t.Errorf("labels %q, want %q", l, wantLabels)
			}
			if _, ok := r.kwargs["visibility"]; !ok {
				t.Error("kwargs not passed through")
			}
		})
	}
	_, err := eval(t, nil, load+`aorta_probe_genrule(name = "env", placement = "cloud")`)
	if err == nil || !strings.Contains(err.Error(), `placement must be one of ["default", "local_only", "prefer_local", "remote"], got "cloud"`) {
		t.Errorf("bad placement: %v", err)
	}
}

func TestShTest(t *testing.T) {
	rules, err := eval(t, nil, load+`aorta_probe_test(
    name = "env_test",
    placement = "remote",
    nonce = "n1",
    re_capabilities = {"OSFamily": "linux", "container-image": "docker://img"},
    re_use_case = "aorta",
)`)
	r := one(t, rules, err, "sh_test")
	if r.str(t, "test") != "root//:aorta-probe" {
		t.Errorf("test %v", r.kwargs["test"])
	}
	if a := r.strs(t, "args"); !slices.Equal(a, []string{"--execution-context", "buck2_action", "-"}) {
		t.Errorf("args %q", a)
	}
	if env := r.dict(t, "env"); env["AORTA_PROBE_NONCE"] != "n1" {
		t.Errorf("env %v", env)
	}
	re := r.dict(t, "remote_execution")
	if re["use_case"] != "aorta" || !strings.Contains(re["capabilities"], `"OSFamily": "linux"`) || len(re) != 2 {
		t.Errorf("remote_execution %v", re)
	}

	rules, err = eval(t, nil, load+`aorta_probe_test(name = "t", placement = "prefer_local", re_capabilities = {"a": "b"}, re_use_case = "u")`)
	if re := one(t, rules, err, "sh_test").dict(t, "remote_execution"); re["local_enabled"] != "True" {
		t.Errorf("prefer_local profile %v", re)
	}
	rules, err = eval(t, nil, load+`aorta_probe_test(name = "t", placement = "local_only")`)
	r = one(t, rules, err, "sh_test")
	if _, ok := r.kwargs["remote_execution"]; ok || !slices.Equal(r.strs(t, "labels"), []string{"uses_local_filesystem_abspaths"}) {
		t.Errorf("local_only %v", r.kwargs)
	}
	_, err = eval(t, nil, load+`aorta_probe_test(name = "t", placement = "remote")`)
	if err == nil || !strings.Contains(err.Error(), `placement "remote" needs re_capabilities and re_use_case`) {
		t.Errorf("remote without profile: %v", err)
	}
}

// TestGenruleCommandRuns runs the genrule's command line the way the
// prelude's genrule.sh does (bash -e, cwd the srcs dir, $OUT relative),
// with $(exe ...) replaced by the real static probe built from this tree.
func TestGenruleCommandRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the probe")
	}
	rules, err := eval(t, nil, load+`aorta_probe_genrule(name = "env", args = ["--no-provenance"], nonce = "x")`)
	r := one(t, rules, err, "genrule")
	dir := t.TempDir()
	bin := buildProbe(t, dir)
	cmd := strings.Replace(r.str(t, "cmd"), "$(exe root//:aorta-probe)", bin, 1)
	srcs := filepath.Join(dir, "srcs")
	if err := os.MkdirAll(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(srcs, 0o755); err != nil {
		t.Fatal(err)
	}
	sh := exec.Command("/bin/sh", "-e", "-c", cmd)
	sh.Dir = srcs
	sh.Env = []string{"OUT=../out/env.json", "AORTA_PROBE_NONCE=x", "BUCK_SCRATCH_PATH=buck-out/v2/tmp/root/0123456789abcdef/genrule", "PATH=/usr/bin:/bin"}
	if out, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("genrule command failed: %v\n%s", err, out)
	}
	doc, err := os.ReadFile(filepath.Join(dir, "out/env.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), `"probe_invocation": "buck2_action"`) || strings.Contains(string(doc), "probe_provenance") {
		t.Errorf("document does not look right:\n%.400s", doc)
	}
}

// buildProbe builds the static probe from this tree as dir/aorta-probe.
func buildProbe(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "aorta-probe")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = repo
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// defaultBuildFiles are the names Buck2 looks for without a [buildfile]
// name setting (docs/buck2.md).
var defaultBuildFiles = []string{"BUCK.v2", "BUCK"}

// buildFileNames is [buildfile] name of a buckconfig (comma- or
// space-separated), or the defaults without one.
func buildFileNames(config string) []string {
	section := ""
	for _, line := range strings.Split(config, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";"):
		case strings.HasPrefix(line, "["):
			section = strings.Trim(line, "[] ")
		case section == "buildfile":
			k, v, ok := strings.Cut(line, "=")
			if ok && strings.TrimSpace(k) == "name" {
				return strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
			}
		}
	}
	return defaultBuildFiles
}

// buildFile loads the package's build file the way Buck2 finds it: the
// first of the names the buckconfig's [buildfile] name gives that exists.
// The repository's own .buckconfig when there is one, else the fragment
// docs/buck2.md tells a project to use (buck/buckconfig).
func buildFile(t *testing.T) (name, src string) {
	t.Helper()
	config, err := os.ReadFile(filepath.Join(repo, ".buckconfig"))
	if err != nil {
		if config, err = os.ReadFile(filepath.Join(repo, "buck", "buckconfig")); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range buildFileNames(string(config)) {
		if b, err := os.ReadFile(filepath.Join(repo, n)); err == nil {
			return n, string(b)
		}
	}
	t.Fatalf("no build file named %q at the repo root", buildFileNames(string(config)))
	return "", ""
}

// TestBuildFileName: without the [buildfile] setting Buck2 finds no build
// file at the repo root (the default names), with it BUILD.buck.
func TestBuildFileName(t *testing.T) {
	for _, n := range buildFileNames("") {
		if _, err := os.Stat(filepath.Join(repo, n)); err == nil {
			t.Errorf("%s exists: the default names would find it, docs/buck2.md says they do not", n)
		}
	}
	if name, _ := buildFile(t); name != "BUILD.buck" {
		t.Errorf("the build file found is %s, want BUILD.buck", name)
	}
}

func TestBuildFile(t *testing.T) {
	_, src := buildFile(t)
	rules, err := eval(t, nil, src)
	if err != nil {
		t.Fatal(err)
	}
	libs := map[string]bool{}
	var bin *rule
	for i, r := range rules {
		srcs := r.strs(t, "srcs")
		if len(srcs) == 0 {
			t.Errorf("%s %s: glob matched nothing", r.kind, r.str(t, "name"))
		}
		for _, s := range srcs {
			if strings.HasSuffix(s, "_test.go") {
				t.Errorf("%s includes test file %s", r.str(t, "name"), s)
			}
		}
		switch r.kind {
		case "go_library":
			pkg := r.str(t, "package_name")
			libs[pkg] = true
			dir := strings.TrimPrefix(pkg, "aorta-probe/")
			for _, s := range srcs {
				if filepath.Dir(s) != dir {
					t.Errorf("%s: %s is outside %s", pkg, s, dir)
				}
			}
		case "go_binary":
			bin = &rules[i]
		}
	}
	if bin == nil {
		t.Fatal("no go_binary")
	}
	if v, ok := bin.kwargs["cgo_enabled"]; !ok || v != starlark.False {
		t.Errorf("cgo_enabled = %v, want False", v)
	}
	if bin.str(t, "name") != "aorta-probe" || !slices.Contains(bin.strs(t, "srcs"), "main.go") {
		t.Errorf("binary %v", bin.kwargs)
	}
	// Every non-test package of the main module that the binary links has
	// a go_library.
	list := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".")
	list.Dir = repo
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p != "aorta-probe" && !libs[p] {
			t.Errorf("BUILD.buck has no go_library for %s", p)
		}
	}
	// Every rule's deps are the module's packages its sources import, no
	// more, no fewer (a move or a new import keeps BUILD.buck in step).
	pkgOf := map[string]string{}
	for _, r := range rules {
		pkg := "aorta-probe"
		if r.kind == "go_library" {
			pkg = r.str(t, "package_name")
		}
		pkgOf[":"+r.str(t, "name")] = pkg
	}
	imports := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...")
	imports.Dir = repo
	out, err = imports.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	want := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		for _, imp := range f[1:] {
			if imp == "aorta-probe" || strings.HasPrefix(imp, "aorta-probe/") {
				want[f[0]] = append(want[f[0]], imp)
			}
		}
	}
	for _, r := range rules {
		var got []string
		if _, ok := r.kwargs["deps"]; ok {
			for _, d := range r.strs(t, "deps") {
				got = append(got, pkgOf[d])
			}
		}
		pkg := pkgOf[":"+r.str(t, "name")]
		slices.Sort(got)
		w := slices.Clone(want[pkg])
		slices.Sort(w)
		if !slices.Equal(got, w) {
			t.Errorf("%s: deps name %v, its sources import %v", r.str(t, "name"), got, w)
		}
	}
}

const loadEnvNames = `load("//buck:aorta_probe.bzl", "aorta_probe_env_names")` + "\n"

// TestEnvNames: the env-markers macro makes a local-only and a remote
// genrule running `aorta-probe env-names "$OUT"`, with the nonce env.
func TestEnvNames(t *testing.T) {
	rules, err := eval(t, map[string]string{"aorta_probe.nonce": "n1"}, loadEnvNames+
		`aorta_probe_env_names(name = "markers", re_image = "img", labels = ["x"], visibility = ["PUBLIC"])`)
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) != 2 {
		t.Fatalf("rules %v, want two genrules", rules)
	}
	want := []struct{ name, out, label string }{
		{"markers-local", "env-names-local.json", "uses_local_filesystem_abspaths"},
		{"markers-remote", "env-names-remote.json", ""},
	}
	for i, w := range want {
		r := rules[i]
		if r.kind != "genrule" || r.str(t, "name") != w.name || r.str(t, "out") != w.out {
			t.Errorf("rule %d: %s %v", i, r.kind, r.kwargs)
		}
		if got := r.str(t, "cmd"); got != `$(exe root//:aorta-probe) env-names "$OUT"` {
			t.Errorf("%s cmd %q", w.name, got)
		}
		labels := r.strs(t, "labels")
		wantLabels := []string{"x"}
		if w.label != "" {
			wantLabels = append(wantLabels, w.label)
		}
		if !slices.Equal(labels, wantLabels) {
			t.Errorf("%s labels %q, want %q", w.name, labels, wantLabels)
		}
		if env := r.dict(t, "env"); env["AORTA_PROBE_NONCE"] != "n1" || env["AORTA_RE_IMAGE"] != "img" {
			t.Errorf("%s env %v", w.name, env)
		}
		if _, ok := r.kwargs["visibility"]; !ok {
			t.Errorf("%s lost visibility", w.name)
		}
	}
}

// TestEnvNamesCommandRuns runs the remote genrule's command with the real
// binary: the output holds names and the allow-listed marker values, never
// another variable's value.
func TestEnvNamesCommandRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the probe")
	}
	rules, err := eval(t, nil, loadEnvNames+`aorta_probe_env_names(name = "m")`)
	if err != nil || len(rules) != 2 {
		t.Fatalf("%v %v", rules, err)
	}
	dir := t.TempDir()
	bin := buildProbe(t, dir)
	cmd := strings.Replace(rules[1].str(t, "cmd"), "$(exe root//:aorta-probe)", bin, 1)
	sh := exec.Command("/bin/sh", "-e", "-c", cmd)
	sh.Dir = dir
	sh.Env = []string{"OUT=" + filepath.Join(dir, "names.json"), "BUCK_SCRATCH_PATH=buck-out/v2/tmp/x", "SECRET_TOKEN=hunter2", "PATH=/usr/bin:/bin"}
	if out, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("command failed: %v\n%s", err, out)
	}
	doc, err := os.ReadFile(filepath.Join(dir, "names.json"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(doc)
	if !strings.Contains(s, `"SECRET_TOKEN"`) || strings.Contains(s, "hunter2") || strings.Contains(s, "/usr/bin") ||
		!strings.Contains(s, `"BUCK_SCRATCH_PATH": "buck-out/v2/tmp/x"`) {
		t.Errorf("env-names output:\n%s", s)
	}
}
