package probe

import (
	"archive/zip"
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// helperBootstrap is the first part of python_helper.stdin, before the
// base64 text; helperBootstrapEnd the rest.
const (
	helperBootstrap    = `import zlib,binascii;exec(compile(zlib.decompress(binascii.a2b_base64(b"`
	helperBootstrapEnd = `")),"<aorta-probe helper>","exec"))` + "\n"
)

// strippedHelper is python_helper.py without its comment-only and blank
// lines (no multi-line string of the helper holds such a line; the test
// checks the result parses to the same syntax tree).
func strippedHelper(t *testing.T) []byte {
	t.Helper()
	src, err := os.ReadFile("python_helper.py")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for _, l := range strings.Split(string(src), "\n") {
		if tl := strings.TrimSpace(l); tl == "" || strings.HasPrefix(tl, "#") {
			if strings.HasPrefix(l, "# lazy: ") || strings.HasPrefix(l, "# end lazy: ") {
				out.WriteString(l + "\n") // kept for shippedHelper
			}
			continue
		}
		out.WriteString(l + "\n")
	}
	return out.Bytes()
}

// shippedHelper is the code python_helper.stdin carries: the stripped
// helper with each block between "# lazy: NAME" and "# end lazy: NAME"
// turned into the string _LAZY["NAME"], which load_lazy compiles on first
// use (compiling costs about 0.1 ms per KiB of code, here 1.3 ms for
// torchrec's identity code that most machines never need).
func shippedHelper(t *testing.T) []byte {
	t.Helper()
	var out, lazy bytes.Buffer
	name := ""
	for _, l := range strings.SplitAfter(string(strippedHelper(t)), "\n") {
		switch {
		case strings.HasPrefix(l, "# lazy: "):
			name = strings.TrimSpace(strings.TrimPrefix(l, "# lazy: "))
			lazy.Reset()
		case strings.HasPrefix(l, "# end lazy: "):
			if got := strings.TrimSpace(strings.TrimPrefix(l, "# end lazy: ")); got != name {
				t.Fatalf("lazy block %q ends as %q", name, got)
			}
			fmt.Fprintf(&out, "_LAZY[%s] = %s\n", strconv.QuoteToASCII(name), strconv.QuoteToASCII(lazy.String()))
			name = ""
		case name != "":
			lazy.WriteString(l)
		default:
			out.WriteString(l)
		}
	}
	if name != "" {
		t.Fatalf("lazy block %q not ended", name)
	}
	return out.Bytes()
}

// TestHelperStdin: python_helper.stdin is the current python_helper.py
// (shippedHelper), and stripping its comments changed no syntax (python3's
// ast, when python3 is on PATH). -update rewrites it. That the shipped
// code reports what the source does is TestHelperDifferential's job.
func TestHelperStdin(t *testing.T) {
	want := shippedHelper(t)
	if *update {
		var z bytes.Buffer
		w, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
		w.Write(want)
		w.Close()
		payload := helperBootstrap + base64.StdEncoding.EncodeToString(z.Bytes()) + helperBootstrapEnd
		if err := os.WriteFile("python_helper.stdin", []byte(payload), 0o644); err != nil {
			t.Fatal(err)
		}
		pythonHelperStdin = []byte(payload)
	}
	got := string(pythonHelperStdin)
	if !strings.HasPrefix(got, helperBootstrap) || !strings.HasSuffix(got, helperBootstrapEnd) {
		t.Fatalf("python_helper.stdin is not the bootstrap: %.120q", got)
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(strings.TrimPrefix(got, helperBootstrap), helperBootstrapEnd))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zlib.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	code, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(code, want) {
		t.Fatal("python_helper.stdin is stale: run go test ./probe -run TestHelperStdin -update")
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not on PATH: the syntax check of the stripped helper is skipped")
	}
	cmd := exec.Command(python, "-c", `import ast, sys
a = ast.dump(ast.parse(open(sys.argv[1]).read()))
b = ast.dump(ast.parse(sys.stdin.read()))
sys.exit(0 if a == b else "the stripped helper parses differently")`, "python_helper.py")
	var plain bytes.Buffer
	for _, l := range strings.SplitAfter(string(strippedHelper(t)), "\n") {
		if !strings.HasPrefix(l, "# ") {
			plain.WriteString(l)
		}
	}
	cmd.Stdin = &plain
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("%v: %s", err, out)
	}
}

