package probe

import "strings"

// pathlibStr is str(pathlib.PurePosixPath(p)): repeated slashes, trailing
// slashes and "." segments collapse, ".." is kept, exactly two leading
// slashes are kept (POSIX), "" becomes ".". Unlike os.path.abspath nothing
// is made absolute.
func pathlibStr(p string) string {
	lead := ""
	switch {
	case strings.HasPrefix(p, "//") && !strings.HasPrefix(p, "///"):
		lead = "//"
	case strings.HasPrefix(p, "/"):
		lead = "/"
	}
	var parts []string
	for _, c := range strings.Split(p, "/") {
		if c != "" && c != "." {
			parts = append(parts, c)
		}
	}
	s := lead + strings.Join(parts, "/")
	if s == "" {
		return "."
	}
	return s
}

// pathlibJoin is str(PurePosixPath(dir) / name) for a plain name.
func pathlibJoin(dir, name string) string {
	return pathlibStr(pathlibStr(dir) + "/" + name)
}
