package gardener

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// EditTestFile writes t over file, a test file as its author wrote it, changing only what
// differs: a step the new version keeps keeps its bytes (its locator spelling, its key order,
// the fields it leaves out), a step that changed is rewritten in place (within it, only the
// fields that changed, in the author's spelling where a bare css locator was used), a step
// removed goes with its separator, a step added is written in the canonical form, and a field of
// the test that changed (the version) is replaced where it is, or added before "steps" when the
// file leaves it out. A file that names no project keeps naming none: where it is pushed says
// which project it is of. So the first write of a repair into a team's file is a diff of the
// repaired steps and the version line, whatever layout the team uses (FormatTest is the
// canonical layout, for a new file or when asked).
//
// The result is checked by decoding it: it is returned only when it reads back as t (the
// project aside); otherwise the error says so and nothing should be written from it.
func EditTestFile(file []byte, t Test) ([]byte, error) {
	old, err := DecodeTest(file)
	if err != nil {
		return nil, err
	}
	if old.ID != t.ID {
		return nil, fmt.Errorf("the file holds test %s, not %s", old.ID, t.ID)
	}
	top, err := scanComposite(file, skipSpace(file, 0))
	if err != nil || file[top.open] != '{' {
		return nil, fmt.Errorf("test %s: the file is not one JSON object: %v", t.ID, err)
	}
	oldFields, _, err := fieldsOf(old)
	if err != nil {
		return nil, err
	}
	newFields, order, err := fieldsOf(t)
	if err != nil {
		return nil, err
	}
	kv := file[top.members[0].keyEnd:top.members[0].val.start]
	var pieces []piece
	for i, m := range top.members {
		switch m.key {
		case "steps":
			// Fields the file leaves out and the new version needs go just before the steps,
			// where a person reading the file finds them.
			for _, k := range order {
				if k == "steps" || k == "project" || memberOf(top.members, k) {
					continue
				}
				if !bytes.Equal(oldFields[k], newFields[k]) {
					pieces = append(pieces, piece{origin: -1, text: member(k, kv, newFields[k])})
				}
			}
			steps, err := scanComposite(file, m.val.start)
			if err != nil {
				return nil, err
			}
			text := slicesOf(file[m.span.start:m.val.start], rebuildSteps(file, steps, old.Steps, t.Steps))
			pieces = append(pieces, piece{origin: i, text: text})
		case "project":
			pieces = append(pieces, piece{origin: i, text: file[m.span.start:m.span.end]})
		default:
			nv, ok := newFields[m.key]
			if !ok || bytes.Equal(oldFields[m.key], nv) {
				pieces = append(pieces, piece{origin: i, text: file[m.span.start:m.span.end]})
				continue
			}
			pieces = append(pieces, piece{origin: i, text: slicesOf(file[m.span.start:m.val.start], nv)})
		}
	}
	out := slicesOf(file[:top.open], assemble(file, top, pieces), file[top.close+1:])
	back, err := DecodeTest(out)
	if err != nil {
		return nil, fmt.Errorf("test %s: the file edited in place does not decode: %w", t.ID, err)
	}
	back.ProjectID = t.ProjectID
	want, err1 := json.Marshal(t)
	got, err2 := json.Marshal(back)
	if err := errors.Join(err1, err2); err != nil {
		return nil, err
	}
	if !bytes.Equal(got, want) {
		return nil, fmt.Errorf("test %s: the file edited in place does not read back as version %d", t.ID, t.Version)
	}
	return out, nil
}

func memberOf(ms []jsonMember, key string) bool {
	for _, m := range ms {
		if m.key == key {
			return true
		}
	}
	return false
}

// fieldsOf is v's JSON encoding by key, each value in the form a person writes (no HTML
// escapes), and the order of the keys.
func fieldsOf(v any) (map[string][]byte, []string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, nil, err
	}
	obj, err := scanComposite(b, 0)
	if err != nil {
		return nil, nil, err
	}
	fields := map[string][]byte{}
	var order []string
	for _, m := range obj.members {
		fields[m.key] = spaced(b[m.val.start:m.val.end])
		order = append(order, m.key)
	}
	return fields, order, nil
}

// member is `"key": value` with the file's own separator between them.
func member(key string, kv, value []byte) []byte {
	k, _ := marshalText(key)
	return slicesOf(k, kv, value)
}

