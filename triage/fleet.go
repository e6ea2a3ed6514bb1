package triage

import (
	"aorta-probe/internal/docread"
	"fmt"

	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// leaf is one flattened identity field of a document.
type leaf struct {
	path  string
	value string // shown(value)
}

// flatten lists every leaf of d a fleet tallies: the identity and
// placement fields (tallied, fields.go; a node without /dev/kfd is an
// outlier too), never ignored fields, per-node ids or env_vars names off
// the canonical list.
func flatten(d *Document) []leaf {
	var out []leaf
	// joined is path with dots; it may be a slice of the document's text
	// (a one-key path): the tally clones what it keeps.
	var walk func(v any, path []string, joined string)
	walk = func(v any, path []string, joined string) {
		if len(path) > 0 {
			if !tallied(path) {
				return
			}
		}
		if m, ok := v.(object); ok && len(m) > 0 {
			for _, e := range m {
				child := e.Key
				if joined != "" {
					child = joined + "." + e.Key
				}
				walk(e.Value, append(path[:len(path):len(path)], e.Key), child)
			}
			return
		}
		out = append(out, leaf{joined, shown(v)})
	}
	walk(d.root, nil, "")
	for _, key := range fieldsOnce().provenance {
		if v, ok := d.Lookup("probe_provenance." + key); ok {
			walk(v, []string{"probe_provenance", key}, "probe_provenance."+key)
		}
	}
	// The GPUs, projected onto fields every node shares (gpus.go).
	out = append(out, gpuLeaves(d)...)
	// The tuning settings, projected likewise (tuning.go).
	out = append(out, tuningLeaves(d)...)
	return out
}

// FleetDoc is one document's name and flattened fields, or why it could
// not be read.
type FleetDoc struct {
	Name   string
	Err    error
	leaves []leaf
	place  fleetPlace
	// lacks are the optional blocks the document does not carry: its
	// fields under them are compared with no one.
	lacks blockSet
	// Problems counts what validate finds in a document read (Document.Problems).
	Problems int
}

// FleetResult is the outcome of Fleet.
type FleetResult struct {
	// Documents is how many documents were read.
	Documents int
	// Unreadable are the documents that could not be read, with why.
	Unreadable []FleetDoc
	// SchemaProblems are the documents read in which validate finds
	// problems, with their count (diff notes each on stderr).
	SchemaProblems []FleetDoc
	// Majority is every field on which a strict majority agrees, in rank
	// order.
	Majority []MajorityField
	// Outliers are the documents that differ from a majority, by name.
	Outliers []Outlier
	// Split are the fields without a strict majority: they vary across
	// the fleet and are not used to flag nodes.
	Split []SplitField
	// Groups partition the documents when a software, driver, GPU or
	// placement field has no strict majority (a fleet split in two): each
	// group with its size and its values of those fields. Empty when
	// every such field has a majority.
	Groups []FleetGroup
	// Places says what the documents' boot fingerprints and mount
	// namespace ids show: several boots, several containers of one
	// machine, copies of one place. The summary lines come first, then
	// one line per boot.
	Places []string
	// ListAll makes the text and Markdown reports list every document of
	// a group, every place and every unreadable document (diff --fleet
	// --all); without it each such list stops after a few with
	// "… and N more" (Listed). The JSON lists every one.
	ListAll bool
}

// MajorityField is a field's majority value.
type MajorityField struct {
	Key   string
	Group Group
	Value Value
	Count int
	// Of is how many documents were compared on the field: Documents but
	// those without an optional block it lies under (fields.go).
	Of int
}

// Outlier is one document and the majority fields it differs on.
type Outlier struct {
	Name        string
	Differences []FleetDifference
}

// FleetDifference is one field where a document leaves the majority.
type FleetDifference struct {
	Key      string
	Group    Group
	Rank     int
	Value    Value
	Majority Value
	Count    int // documents holding the majority value
	Of       int // documents compared on the field (MajorityField.Of)
	Why      string
}

// SplitField is a field without a strict majority.
type SplitField struct {
	Key      string
	Distinct int
	Top      int // documents holding the commonest value
	Of       int // documents compared on the field (MajorityField.Of)
}

// ExitCode: 0 no outlier, 1 outliers or a fleet split without a majority
// (groups), 2 unreadable documents.
func (f *FleetResult) ExitCode() int {
	switch {
	case len(f.Unreadable) > 0:
		return 2
	case len(f.Outliers) > 0 || len(f.Groups) > 1:
		return 1
	}
	return 0
}

// ExpandFleet turns the command-line operands into document paths: a
// directory contributes its *.json files (not recursive), sorted.
func ExpandFleet(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		fi, err := os.Stat(a)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", a, unwrapPath(err))
		}
		if !fi.IsDir() {
			out = append(out, a)
			continue
		}
		m, err := filepath.Glob(filepath.Join(a, "*.json"))
		if err != nil {
			return nil, err
		}
		slices.Sort(m)
		out = append(out, m...)
	}
	return out, nil
}

