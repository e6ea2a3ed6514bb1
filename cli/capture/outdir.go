package capture

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// outDirOptions is --out-dir: one document per node in a shared directory,
// named after the node, with no shell to build the name (docs/usage.md,
// docs/fleet.md).
var outDirOptions = []option{
	{names: []string{"--out-dir"}, value: true, set: func(c *config, name, v string) error {
		if v == "" {
			return errors.New("option " + name + " requires a non-empty directory")
		}
		c.outDir = v
		return nil
	}},
}

// checkOutDir refuses --out-dir together with OUT or -o: one destination.
func (c *config) checkOutDir(positional []string) error {
	if c.outDir != "" && (len(positional) > 0 || c.outFlag != "") {
		return errors.New("give one destination: OUT, -o or --out-dir")
	}
	return nil
}

// outDirPath is the file --out-dir writes: DIR/NODE.json, NODE being the
// first non-empty of $SLURMD_NODENAME (set by slurmd in every task),
// $NODE_NAME (the Kubernetes downward-API convention, spec.nodeName) and
// the host name (uname's nodename), made safe by NodeFileName.
func outDirPath(dir string, lookupEnv func(string) (string, bool), hostname func() (string, error)) string {
	node := ""
	for _, k := range []string{"SLURMD_NODENAME", "NODE_NAME"} {
		if v, _ := lookupEnv(k); v != "" {
			node = v
			break
		}
	}
	if node == "" {
		node, _ = hostname()
	}
	return filepath.Join(dir, NodeFileName(node)+".json")
}

// maxNodeName is the longest NODE, so that NODE.json fits a file name of
// 255 bytes.
const maxNodeName = 250

// NodeFileName makes a node name safe as a file name, one to one: ASCII
// letters, digits, '-', '_' and '.' stay, every other byte (and a leading
// '.', so no name is hidden, "." or "..") becomes %XX, '%' itself
// included, so two different names never share a file. An empty name
// (no variable set and no host name) is "unknown-node". A name longer than maxNodeName once escaped keeps its first bytes and
// ends in '~' and 16 hex digits of its SHA-256.
func NodeFileName(node string) string {
	if node == "" {
		return "unknown-node"
	}
	var b strings.Builder
	for i := 0; i < len(node); i++ {
		c := node[i]
		safe := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '-' || c == '_' || c == '.' && i > 0
		if safe {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	s := b.String()
	if len(s) > maxNodeName {
		s = fmt.Sprintf("%s~%x", s[:maxNodeName-17], sha256.Sum256([]byte(node)))[:maxNodeName]
	}
	return s
}
