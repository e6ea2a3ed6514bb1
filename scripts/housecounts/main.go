// Command housecounts prints two of issue 33's counts over the module's
// Go files (nested modules and testdata aside):
//
//   - every non-test function whose body holds more than -max logic lines
//     (a line of the body holding code, not blank and not only comment),
//     tables aside: a function whose body is one return of a composite
//     literal (probeTable) is listed apart and never an offender;
//
//   - the production files that have a test file beside them named after
//     them (x.go and x_test.go in one folder), and those that have not; a
//     file that declares nothing (a package's doc.go) is no production
//     file: there is nothing in it to test.
//
//     go run ./scripts/housecounts [-max 80] [-v] [MODULE_ROOT]
//
// It exits 1 when a function is over -max, so a script can gate on it.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	max := flag.Int("max", 80, "the most logic lines a function may hold")
	verbose := flag.Bool("v", false, "list the production files without a test beside them")
	flag.Parse()
	root := "."
	if flag.NArg() > 0 {
		root = flag.Arg(0)
	}
	files, err := goFiles(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "housecounts:", err)
		os.Exit(2)
	}
	over, err := report(os.Stdout, files, *max, *verbose)
	if err != nil {
		fmt.Fprintln(os.Stderr, "housecounts:", err)
		os.Exit(2)
	}
	if over > 0 {
		os.Exit(1)
	}
}

// goFiles is every .go file under root, skipping testdata, hidden folders
// and folders holding their own go.mod (nested modules).
func goFiles(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p == root {
				return nil
			}
			name := d.Name()
			if name == "testdata" || strings.HasPrefix(name, ".") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".go") {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// fn is one function's count.
type fn struct {
	where string
	lines int
	table bool
}

// counts are both counts over a list of files.
type counts struct {
	funcs   []fn     // every non-test function, longest first
	prod    []string // the production files
	without []string // those without a test beside them
}

// count reads files and counts.
func count(files []string) (counts, error) {
	var c counts
	have := map[string]bool{}
	for _, p := range files {
		if strings.HasSuffix(p, "_test.go") {
			have[strings.TrimSuffix(p, "_test.go")+".go"] = true
			continue
		}
		fs, declares, err := countFile(p)
		if err != nil {
			return c, err
		}
		c.funcs = append(c.funcs, fs...)
		if declares {
			c.prod = append(c.prod, p)
		}
	}
	for _, p := range c.prod {
		if !have[p] {
			c.without = append(c.without, p)
		}
	}
	sort.SliceStable(c.funcs, func(i, j int) bool { return c.funcs[i].lines > c.funcs[j].lines })
	return c, nil
}

// report writes both counts and returns the number of offenders.
func report(w io.Writer, files []string, max int, verbose bool) (int, error) {
	c, err := count(files)
	if err != nil {
		return 0, err
	}
	over := 0
	fmt.Fprintf(w, "functions over %d logic lines (tables aside):\n", max)
	for _, f := range c.funcs {
		if f.lines > max && !f.table {
			over++
			fmt.Fprintf(w, "  %4d %s\n", f.lines, f.where)
		}
	}
	fmt.Fprintf(w, "  %d offender(s)\n", over)
	for _, f := range c.funcs {
		if f.lines > max && f.table {
			fmt.Fprintf(w, "  table, not counted: %4d %s\n", f.lines, f.where)
		}
	}
	n := len(c.prod) - len(c.without)
	fmt.Fprintf(w, "production files with a test beside them: %d of %d (%.0f%%)\n",
		n, len(c.prod), 100*float64(n)/float64(len(c.prod)))
	if verbose {
		for _, p := range c.without {
			fmt.Fprintf(w, "  without: %s\n", p)
		}
	}
	return over, nil
}

// countFile counts the logic lines of every function of one file, and
// says whether it declares anything (imports aside).
func countFile(p string) ([]fn, bool, error) {
	src, err := os.ReadFile(p)
	if err != nil {
		return nil, false, err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, p, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, false, err
	}
	declares := false
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); !ok || g.Tok != token.IMPORT {
			declares = true
		}
	}
	code := codeLines(fset, p, src)
	var out []fn
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		from := fset.Position(fd.Body.Lbrace).Line
		to := fset.Position(fd.Body.Rbrace).Line
		n := 0
		for l := from + 1; l < to; l++ {
			if code[l] {
				n++
			}
		}
		name := fd.Name.Name
		if fd.Recv != nil && len(fd.Recv.List) == 1 {
			name = recvName(fd.Recv.List[0].Type) + "." + name
		}
		out = append(out, fn{where: fmt.Sprintf("%s:%d %s", p, fset.Position(fd.Pos()).Line, name), lines: n, table: isTable(fd.Body)})
	}
	return out, declares, nil
}

// codeLines is the set of lines holding a token other than a comment.
func codeLines(fset *token.FileSet, p string, src []byte) map[int]bool {
	lines := map[int]bool{}
	var s scanner.Scanner
	file := fset.AddFile(p+"#scan", fset.Base(), len(src))
	s.Init(file, src, nil, 0) // comments skipped
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.SEMICOLON && lit == "\n" {
			continue // inserted at a line's end
		}
		pos0 := file.Position(pos)
		for l := pos0.Line; l <= pos0.Line+strings.Count(lit, "\n"); l++ {
			lines[l] = true
		}
	}
	return lines
}

// isTable reports whether body is one return of a composite literal.
func isTable(body *ast.BlockStmt) bool {
	if len(body.List) != 1 {
		return false
	}
	r, ok := body.List[0].(*ast.ReturnStmt)
	if !ok || len(r.Results) != 1 {
		return false
	}
	_, ok = r.Results[0].(*ast.CompositeLit)
	return ok
}

func recvName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return recvName(t.X)
	case *ast.IndexExpr:
		return recvName(t.X)
	case *ast.IndexListExpr:
		return recvName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return "?"
}