// Fleet reads the documents at paths, at most workers at a time (0 means
// GOMAXPROCS), keeping only their flattened identity fields, and finds
// the majority and the outliers. Memory stays bounded by the workers'
// documents in flight plus one small value index per field and document.
func Fleet(paths []string, workers int) *FleetResult {
	return fleetOf(len(paths), func(i int) FleetDoc { return readFleetDoc(paths[i]) }, workers)
}

// readFleetDoc reads, parses and flattens one fleet document. Nothing it
// returns may point into the document's text (the tally keeps it).
func readFleetDoc(p string) FleetDoc {
	text, err := readText(p)
	if err != nil {
		return FleetDoc{Name: p, Err: fmt.Errorf("%s: %v", p, unwrapPath(err))}
	}
	d, err := Parse(p, text)
	if err != nil {
		return FleetDoc{Name: p, Err: err}
	}
	return FleetDoc{Name: p, leaves: flatten(d), place: placeOf(d), lacks: lacking(d), Problems: d.Problems}
}

// fleetOf runs load for 0..n-1 on workers goroutines and tallies the
// results in index order.
func fleetOf(n int, load func(int) FleetDoc, workers int) *FleetResult {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	results := make([]chan FleetDoc, n)
	for i := range results {
		results[i] = make(chan FleetDoc, 1)
	}
	// window bounds the results read ahead of the tally (a slow document
	// must not let the others pile up): a slot is taken before a document
	// is handed out and given back when its result is tallied.
	window := make(chan struct{}, 4*workers)
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(workers, max(n, 1)) {
		wg.Go(func() {
			for i := range next {
				results[i] <- load(i)
			}
		})
	}
	go func() {
		for i := range n {
			window <- struct{}{}
			next <- i
		}
		close(next)
		wg.Wait()
	}()

	t := newTally()
	res := &FleetResult{}
	for i := range n {
		d := <-results[i]
		results[i] = nil
		<-window
		if d.Err != nil {
			res.Unreadable = append(res.Unreadable, d)
			continue
		}
		if d.Problems > 0 {
			res.SchemaProblems = append(res.SchemaProblems, FleetDoc{Name: d.Name, Problems: d.Problems})
		}
		t.add(d)
	}
	t.finish(res)
	return res
}

// tally interns paths and values: each document keeps one small integer
// per field.
type tally struct {
	paths  map[string]int
	fields []*fieldTally
	names  []string
	rows   [][]int32 // per document: value id per field (0 = absent)
	places []fleetPlace
	lacks  []blockSet
	pool   rowPool // shares equal rows (fleet_memory.go)
}

type fieldTally struct {
	path   string
	ids    map[string]int32
	values []string // id-1 -> value
}

func newTally() *tally { return &tally{paths: map[string]int{}} }

func (t *tally) add(d FleetDoc) {
	row := make([]int32, len(t.fields), len(t.fields)+8)
	for _, l := range d.leaves {
		fi, ok := t.paths[l.path]
		if !ok {
			// Clone: a path may be a slice of the document's text, which
			// must not stay alive.
			p := strings.Clone(l.path)
			fi = len(t.fields)
			t.paths[p] = fi
			t.fields = append(t.fields, &fieldTally{path: p, ids: map[string]int32{}})
		}
		f := t.fields[fi]
		id, ok := f.ids[l.value]
		if !ok {
			v := strings.Clone(l.value)
			f.values = append(f.values, v)
			id = int32(len(f.values))
			f.ids[v] = id
		}
		for len(row) <= fi {
			row = append(row, 0)
		}
		row[fi] = id
	}
	t.names = append(t.names, d.Name)
	t.rows = append(t.rows, t.pool.intern(row))
	t.places = append(t.places, d.place)
	t.lacks = append(t.lacks, d.lacks)
}