// rebuildSteps is the steps array of file at arr, holding old, written as next: the steps next
// keeps are their bytes in the file, a step in place of another is edited (editStep), the others
// are added in the canonical form or dropped. Which steps are kept is the longest common
// subsequence of the two lists, so an inserted or deleted step leaves the rest alone.
func rebuildSteps(file []byte, arr jsonComposite, old, next []Step) []byte {
	if len(arr.elems) != len(old) {
		// Cannot happen for a file old was decoded from; the canonical array is still right.
		return canonicalSteps(next)
	}
	var pieces []piece
	i, j := 0, 0
	add := func(i1, j1 int) {
		for ; i < i1 && j < j1; i, j = i+1, j+1 {
			pieces = append(pieces, piece{origin: i, text: editStep(file, arr.elems[i], old[i], next[j])})
		}
		for ; j < j1; j++ {
			pieces = append(pieces, piece{origin: -1, text: canonicalStep(next[j])})
		}
		i = i1
	}
	for _, p := range commonSteps(old, next) {
		add(p[0], p[1])
		pieces = append(pieces, piece{origin: i, text: file[arr.elems[i].start:arr.elems[i].end]})
		i, j = i+1, j+1
	}
	add(len(old), len(next))
	return assemble(file, arr, pieces)
}

// commonSteps pairs the indexes of a longest common subsequence of a and b (Step.Equal).
func commonSteps(a, b []Step) [][2]int {
	n, m := len(a), len(b)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i].Equal(b[j]) {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var pairs [][2]int
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case a[i].Equal(b[j]):
			pairs = append(pairs, [2]int{i, j})
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			i++
		default:
			j++
		}
	}
	return pairs
}

// editStep is the step of file at at (old) written as next. A step of the same kind keeps its
// key order, its spelling of the fields next does not change and its own separators; the
// fields that changed are replaced in place, removed or appended. An intent block's inner
// steps are rebuilt the same way. Whatever does not read back as next is written canonically.
func editStep(file []byte, at jsonSpan, old, next Step) []byte {
	obj, err := scanComposite(file, at.start)
	if err != nil || old.Kind != next.Kind || file[obj.open] != '{' || len(obj.members) == 0 {
		return canonicalStep(next)
	}
	oldFields, _, err1 := fieldsOf(old)
	newFields, order, err2 := fieldsOf(next)
	if err1 != nil || err2 != nil {
		return canonicalStep(next)
	}
	kv := file[obj.members[0].keyEnd:obj.members[0].val.start]
	var pieces []piece
	for i, m := range obj.members {
		ov, inOld := oldFields[m.key]
		nv, inNew := newFields[m.key]
		orig := file[m.span.start:m.span.end]
		switch {
		case m.key == "steps" && old.Kind == Intent:
			inner, err := scanComposite(file, m.val.start)
			if err != nil {
				return canonicalStep(next)
			}
			pieces = append(pieces, piece{origin: i, text: slicesOf(file[m.span.start:m.val.start], rebuildSteps(file, inner, old.Steps, next.Steps))})
		case inNew && inOld && bytes.Equal(ov, nv):
			pieces = append(pieces, piece{origin: i, text: orig})
		case inNew:
			pieces = append(pieces, piece{origin: i, text: slicesOf(file[m.span.start:m.val.start], spelledLike(file[m.val.start:m.val.end], nv))})
		case inOld:
			// The field is gone from the new step: dropped with its separator.
		default:
			pieces = append(pieces, piece{origin: i, text: orig})
		}
	}
	for _, k := range order {
		if memberOf(obj.members, k) {
			continue
		}
		if ov, ok := oldFields[k]; ok && bytes.Equal(ov, newFields[k]) {
			continue // the file spells the field another way (kept above)
		}
		pieces = append(pieces, piece{origin: -1, text: member(k, kv, newFields[k])})
	}
	edited := assemble(file, obj, pieces)
	back, err := decodeStep(edited, "?")
	if err != nil || !back.Equal(next) {
		return canonicalStep(next)
	}
	return edited
}

// spelledLike is the new value of a locator field written as the file wrote the old one: a file
// that leaves css locators bare ("#username") gets a bare one. Any other value is as encoded.
func spelledLike(was, value []byte) []byte {
	var w, v string
	if json.Unmarshal(was, &w) != nil || json.Unmarshal(value, &v) != nil {
		return value
	}
	wl, err := ParseLocator(w)
	if err != nil || wl.String() == w || wl.String() != "css="+strings.TrimSpace(w) {
		return value
	}
	bare, ok := strings.CutPrefix(v, "css=")
	if !ok {
		return value
	}
	if l, err := ParseLocator(bare); err != nil || l.String() != v {
		return value
	}
	b, err := marshalText(bare)
	if err != nil {
		return value
	}
	return b
}

func canonicalStep(s Step) []byte {
	b, err := json.Marshal(s)
	if err != nil {
		return nil
	}
	return spaced(b)
}

func canonicalSteps(steps []Step) []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, s := range steps {
		if i > 0 {
			b.WriteString(", ")
		}
		b.Write(canonicalStep(s))
	}
	b.WriteByte(']')
	return b.Bytes()
}

