package gardener

import (
	"encoding/json"
	"slices"
	"testing"
)

// FuzzStepsRoundTrip is round-trip stability as a property: decoding never panics, and every
// input that decodes — as a step list or as a whole test — encodes to JSON that decodes to an
// equal value. Anything less lets a stored test that decoded once fail every later read. Its
// corpus is testdata/fuzz/FuzzStepsRoundTrip, which `go test` runs with the seeds below.
func FuzzStepsRoundTrip(f *testing.F) {
	b, _ := json.Marshal(everyKind())
	f.Add(b)
	tb, _ := json.Marshal(Test{ID: "t1", ProjectID: "p", Name: "every kind", Status: StatusPending, Version: 4, Viewport: Viewport{Width: 390, Height: 844}, Steps: everyKind()})
	f.Add(tb)
	f.Add([]byte(`{"id":"v","viewport":{"width":1024,"height":768},"steps":[{"kind":"set","locator":"role=*[name=\"Theme\"]","value":"dark"},{"kind":"click","locator":"#a","clicks":2}]}`))
	f.Add([]byte(`[{"kind":"intent","goal":"g","steps":[{"kind":"click","locator":"role=button[name=\"x\"]"}]}]`))
	f.Add([]byte(`[{"kind":"click","locator":"css=a[b='c']"}]`))
	f.Add([]byte(`[{"kind":"wait","for":"element","locator":"xpath=//a","state":"hidden"}]`))
	f.Add([]byte(`[{"kind":"goto","url":"/","url":"/x"}]`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`[{"kind":"intent","goal":"g","steps":{"kind":"goto"}}]`))
	f.Add([]byte(`[{"kind":"click","locator":"id=login"},{"kind":"a11yAudit","reportOnly":true,"rules":["label"]}]`))
	f.Add([]byte(`[{"kind":"assertRequest","method":"POST","urlPattern":"^/api/(a|b)$","status":201},{"kind":"assertConsole","level":"error","pattern":"x","expect":"noMatch"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if steps, err := DecodeSteps(data); err == nil {
			again, err := json.Marshal(steps)
			if err != nil {
				t.Fatalf("decoded steps do not encode: %v", err)
			}
			back, err := DecodeSteps(again)
			if err != nil {
				t.Fatalf("our encoding does not decode: %v\n%s", err, again)
			}
			sameSteps(t, steps, back)
		}
		if test, err := DecodeTest(data); err == nil {
			again, err := json.Marshal(test)
			if err != nil {
				t.Fatalf("decoded test does not encode: %v", err)
			}
			back, err := DecodeTest(again)
			if err != nil {
				t.Fatalf("our encoding of a test does not decode: %v\n%s", err, again)
			}
			if back.ID != test.ID || back.ProjectID != test.ProjectID || back.Name != test.Name || back.Status != test.Status || back.Version != test.Version || back.Viewport != test.Viewport {
				t.Fatalf("round trip changed the test: %+v → %+v", test, back)
			}
			sameSteps(t, test.Steps, back.Steps)
		}
	})
}

func sameSteps(t *testing.T, before, after []Step) {
	t.Helper()
	if len(after) != len(before) {
		t.Fatalf("round trip changed the step count from %d to %d", len(before), len(after))
	}
	for i := range before {
		if !after[i].Equal(before[i]) {
			t.Fatalf("round trip changed step %d: %s → %s", i+1, before[i], after[i])
		}
	}
}

// keptCheck reports whether check a is check b with at most its locator, scope or timeout
// changed, the only parts of a check the table (DESIGN.md §4.2) lets a repair change. It compares
// whole steps rather than naming fields, so it does not share a blind spot with protectedDiff.
func keptCheck(b, a Step) bool {
	b.Locator, b.Scope, b.TimeoutMs = Locator{}, Locator{}, 0
	a.Locator, a.Scope, a.TimeoutMs = Locator{}, Locator{}, 0
	return b.Equal(a)
}

// flatCheck is a check with the goal of the intent block it sits in ("" at the top level).
type flatCheck struct {
	block string
	step  Step
}

// flatChecks lists every check of steps in order, those inside blocks included.
func flatChecks(steps []Step) []flatCheck {
	var out []flatCheck
	for _, s := range steps {
		if s.Kind == Intent {
			for _, in := range s.Steps {
				if in.IsCheck() {
					out = append(out, flatCheck{s.Goal, in})
				}
			}
			continue
		}
		if s.IsCheck() {
			out = append(out, flatCheck{"", s})
		}
	}
	return out
}

// FuzzScreenKeepsChecks is the floor's property: no op sequence that passes the screen removes or
// changes a protected field of any check, or moves one in or out of a block. The fuzzer drives a
// small op language over a test that holds every check kind, top level and inside a block: four
// bytes an op (kind, index, a step from the pool, a mutation of the floor matrix applied to it or
// to one of a block's inner steps). The seed corpus, which `go test` runs, tries every mutation
// of every check in place and inside the block.
func FuzzScreenKeepsChecks(f *testing.F) {
	base, pool := fuzzBase()
	for i, s := range base {
		for m := range floorMutations {
			if s.IsCheck() {
				f.Add([]byte{1, byte(i), byte(i), byte(m)})
			}
			if s.Kind == Intent {
				for inner := range s.Steps {
					f.Add([]byte{1, byte(i), byte(i), byte(m), byte(1 + inner)})
				}
			}
		}
	}
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})
	f.Add([]byte{1, 9, 0, 2, 14, 3, 1, 20, 5, 2, 11, 0})
	f.Fuzz(func(t *testing.T, prog []byte) {
		var ops []Op
		for i := 0; i+3 < len(prog) && len(ops) < 12; i += 4 {
			kind := []OpKind{OpInsert, OpReplace, OpDelete}[int(prog[i])%3]
			idx := int(prog[i+1]) % (len(base) + 2)
			src := pool[int(prog[i+2])%len(pool)].Clone()
			inner := 0
			if i+4 < len(prog) {
				inner = int(prog[i+4])
			}
			mutateForFuzz(&src, prog[i+3], inner)
			op := Op{Kind: kind, Index: idx}
			if kind != OpDelete {
				op.Step = &src
			}
			ops = append(ops, op)
		}
		sc := Screen(base, ops)
		if len(sc.Allowed)+len(sc.Refusals) != len(ops) {
			t.Fatalf("%d ops became %d allowed and %d refused", len(ops), len(sc.Allowed), len(sc.Refusals))
		}
		after, err := ApplySteps(base, sc.Allowed)
		if err != nil {
			t.Fatalf("allowed ops do not apply: %v", err)
		}
		// The oracle is independent of the screen's own protectedDiff: a check is kept when
		// nothing but its locator, scope and timeout differ, in the same block, in order.
		kept := func(w, g flatCheck) bool {
			return w.block == g.block && keptCheck(w.step, g.step)
		}
		want, got := flatChecks(base), flatChecks(after)
		j := 0
		for _, w := range want {
			for j < len(got) && !kept(w, got[j]) {
				j++
			}
			if j == len(got) {
				t.Fatalf("check %s (block %q) lost or changed; ops %v", w.step, w.block, sc.Allowed)
			}
			j++
		}
	})
}

// fuzzBase is the test the fuzzer edits — one step of every kind and a block holding checks —
// and the pool its ops draw steps from: the same steps, so an op can replace a step with a
// mutated copy of itself.
func fuzzBase() (base, pool []Step) {
	base = append(everyKind(), Step{Kind: Intent, Goal: "checkout", Values: map[string]string{"card": "4242"}, Steps: []Step{
		{Kind: Click, Locator: MustLocator("css=#pay")},
		{Kind: AssertToast, Text: "Paid"},
		{Kind: Assert, Subject: SubjectURL, Condition: Contains, Expected: "/done"},
		{Kind: A11yAudit, Threshold: "serious", Rules: []string{"label"}},
		{Kind: Wait, For: WaitURL, URL: "/receipt"},
	}})
	return base, CloneSteps(base)
}

// mutateForFuzz applies the floor matrix's mutation m to s, or, for a block and inner > 0, to
// the block's inner step inner-1 (a delete removes that inner step).
func mutateForFuzz(s *Step, m byte, inner int) {
	mut := floorMutations[int(m)%len(floorMutations)]
	if s.Kind == Intent && inner > 0 {
		k := (inner - 1) % len(s.Steps)
		after, ok := mut.apply(s.Steps[k])
		switch {
		case after == nil && len(s.Steps) > 1:
			s.Steps = slices.Delete(s.Steps, k, k+1)
		case after != nil && ok:
			s.Steps[k] = *after
		}
		return
	}
	if after, ok := mut.apply(*s); after != nil && ok {
		*s = *after
	}
}