func (t *tally) finish(res *FleetResult) {
	res.Documents = len(t.rows)
	byName := map[string]*Outlier{}
	var order []string
	var splitting []int
	for fi, f := range t.fields {
		compared := t.compared(f.path)
		counts, n, top, distinct := t.count(fi, compared)
		path := strings.Split(f.path, ".")
		rank, group, why := classifyFleet(path)
		if counts[top]*2 <= n {
			res.Split = append(res.Split, SplitField{Key: f.path, Distinct: distinct, Top: counts[top], Of: n})
			if splits(group) {
				splitting = append(splitting, fi)
			}
			continue
		}
		maj := f.value(int32(top))
		res.Majority = append(res.Majority, MajorityField{Key: f.path, Group: group, Value: maj, Count: counts[top], Of: n})
		if counts[top] == n {
			continue
		}
		for di, row := range t.rows {
			if !compared(di) {
				continue
			}
			var id int32
			if fi < len(row) {
				id = row[fi]
			}
			if int(id) == top {
				continue
			}
			name := t.names[di]
			o := byName[name]
			if o == nil {
				o = &Outlier{Name: name}
				byName[name] = o
				order = append(order, name)
			}
			o.Differences = append(o.Differences, FleetDifference{
				Key: f.path, Group: group, Rank: rank, Value: f.value(id), Majority: maj, Count: counts[top], Of: n, Why: why,
			})
		}
	}
	slices.SortStableFunc(res.Majority, func(a, b MajorityField) int {
		ra, _, _ := classifyFleet(strings.Split(a.Key, "."))
		rb, _, _ := classifyFleet(strings.Split(b.Key, "."))
		return ra - rb
	})
	for _, name := range order {
		o := byName[name]
		slices.SortStableFunc(o.Differences, func(a, b FleetDifference) int { return a.Rank - b.Rank })
		res.Outliers = append(res.Outliers, *o)
	}
	slices.SortFunc(res.Outliers, func(a, b Outlier) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(res.Split, func(a, b SplitField) int { return strings.Compare(a.Key, b.Key) })
	slices.SortStableFunc(splitting, func(a, b int) int {
		ra, _, _ := classifyFleet(strings.Split(t.fields[a].path, "."))
		rb, _, _ := classifyFleet(strings.Split(t.fields[b].path, "."))
		return ra - rb
	})
	res.Groups = t.groups(splitting)
	res.Places = append(lackingNotes(t.lacks), t.placeNotes()...)
}

// compared says which documents are compared on a field: those that
// carry every optional block it lies under (compare on what both have,
// fields.go).
func (t *tally) compared(path string) func(di int) bool {
	over := blocksOver(path)
	return func(di int) bool { return t.lacks[di]&over == 0 }
}

// count tallies field fi over the compared documents: how many hold each
// value id (0: absent), how many were compared, the commonest id and how
// many ids occur.
func (t *tally) count(fi int, compared func(int) bool) (counts []int, n, top, distinct int) {
	counts = make([]int, len(t.fields[fi].values)+1)
	for di, row := range t.rows {
		if !compared(di) {
			continue
		}
		n++
		if fi < len(row) {
			counts[row[fi]]++
		} else {
			counts[0]++
		}
	}
	for id, c := range counts {
		if c > counts[top] {
			top = id
		}
		if c > 0 {
			distinct++
		}
	}
	return counts, n, top, distinct
}

func (f *fieldTally) value(id int32) Value {
	if id == 0 {
		return Value{}
	}
	return leafValue(f.path, f.values[id-1])
}

// classifyFleet ranks the placement proofs first (group "placement"),
// then as classify does.
func classifyFleet(path []string) (int, Group, string) {
	if f := fieldOf(path); f != nil && (f.role == roleRunbook || f.role == roleBoot) && f.pattern == strings.Join(path, ".") {
		says := f.says
		if says == "" {
			says = "the node's namespace"
		}
		return -1, GroupPlacement, says
	}
	if len(path) > 0 && path[0] == "execution_context" {
		return -1, GroupPlacement, "how the probe was invoked, as the caller asserts"
	}
	return classify(path)
}

// readText reads one fleet document through the bounded reader
// (internal/docread): a regular file costs one allocation of its size.
func readText(path string) (string, error) { return docread.Read(path, nil) }
