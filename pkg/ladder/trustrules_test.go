package ladder

import (
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// signupSteps: an absence check after the submit names the first-name field by the start of
// its name, so it finds nothing on the page before the submit or after it.
func signupSteps() []gardener.Step {
	return []gardener.Step{
		{Kind: gardener.Goto, URL: "/signup"},
		{Kind: gardener.Fill, Locator: loc(`role=textbox[name="Firstname Required"]`), Value: "Ada"},
		{Kind: gardener.Click, Locator: loc(`role=button[name="Sign up"]`)},
		{Kind: gardener.AssertHidden, Locator: loc(`role=textbox[name="Firstname"]`)},
	}
}

func signupProof(shown string) gardener.Replay {
	rep := gardener.Replay{Result: gardener.RunResult{Passed: true, FailedIndex: -1}}
	for i, p := range []string{"1", "2", "3", "4"} {
		rep.Result.Steps = append(rep.Result.Steps, gardener.StepRecord{Path: p, Kind: signupSteps()[i].Kind, Passed: true})
	}
	rep.Probes = map[int][]gardener.ProbeResult{2: {{Check: signupSteps()[3], Path: "3", Passed: true, Shown: shown}}}
	return rep
}

// An absence check naming a control by the start of its name is named, with the control the
// page showed before its step in full: as an insensitive check when the repair did not touch
// it, and as the reason it is held when the repair changed the step it follows.
func TestAbsenceCheckNamingTheStartOfAName(t *testing.T) {
	const full = `role=textbox[name="Firstname Required"]`
	base := signupSteps()
	for name, heal := range map[string]int{"untouched": 1, "touched": 2} {
		cand := gardener.CloneSteps(base)
		switch heal {
		case 1:
			cand[1].Locator = loc("label=Firstname Required")
		case 2:
			// Not only found another way (that leaves the checks after it the test's own):
			// the action itself changed, so the check after it is the repair's to prove.
			cand[2].Locator = loc(`role=button[name="Create account"]`)
			cand[2].Clicks = 2
		}
		ops := []gardener.Op{{Kind: gardener.OpReplace, Index: heal, Step: &cand[heal]}}
		v, _ := judge(evidence{strategy: gardener.StrategySelfHeal, ops: ops, base: base, cand: gardener.Test{ID: "t", Steps: cand}, proof: signupProof(full)})
		want := gardener.NoteInsensitiveCheck
		if heal == 2 {
			want = gardener.NoteUnprovenCheck
		}
		var text string
		for _, n := range v.Notes {
			if n.Kind == want && n.Step == "4" {
				text = n.Text
			}
		}
		if !strings.Contains(text, "by the start of its name") || !strings.Contains(text, full) || !strings.Contains(text, "before or after step 3") {
			t.Errorf("%s: %s note on step 4 is %q, want it to name %s as a control named by the start of the check's name", name, want, text, full)
		}
	}
	// A probe that found no such control keeps the plain wording.
	cand := gardener.CloneSteps(base)
	cand[1].Locator = loc("label=Firstname Required")
	v, _ := judge(evidence{strategy: gardener.StrategySelfHeal, ops: []gardener.Op{{Kind: gardener.OpReplace, Index: 1, Step: &cand[1]}}, base: base, cand: gardener.Test{ID: "t", Steps: cand}, proof: signupProof("")})
	for _, n := range v.Notes {
		if strings.Contains(n.Text, "start of its name") {
			t.Errorf("note %q without a control shown by the start of the name", n.Text)
		}
	}
}

// A re-derived intent block with no check after it that notices the block is confirmed only by
// doing what it did on its last green run: the same requests, the same values entered, the same
// elements acted on, not merely ending on the same URL. Values are compared, never shown.
func TestIntentConfirmedByWhatTheBlockDid(t *testing.T) {
	block := gardener.Step{Kind: gardener.Intent, Goal: "log in", Values: map[string]string{"u": "demo"}, Steps: []gardener.Step{
		{Kind: gardener.Fill, Locator: loc("label=Username"), Value: "${u}"},
		{Kind: gardener.Click, Locator: loc("text=Login")},
	}}
	check := gardener.Step{Kind: gardener.AssertVisible, Locator: loc("text=Welcome")}
	derived := block.Clone()
	derived.Steps[1].Locator = loc(`role=button[name="Sign in"]`)
	base := []gardener.Step{{Kind: gardener.Goto, URL: "/login"}, block, check}
	cand := gardener.Test{ID: "t", Steps: []gardener.Step{base[0], derived, check}}
	ops := []gardener.Op{{Kind: gardener.OpReplace, Index: 1, Step: &derived}}

	field := gardener.Fingerprint{Tag: "INPUT", Role: "textbox", AccessibleName: "Username", ID: "user", Label: "Username", XPath: "/html/body/form/input[1]"}
	login := gardener.Fingerprint{Tag: "BUTTON", Role: "button", AccessibleName: "Login", ID: "login", IsButton: true, VisibleText: []string{"Login"}, XPath: "/html/body/form/button"}
	signIn := login
	signIn.AccessibleName, signIn.VisibleText = "Sign in", []string{"Sign in"}
	forgot := gardener.Fingerprint{Tag: "A", Role: "link", AccessibleName: "Forgot password", Href: "/forgot", VisibleText: []string{"Forgot password"}, XPath: "/html/body/p/a"}
	// A page may name a control by what was typed elsewhere: the note names its role only.
	echoes := gardener.Fingerprint{Tag: "BUTTON", Role: "button", AccessibleName: "Continue as demo", ID: "as-user", IsButton: true, VisibleText: []string{"Continue as demo"}, XPath: "/html/body/div/button"}
	type did struct {
		value  string
		button gardener.Fingerprint
		posts  bool
	}
	records := func(d did) []gardener.StepRecord {
		click := gardener.StepRecord{Path: "2.2", Kind: gardener.Click, URLBefore: "http://app/login", URLAfter: "http://app/login", Element: &d.button, Passed: true}
		if d.posts {
			click.Requests = []gardener.Request{{Method: "POST", URL: "http://app/api/login", Status: 200}}
		}
		return []gardener.StepRecord{
			{Path: "1", Kind: gardener.Goto, URLAfter: "http://app/login", Passed: true},
			{Path: "2", Kind: gardener.Intent, Skipped: true},
			{Path: "2.1", Kind: gardener.Fill, URLBefore: "http://app/login", URLAfter: "http://app/login", Element: &field, Values: []string{d.value}, Passed: true},
			click,
			{Path: "3", Kind: gardener.AssertVisible, Passed: true},
		}
	}
	green := &gardener.RunResult{Passed: true, Steps: records(did{value: "demo", button: login, posts: true})}
	judgeBlock := func(d did, lastGreen *gardener.RunResult) gardener.Verdict {
		// The check after the block passes before the block runs too: it confirms nothing.
		proof := gardener.Replay{Result: gardener.RunResult{Passed: true, FailedIndex: -1, Steps: records(d)},
			Probes: map[int][]gardener.ProbeResult{1: {{Check: check, Passed: true}}}}
		v, _ := judge(evidence{strategy: gardener.StrategySelfHeal, ops: ops, base: base, cand: cand, proof: proof, lastGreen: lastGreen, rederived: []int{1}})
		return v
	}
	intentNote := func(v gardener.Verdict) string {
		for _, n := range v.Notes {
			if n.Kind == gardener.NoteIntentUnconfirmed {
				return n.Text
			}
		}
		return ""
	}
	if v := judgeBlock(did{value: "demo", button: signIn, posts: true}, green); !v.IntentConfirmed {
		t.Errorf("the block sent the same request, entered the same value and pressed the same (renamed) button: unconfirmed: %s", intentNote(v))
	}
	for name, c := range map[string]struct {
		d    did
		want string
	}{
		"request not sent":   {did{value: "demo", button: signIn}, "no longer sends POST /api/login"},
		"another value":      {did{value: "guest", button: signIn, posts: true}, "enters other values"},
		"another element":    {did{value: "demo", button: forgot, posts: true}, `acts on link "Forgot password"`},
		"same URL, nothing":  {did{value: "demo", button: forgot}, "no longer sends"},
		"named by the value": {did{value: "demo", button: echoes, posts: true}, "acts on a button, which it did not"},
	} {
		v := judgeBlock(c.d, green)
		text := intentNote(v)
		if v.IntentConfirmed || !strings.Contains(text, c.want) {
			t.Errorf("%s: confirmed %v, note %q: want unconfirmed, saying %q", name, v.IntentConfirmed, text, c.want)
		}
		if strings.Contains(text, "demo") || strings.Contains(text, "guest") {
			t.Errorf("%s: the note shows a value the test types: %q", name, text)
		}
		if need, _ := v.NeedsPerson(); !need {
			t.Errorf("%s: an unconfirmed block must be held for a person", name)
		}
	}
	v := judgeBlock(did{value: "demo", button: signIn, posts: true}, nil)
	if v.IntentConfirmed || !strings.Contains(intentNote(v), "no green run") {
		t.Errorf("with no green run: confirmed %v, note %q; want unconfirmed, saying there is no green run", v.IntentConfirmed, intentNote(v))
	}
}
