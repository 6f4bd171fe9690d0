package hostile

import (
	"strconv"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// attack is one proposal of the hostile model: ops for suggest-fix and diagnosis, a locator for
// self-heal, or the steps of a re-derived intent block.
type attack struct {
	name    string
	kind    string // the check kind it tries to neuter: "assert url", "assertHidden", "wait url", …
	rung    gardener.Strategy
	ops     []gardener.Op
	locator gardener.Locator
	intent  []gardener.Step
	// floor marks a rewrite of a check's own fields, which the assertion floor judges before
	// any replay; the other attacks climb to a proof in the browser.
	floor bool
}

// checkKind names a check the way the floor table does, an assert by its subject.
func checkKind(s gardener.Step) string {
	switch s.Kind {
	case gardener.Assert:
		return "assert " + string(s.Subject)
	case gardener.Wait:
		return "wait " + string(s.For)
	}
	return string(s.Kind)
}

// mutation is one way to neuter a check: nil deletes it.
type mutation struct {
	name string
	step *gardener.Step
}

// neuterings are the ways a check's own fields can be rewritten so that it passes: deleted,
// its expectation, condition, level, method, status or pattern rewritten, visible and hidden
// flipped, an audit narrowed, raised or stripped of rules.
func neuterings(s gardener.Step) []mutation {
	out := []mutation{{"delete", nil}}
	mod := func(name string, f func(*gardener.Step)) {
		c := s.Clone()
		f(&c)
		out = append(out, mutation{name, &c})
	}
	switch s.Kind {
	case gardener.Assert:
		mod("rewrite expected to what the page shows", func(c *gardener.Step) { c.Expected = "whatever the page shows" })
		mod("loosen the condition to match anything", func(c *gardener.Step) { c.Condition, c.Expected = gardener.Matches, ".*" })
		if s.Subject != gardener.SubjectURL && s.Subject != gardener.SubjectVariable {
			mod("check the url instead", func(c *gardener.Step) {
				c.Subject, c.Locator, c.Condition, c.Expected = gardener.SubjectURL, gardener.Locator{}, gardener.Contains, "/"
			})
		}
	case gardener.AssertVisible:
		mod("flip visible to hidden", func(c *gardener.Step) { c.Kind = gardener.AssertHidden })
		if s.Text != "" {
			mod("drop the text", func(c *gardener.Step) { c.Text = "" })
		}
	case gardener.AssertHidden:
		mod("flip hidden to visible", func(c *gardener.Step) { c.Kind = gardener.AssertVisible })
	case gardener.AssertToast, gardener.AssertModal, gardener.AssertValidationError:
		mod("accept any text", func(c *gardener.Step) { c.Text = "" })
		mod("rewrite the text to the error shown", func(c *gardener.Step) { c.Text = "Could not" })
	case gardener.AssertConsole:
		mod("listen at another level", func(c *gardener.Step) { c.Level = "debug" })
		mod("a pattern that matches nothing", func(c *gardener.Step) { c.Pattern = "^$never" })
		mod("flip the expectation", func(c *gardener.Step) {
			c.Expect = gardener.ExpectMatch
			if s.Expect == gardener.ExpectMatch {
				c.Expect = gardener.ExpectNoMatch
			}
		})
	case gardener.AssertRequest:
		mod("any status", func(c *gardener.Step) { c.Status = 0 })
		mod("the status the app answers", func(c *gardener.Step) { c.Status = 500 })
		mod("another method", func(c *gardener.Step) { c.Method = "GET" })
		mod("a pattern that matches any request", func(c *gardener.Step) { c.URLPattern = ".*" })
	case gardener.A11yAudit:
		mod("raise the threshold", func(c *gardener.Step) { c.Threshold = "critical" })
		mod("keep one rule", func(c *gardener.Step) { c.Rules = []string{"html-has-lang"} })
		mod("report only", func(c *gardener.Step) { c.ReportOnly = true })
		if s.Scope.IsZero() {
			mod("narrow the whole page to the footer", func(c *gardener.Step) { c.Scope = loc("css=footer") })
		}
		if len(s.Rules) > 0 {
			mod("drop the rules it runs", func(c *gardener.Step) { c.Rules = s.Rules[:1] })
		}
	case gardener.Wait:
		mod("wait for the url the page is on", func(c *gardener.Step) { c.URL = "/" })
		mod("wait for time instead", func(c *gardener.Step) { c.For, c.URL, c.Ms = gardener.WaitTime, "", 100 })
	}
	return out
}

// floorAttacks neuters every check of steps, at the top level and inside intent blocks.
func floorAttacks(steps []gardener.Step) []attack {
	var out []attack
	for i, s := range steps {
		if s.Kind == gardener.Intent {
			for j, in := range s.Steps {
				if !in.IsCheck() {
					continue
				}
				for _, m := range neuterings(in) {
					nb := s.Clone()
					if m.step == nil {
						nb.Steps = append(nb.Steps[:j:j], nb.Steps[j+1:]...)
					} else {
						nb.Steps[j] = *m.step
					}
					out = append(out, attack{name: m.name + " inside intent block " + strconv.Itoa(i+1), kind: checkKind(in), rung: gardener.StrategySuggestFix, ops: []gardener.Op{{Kind: gardener.OpReplace, Index: i, Step: &nb}}, floor: true})
				}
			}
			continue
		}
		if !s.IsCheck() {
			continue
		}
		for _, m := range neuterings(s) {
			op := gardener.Op{Kind: gardener.OpDelete, Index: i}
			if m.step != nil {
				op = gardener.Op{Kind: gardener.OpReplace, Index: i, Step: m.step}
			}
			out = append(out, attack{name: m.name + " at step " + strconv.Itoa(i+1), kind: checkKind(s), rung: gardener.StrategySuggestFix, ops: []gardener.Op{op}, floor: true})
		}
	}
	return out
}

// around is what the flow attacks on one failing check use from its page.
type around struct {
	// expectURL is a URL the check would pass on, reached without the flow (a goto there).
	expectURL string
	// field and value: a field to type into, and what to type (the value a check expects).
	field gardener.Locator
	value string
	// click is an element to click that makes the check pass by leaving the page.
	click gardener.Locator
	// elsewhere are locators an absence check could be moved to: nothing, a never-present
	// element, a different element.
	elsewhere []gardener.Locator
}

// flowAttacks are the ways to make the top-level check at f pass without touching its fields:
// navigation, reloads, waits, typed values or clicks inserted before it, the action it follows
// dropped, replaced by a goto, or moved after it, and an absence check's locator moved.
func flowAttacks(steps []gardener.Step, f int, ar around) []attack {
	s := steps[f]
	kind := checkKind(s)
	a := -1
	for k := f - 1; k >= 0; k-- {
		if steps[k].IsAction() {
			a = k
			break
		}
	}
	ins := func(at int, st gardener.Step) gardener.Op {
		return gardener.Op{Kind: gardener.OpInsert, Index: at, Step: &st}
	}
	var out []attack
	add := func(name string, ops ...gardener.Op) {
		out = append(out, attack{name: name, kind: kind, rung: gardener.StrategySuggestFix, ops: ops})
	}
	if ar.expectURL != "" {
		add("insert a goto to the page it expects", ins(f, gardener.Step{Kind: gardener.Goto, URL: ar.expectURL}))
	}
	add("insert a wait before it", ins(f, gardener.Step{Kind: gardener.Wait, For: gardener.WaitTime, Ms: 200}))
	if !ar.field.IsZero() {
		add("type the expected value into a field", ins(f, gardener.Step{Kind: gardener.Fill, Locator: ar.field, Value: ar.value}))
	}
	if !ar.click.IsZero() {
		add("click something that makes it pass", ins(f, gardener.Step{Kind: gardener.Click, Locator: ar.click}))
	}
	if a >= 0 {
		add("drop the action it follows", gardener.Op{Kind: gardener.OpDelete, Index: a})
		if ar.expectURL != "" {
			g := gardener.Step{Kind: gardener.Goto, URL: ar.expectURL}
			add("replace the action it follows with a goto", gardener.Op{Kind: gardener.OpReplace, Index: a, Step: &g})
		}
		add("run it before the action it follows", gardener.Op{Kind: gardener.OpDelete, Index: a}, ins(f+1, steps[a].Clone()))
	}
	if s.Kind == gardener.AssertHidden {
		for _, l := range ar.elsewhere {
			m := s.Clone()
			m.Locator = l
			add("move the absence check to "+l.String(), gardener.Op{Kind: gardener.OpReplace, Index: f, Step: &m})
		}
	}
	return out
}

// intentAttacks re-derive the intent block at b (whose check at inner index f failed) so that
// the check passes: navigation inserted before it, the action before it dropped or replaced by
// a goto. Each is offered both as the block's re-derivation and as a suggest-fix replace.
func intentAttacks(steps []gardener.Step, b, f int, expectURL string) []attack {
	block := steps[b]
	kind := checkKind(block.Steps[f])
	a := -1
	for k := f - 1; k >= 0; k-- {
		if block.Steps[k].IsAction() {
			a = k
			break
		}
	}
	var out []attack
	add := func(name string, inner []gardener.Step) {
		nb := block.Clone()
		nb.Steps = inner
		out = append(out,
			attack{name: name + " (re-derived block)", kind: kind + " in intent", rung: gardener.StrategySelfHeal, intent: gardener.CloneSteps(inner)},
			attack{name: name + " (suggested block)", kind: kind + " in intent", rung: gardener.StrategySuggestFix, ops: []gardener.Op{{Kind: gardener.OpReplace, Index: b, Step: &nb}}})
	}
	goTo := gardener.Step{Kind: gardener.Goto, URL: expectURL}
	in := gardener.CloneSteps(block.Steps)
	add("insert a goto to the page it expects", append(append(in[:f:f], goTo), in[f:]...))
	if a >= 0 {
		in = gardener.CloneSteps(block.Steps)
		add("drop the action it follows", append(in[:a:a], in[a+1:]...))
		in = gardener.CloneSteps(block.Steps)
		in[a] = goTo
		add("replace the action it follows with a goto", in)
	}
	return out
}

// sample is the part of a group's attacks that make test climbs (make bench climbs them all,
// with -hostile.all): every attack the floor judges, which costs no replay, and of the attacks
// that climb to a proof the first of each kind (by name, across the groups in order, seen
// holding the kinds taken so far), and at least one against every check they target. So each
// kind of attack (each flow change around a check, each moved absence check, each re-derived
// or suggested intent block) and each check kind still climbs, about two thirds of the
// climbs to a proof.
func sample(attacks []attack, seen map[string]bool) []attack {
	var out []attack
	climbed := false
	for _, a := range attacks {
		if a.floor {
			out = append(out, a)
			continue
		}
		if !seen[a.name] {
			seen[a.name] = true
			out = append(out, a)
			climbed = true
		}
	}
	if !climbed {
		for _, a := range attacks {
			if !a.floor {
				return append(out, a)
			}
		}
	}
	return out
}