// marshalText is a JSON string as a person writes it: <, > and & as themselves.
func marshalText(s string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// piece is one element of an array or member of an object being rebuilt: its text, and the
// index of the element of the original it stands in for (-1: a new one).
type piece struct {
	origin int
	text   []byte
}

// assemble rebuilds the array or object c of file from pieces, keeping the file's whitespace:
// the bytes after the opening bracket and before the closing one, and before each piece that
// stands in for an original element the separator that preceded that element. A new element
// gets the file's first separator.
func assemble(file []byte, c jsonComposite, pieces []piece) []byte {
	var b bytes.Buffer
	b.WriteByte(file[c.open])
	n := len(c.elems)
	lead, trail := []byte{}, []byte{}
	if n > 0 {
		lead, trail = file[c.open+1:c.elems[0].start], file[c.elems[n-1].end:c.close]
	}
	var sep []byte
	switch {
	case n >= 2:
		sep = file[c.elems[0].end:c.elems[1].start]
	case bytes.ContainsAny(lead, "\n"):
		sep = slicesOf([]byte(","), lead)
	default:
		sep = []byte(", ")
	}
	if len(pieces) > 0 {
		b.Write(lead)
	}
	for k, p := range pieces {
		if k > 0 {
			if p.origin >= 1 {
				b.Write(file[c.elems[p.origin-1].end:c.elems[p.origin].start])
			} else {
				b.Write(sep)
			}
		}
		b.Write(p.text)
	}
	if len(pieces) > 0 {
		b.Write(trail)
	}
	b.WriteByte(file[c.close])
	return b.Bytes()
}

func slicesOf(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// jsonSpan is the bytes [start, end) of a JSON value (or member) in a file.
type jsonSpan struct{ start, end int }

// jsonMember is one member of an object: its key, the span from the key's opening quote to the
// value's end, where the key ends, and the value.
type jsonMember struct {
	key    string
	span   jsonSpan
	keyEnd int
	val    jsonSpan
}

// jsonComposite is an array or an object found in a file: its brackets, and its elements (for
// an object, its members' spans, with the members themselves).
type jsonComposite struct {
	open, close int
	elems       []jsonSpan
	members     []jsonMember
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

var errJSONEnd = errors.New("unexpected end of JSON")

// scanValue returns the end of the JSON value that starts at i.
func scanValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errJSONEnd
	}
	switch b[i] {
	case '"':
		return scanString(b, i)
	case '{', '[':
		c, err := scanComposite(b, i)
		if err != nil {
			return 0, err
		}
		return c.close + 1, nil
	}
	j := i
	for j < len(b) && !bytes.ContainsRune([]byte(",]} \t\r\n"), rune(b[j])) {
		j++
	}
	if j == i {
		return 0, fmt.Errorf("no JSON value at byte %d", i)
	}
	return j, nil
}

func scanString(b []byte, i int) (int, error) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, errJSONEnd
}

// scanComposite reads the array or object that starts at i.
func scanComposite(b []byte, i int) (jsonComposite, error) {
	if i >= len(b) || (b[i] != '{' && b[i] != '[') {
		return jsonComposite{}, fmt.Errorf("no JSON array or object at byte %d", i)
	}
	c := jsonComposite{open: i}
	closer := byte(']')
	if b[i] == '{' {
		closer = '}'
	}
	j := skipSpace(b, i+1)
	if j < len(b) && b[j] == closer {
		c.close = j
		return c, nil
	}
	for {
		start := j
		var m jsonMember
		if closer == '}' {
			end, err := scanString(b, j)
			if err != nil || b[j] != '"' {
				return c, fmt.Errorf("no object key at byte %d", j)
			}
			if err := json.Unmarshal(b[j:end], &m.key); err != nil {
				return c, err
			}
			m.keyEnd = end
			j = skipSpace(b, end)
			if j >= len(b) || b[j] != ':' {
				return c, fmt.Errorf("no ':' at byte %d", j)
			}
			j = skipSpace(b, j+1)
		}
		end, err := scanValue(b, j)
		if err != nil {
			return c, err
		}
		c.elems = append(c.elems, jsonSpan{start, end})
		if closer == '}' {
			m.span, m.val = jsonSpan{start, end}, jsonSpan{j, end}
			c.members = append(c.members, m)
		}
		j = skipSpace(b, end)
		if j >= len(b) {
			return c, errJSONEnd
		}
		switch b[j] {
		case ',':
			j = skipSpace(b, j+1)
		case closer:
			c.close = j
			return c, nil
		default:
			return c, fmt.Errorf("unexpected %q at byte %d", b[j], j)
		}
	}
}
