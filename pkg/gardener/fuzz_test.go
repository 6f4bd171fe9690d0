package gardener

import (
	"encoding/json"
	"testing"
)

// FuzzDecodeSteps: decoding never panics, and whatever decodes encodes to JSON that decodes to
// the same steps.
func FuzzDecodeSteps(f *testing.F) {
	b, _ := json.Marshal(everyKind())
	f.Add(b)
	f.Add([]byte(`[{"kind":"intent","goal":"g","steps":[{"kind":"click","locator":"role=button[name=\"x\"]"}]}]`))
	f.Add([]byte(`[{"kind":"click","locator":"css=a[b='c']"}]`))
	f.Add([]byte(`[{"kind":"wait","for":"element","locator":"xpath=//a","state":"hidden"}]`))
	f.Add([]byte(`[{"kind":"goto","url":"/","url":"/x"}]`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		steps, err := DecodeSteps(data)
		if err != nil {
			return
		}
		again, err := json.Marshal(steps)
		if err != nil {
			t.Fatalf("decoded steps do not encode: %v", err)
		}
		back, err := DecodeSteps(again)
		if err != nil {
			t.Fatalf("our encoding does not decode: %v\n%s", err, again)
		}
		if len(back) != len(steps) {
			t.Fatalf("round trip changed the step count")
		}
		for i := range steps {
			if !back[i].Equal(steps[i]) {
				t.Fatalf("round trip changed step %d: %s → %s", i+1, steps[i], back[i])
			}
		}
	})
}

// flatChecks lists the protected view of every check, with the intent block it sits in (-1 at
// top level counted by goal), in order.
type flatCheck struct {
	block string
	step  Step
}

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
// small op language over a test that holds every check kind.
func FuzzScreenKeepsChecks(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{1, 9, 0, 2, 14, 3, 1, 20, 5})
	f.Add([]byte{2, 27, 7, 2, 26, 1, 0, 0, 4})
	f.Add([]byte{1, 26, 3, 1, 26, 12, 2, 11, 9, 1, 21, 30})
	base := everyKind()
	base = append(base, Step{Kind: Intent, Goal: "checkout", Steps: []Step{
		{Kind: Click, Locator: MustLocator("css=#pay")},
		{Kind: AssertToast, Text: "Paid"},
		{Kind: Assert, Subject: SubjectURL, Condition: Contains, Expected: "/done"},
	}})
	pool := append(everyKind(), base[len(base)-1])
	f.Fuzz(func(t *testing.T, prog []byte) {
		var ops []Op
		for i := 0; i+2 < len(prog) && len(ops) < 12; i += 3 {
			kind := []OpKind{OpInsert, OpReplace, OpDelete}[int(prog[i])%3]
			idx := int(prog[i+1]) % (len(base) + 2)
			src := pool[int(prog[i+2])%len(pool)].Clone()
			mutateForFuzz(&src, prog[i+2])
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
		want, got := flatChecks(base), flatChecks(after)
		j := 0
		for _, w := range want {
			for j < len(got) && (got[j].block != w.block || len(protectedDiff(w.step, got[j].step)) > 0) {
				j++
			}
			if j == len(got) {
				t.Fatalf("check %s (block %q) lost or changed; ops %v", w.step, w.block, sc.Allowed)
			}
			j++
		}
	})
}

// mutateForFuzz perturbs a pool step so the fuzzer reaches both free and protected changes.
func mutateForFuzz(s *Step, b byte) {
	switch b % 5 {
	case 1:
		if !s.Locator.IsZero() {
			s.Locator = MustLocator("css=#moved")
		}
	case 2:
		if s.Expected != "" {
			s.Expected += "!"
		}
	case 3:
		if s.Kind == Intent && len(s.Steps) > 1 {
			s.Steps = s.Steps[1:]
		}
	case 4:
		s.TimeoutMs = 1000
	}
}
