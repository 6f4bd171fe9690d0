package gardener

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// FormatTest is a test file in the one canonical layout every command writes (pull, repair
// --write, push's version update, import): the test's fields in a fixed order (a viewport, when
// the test has one, just before the steps), one step per line with its keys in the order the
// step encoder gives them, ", " and ": " between them. A repaired
// test written back to a team's repository therefore differs from the file before only in the
// lines of the steps that changed.
func FormatTest(t Test) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("{\n")
	for _, f := range []struct {
		key string
		v   any
	}{{"id", t.ID}, {"project", t.ProjectID}, {"name", t.Name}, {"status", t.Status}, {"version", t.Version}} {
		// A test of no project is a local one; writing "project": "" would read as a project
		// whose name was forgotten.
		if f.key == "project" && t.ProjectID == "" {
			continue
		}
		v, err := json.Marshal(f.v)
		if err != nil {
			return nil, fmt.Errorf("formatting test %s: %w", t.ID, err)
		}
		fmt.Fprintf(&b, "  %q: %s,\n", f.key, v)
	}
	if !t.Viewport.IsZero() {
		fmt.Fprintf(&b, "  \"viewport\": {\"width\": %d, \"height\": %d},\n", t.Viewport.Width, t.Viewport.Height)
	}
	b.WriteString("  \"steps\": [")
	for i, s := range t.Steps {
		line, err := json.Marshal(s)
		if err != nil {
			return nil, fmt.Errorf("formatting test %s, step %d: %w", t.ID, i+1, err)
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n    ")
		b.Write(spaced(line))
	}
	b.WriteString("\n  ]\n}\n")
	return b.Bytes(), nil
}

// spaced is compact JSON with a space after each ':' and ',' outside strings, as people write
// it by hand; the \u003c, \u003e and \u0026 escapes encoding/json puts in strings are written as
// the <, > and & they stand for (a locator "main > a" reads as written).
func spaced(compact []byte) []byte {
	out := make([]byte, 0, len(compact)+len(compact)/4)
	inString := false
	for i := 0; i < len(compact); i++ {
		c := compact[i]
		if inString && c == '\\' && i+1 < len(compact) {
			if r, ok := htmlEscapes[string(compact[i+1:min(i+6, len(compact))])]; ok {
				out = append(out, r)
				i += 5
				continue
			}
			out = append(out, c, compact[i+1])
			i++
			continue
		}
		out = append(out, c)
		switch {
		case c == '"':
			inString = !inString
		case !inString && (c == ':' || c == ','):
			out = append(out, ' ')
		}
	}
	return out
}

// htmlEscapes are the escapes encoding/json writes for characters a browser would read as
// HTML, which a JSON file needs no escape for.
var htmlEscapes = map[string]byte{"u003c": '<', "u003e": '>', "u0026": '&'}

// DecodeTestDir decodes every *.json test in dir of fsys, strictly, sorted by id. Each file
// must be named after its test's id, so a folder of tests cannot hold one id twice.
func DecodeTestDir(fsys fs.FS, dir string) ([]Test, error) {
	names, err := fs.Glob(fsys, path.Join(dir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("listing the tests in %s: %w", dir, err)
	}
	tests := make([]Test, 0, len(names))
	for _, n := range names {
		data, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, fmt.Errorf("reading test %s: %w", n, err)
		}
		t, err := DecodeTest(data)
		if err != nil {
			return nil, fmt.Errorf("decoding test %s: %w", n, err)
		}
		if path.Base(n) != t.ID+".json" {
			return nil, fmt.Errorf("test %s has id %q; the file must be named after the id", n, t.ID)
		}
		tests = append(tests, t)
	}
	slices.SortFunc(tests, func(a, b Test) int { return strings.Compare(a.ID, b.ID) })
	return tests, nil
}