// helperStreamOf runs python with the given stdin (and extra argv) in dir
// with PYTHONPATH=site and returns the helper's elements, torch.maps
// reduced to whether it was read (its addresses differ between runs).
func helperStreamOf(t *testing.T, python, dir, site string, stdin []byte, args ...string) []any {
	t.Helper()
	cmd := exec.Command(python, append([]string{"-"}, args...)...)
	cmd.Dir, cmd.Stdin = dir, bytes.NewReader(stdin)
	path := site
	for _, extra := range []string{"torchrec-1.0-py3.egg", "d.zip"} {
		if _, err := os.Stat(filepath.Join(site, extra)); err == nil {
			path += ":" + filepath.Join(site, extra)
		}
	}
	cmd.Env = append(os.Environ(), "PYTHONPATH="+path)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %v", cmd.Args, err)
	}
	var els []any
	if err := json.Unmarshal(out, &els); err != nil {
		t.Fatalf("%v: %v\n%s", cmd.Args, err, out)
	}
	for _, e := range els {
		if m, ok := e.(map[string]any)["torch"].(map[string]any); ok {
			m["maps"] = m["maps"] != nil
		}
	}
	return els
}

// TestHelperDifferential: the shipped helper (stdin payload, every speed
// shortcut on: its own JSON writer, find_spec without importlib.util,
// importlib.metadata only where a distribution may exist, no platform on
// CPython, torchrec's code compiled lazily) reports exactly what the
// source does with every shortcut off (--exact), on site trees with and
// without each package and distribution, a distribution without its
// package, a namespace torchrec, an .egg and a zip on the path.
func TestHelperDifferential(t *testing.T) {
	python := needPython(t)
	src, err := os.ReadFile("python_helper.py")
	if err != nil {
		t.Fatal(err)
	}
	sites := map[string]func(t *testing.T, site string){
		"empty": func(t *testing.T, site string) {},
		"all":   func(t *testing.T, site string) { fakeSiteA(t, site) },
		"dists only": func(t *testing.T, site string) {
			writeFiles(t, site, map[string]string{
				"torchrec-1.4.0.dist-info/METADATA":      "Name: torchrec\nVersion: 1.4.0\n",
				"rocm-7.2.1.dist-info/METADATA":          "Name: rocm\nVersion: 7.2.1\n",
				"rocm_sdk_core-7.2.1.dist-info/METADATA": "Name: rocm-sdk-core\nVersion: 7.2.1\n",
				"AIter-0.2.dist-info/METADATA":           "Name: aiter\nVersion: 0.2\n",
				"_rocm_sdk_core/__init__.py":             "",
			})
		},
		"an egg and a zip on the path": func(t *testing.T, site string) {
			writeFiles(t, site, map[string]string{
				"torchrec-1.0-py3.egg/EGG-INFO/PKG-INFO":    "Metadata-Version: 1.0\nName: torchrec\nVersion: 1.0\n",
				"torchrec-1.0-py3.egg/torchrec/__init__.py": "",
			})
			var zb bytes.Buffer
			zw := zip.NewWriter(&zb)
			w, _ := zw.Create("rocm-7.0.dist-info/METADATA")
			w.Write([]byte("Name: rocm\nVersion: 7.0\n"))
			zw.Close()
			if err := os.WriteFile(filepath.Join(site, "d.zip"), zb.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		},
		"namespace torchrec, broken version": func(t *testing.T, site string) {
			writeFiles(t, site, map[string]string{
				"torchrec/sub/x.py":             "",
				"torchrec-9.dist-info/METADATA": "Name: torchrec\nVersion: not a version\n",
				"amd-aiter.egg-info":            "Metadata-Version: 1.0\nName: amd-aiter\nVersion: 0.3\n",
			})
		},
	}
	for name, fill := range sites {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			site := filepath.Join(dir, "site")
			os.MkdirAll(site, 0o755)
			fill(t, site)
			want := helperStreamOf(t, python, dir, site, src, "--exact")
			got := helperStreamOf(t, python, dir, site, pythonHelperStdin)
			if !reflect.DeepEqual(got, want) {
				wj, _ := json.MarshalIndent(want, "", " ")
				gj, _ := json.MarshalIndent(got, "", " ")
				t.Errorf("shipped helper differs from --exact source\n got %s\nwant %s", gj, wj)
			}
		})
	}
}
