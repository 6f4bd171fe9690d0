package builtin

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/similo"
)

// archiveFailure is a run that fails at a click on "Archive", which the last green run found
// next to the other row actions; on the page now the actions are behind a toggle.
func archiveFailure(t *testing.T, page []gardener.Fingerprint, steps ...gardener.Step) gardener.OpsAsk {
	t.Helper()
	archive := button("archive", "Archive", "/html/body/main/div/button[2]", 80)
	edit := button("edit", "Edit", "/html/body/main/div/button[1]", 80)
	if steps == nil {
		steps = []gardener.Step{{Kind: gardener.Goto, URL: "/projects/7"}, clickStep(t, "#archive"), {Kind: gardener.AssertToast, Text: "Project archived"}}
	}
	fi := len(steps) - 2
	return gardener.OpsAsk{Failure: gardener.Failure{
		Test: gardener.Test{ID: "t", Steps: steps},
		Result: gardener.RunResult{FailedStep: "2", FailedIndex: fi, ErrorKind: gardener.ErrTimeout,
			Steps: []gardener.StepRecord{{Path: "1", Passed: true}, {Path: "2"}}},
		LastGreen: &gardener.RunResult{Passed: true, Steps: []gardener.StepRecord{
			{Path: "1", Passed: true}, clickRecord("2", archive), {Path: "3", Passed: true}}},
		Snapshot: append(page, edit),
	}}
}

// TestOpenCollapsedMenuBeforeTheStep: an action whose element moved into a closed overflow menu
// or disclosure gets the toggle clicked before it, whatever the toggle is (a summary, a button
// that says it is collapsed, one named "More actions"); a toggle clicked just before the step is
// not clicked again, and a page with no toggle gets no such candidate.
func TestOpenCollapsedMenuBeforeTheStep(t *testing.T) {
	summary := gardener.Fingerprint{Tag: "SUMMARY", ID: "row-menu", XPath: "/html/body/main/details/summary", VisibleText: []string{"Options"}, Location: gardener.Rect{X: 200, Y: 80, Width: 80, Height: 20}}
	expanded := button("toggle", "⋮", "/html/body/main/button", 80)
	expanded.ARIA = map[string]string{"aria-expanded": "false", "aria-haspopup": "menu"}
	named := button("more", "More actions", "/html/body/main/button", 80)
	for _, c := range []struct {
		toggle gardener.Fingerprint
		want   string
	}{{summary, "the summary"}, {expanded, "the ⋮ button"}, {named, "the More actions button"}} {
		got, err := Engine{}.SuggestOps(context.Background(), archiveFailure(t, []gardener.Fingerprint{c.toggle}))
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Ops) != 1 || got.Ops[0].Kind != gardener.OpInsert || got.Ops[0].Index != 1 || !names(got.Ops[0].Step.Locator, c.toggle) {
			t.Errorf("%s: want a click on %s inserted before step 2, got %v (%s)", c.toggle.Tag, c.want, got.Ops, got.Reason)
		}
	}

	opened := archiveFailure(t, []gardener.Fingerprint{named}, gardener.Step{Kind: gardener.Goto, URL: "/projects/7"}, clickStep(t, "#more"), clickStep(t, "#archive"), gardener.Step{Kind: gardener.AssertToast, Text: "Project archived"})
	opened.Result.FailedStep, opened.Result.FailedIndex = "3", 2
	opened.LastGreen.Steps = []gardener.StepRecord{{Path: "1", Passed: true}, {Path: "2", Passed: true}, opened.LastGreen.Steps[1]}
	opened.LastGreen.Steps[2].Path = "3"
	got, err := Engine{}.SuggestOps(context.Background(), opened)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range got.Ops {
		if op.Kind == gardener.OpInsert && names(op.Step.Locator, named) {
			t.Errorf("the menu the test opens just before the step was clicked again: %v", got.Ops)
		}
	}

	plain := button("help", "Help", "/html/body/footer/button", 700)
	got, err = Engine{}.SuggestOps(context.Background(), archiveFailure(t, []gardener.Fingerprint{plain}))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got.Reason, "collapsed") {
		t.Errorf("a page with no toggle got one clicked: %v (%s)", got.Ops, got.Reason)
	}
}

// names reports whether l names the element fp: by its id or by its name or text.
func names(l gardener.Locator, fp gardener.Fingerprint) bool {
	s := l.String()
	return strings.Contains(s, "#"+fp.ID) || strings.Contains(s, fp.Shown())
}

// TestDismissWhatCoversTheStep: a banner whose container names no overlay word (an id such as
// "notice-360", a role=region) is still dismissed when the run says it covers the step's
// element: its button is inside the covering element. A dismiss-worded button elsewhere on the
// page, or in another frame at the same path, is not; nor is anything when the run names no
// covering element. A step inside an intent block gets the dismissal inside the block, just
// before it.
func TestDismissWhatCoversTheStep(t *testing.T) {
	cover := &gardener.Fingerprint{Tag: "DIV", ID: "notice-360", XPath: "/html[1]/body[1]/div[2]"}
	got := button("", "Got it", "/html[1]/body[1]/div[2]/div[1]/button[1]", 600)
	noID := button("", "Accept all", "/html[1]/body[1]/div[3]/div[1]/button[1]", 600)
	sibling := button("", "OK", "/html[1]/body[1]/div[20]/button[1]", 600)
	elsewhere := button("", "Close", "/html[1]/body[1]/main[1]/button[1]", 100)
	framed := got
	framed.Frame = "#pay"
	fill := gardener.Step{Kind: gardener.Fill, Locator: gardener.Locator{Kind: gardener.ByLabel, Value: "Username"}, Value: "demo"}
	for _, c := range []struct {
		name   string
		cover  *gardener.Fingerprint
		kind   gardener.ErrorKind
		page   []gardener.Fingerprint
		want   string
		wanted bool
	}{
		{"its button", cover, gardener.ErrTimeout, []gardener.Fingerprint{elsewhere, sibling, got}, "Got it", true},
		{"an unnamed overlay", &gardener.Fingerprint{Tag: "DIV", XPath: "/html[1]/body[1]/div[3]"}, gardener.ErrTimeout, []gardener.Fingerprint{elsewhere, noID}, "Accept all", true},
		{"no button inside", cover, gardener.ErrTimeout, []gardener.Fingerprint{elsewhere, sibling}, "", false},
		{"the same path in a frame", cover, gardener.ErrTimeout, []gardener.Fingerprint{elsewhere, framed}, "", false},
		{"nothing covers", nil, gardener.ErrElementNotFound, []gardener.Fingerprint{elsewhere, got}, "", false},
	} {
		steps := []gardener.Step{{Kind: gardener.Goto, URL: "/login"}, fill}
		ask := gardener.OpsAsk{Failure: gardener.Failure{
			Test:      gardener.Test{ID: "t", Steps: steps},
			Result:    gardener.RunResult{FailedStep: "2", FailedIndex: 1, ErrorKind: c.kind, CoveredBy: c.cover},
			LastGreen: &gardener.RunResult{Passed: true},
			Snapshot:  c.page,
		}}
		ops, _ := dismissOverlay(similo.NewPage(c.page), ask)
		switch {
		case c.wanted && (len(ops) != 1 || ops[0].Kind != gardener.OpInsert || ops[0].Index != 1 || !strings.Contains(ops[0].Step.Locator.String(), c.want)):
			t.Errorf("%s: want a click on %q inserted before step 2, got %v", c.name, c.want, ops)
		case !c.wanted && len(ops) != 0:
			t.Errorf("%s: want no dismissal, got %v", c.name, ops)
		}
	}

	block := gardener.Step{Kind: gardener.Intent, Goal: "log in", Steps: []gardener.Step{{Kind: gardener.Goto, URL: "/login"}, fill}}
	page := []gardener.Fingerprint{elsewhere, got}
	ask := gardener.OpsAsk{Failure: gardener.Failure{
		Test:      gardener.Test{ID: "t", Steps: []gardener.Step{block, {Kind: gardener.AssertVisible, Locator: gardener.Locator{Kind: gardener.ByCSS, Value: "h1"}}}},
		Result:    gardener.RunResult{FailedStep: "1.2", FailedIndex: 0, ErrorKind: gardener.ErrTimeout, CoveredBy: cover},
		LastGreen: &gardener.RunResult{Passed: true},
		Snapshot:  page,
	}}
	ops, _ := dismissOverlay(similo.NewPage(page), ask)
	if len(ops) != 1 || ops[0].Kind != gardener.OpReplace || ops[0].Index != 0 || len(ops[0].Step.Steps) != 3 ||
		ops[0].Step.Steps[1].Kind != gardener.Click || !strings.Contains(ops[0].Step.Steps[1].Locator.String(), "Got it") || ops[0].Step.Steps[2].Kind != gardener.Fill {
		t.Errorf("in an intent block: want the block with the dismissal before its step 2, got %v", ops)
	}
}

// TestReturningBannerIsDismissedOnEveryLoadedPage: a banner back over a step after the test
// dismissed it on an earlier page returns with page loads, so the dismissal goes before the
// failing step and before the first action on each later page the last green run loaded: after
// a goto, and after a click whose step requested the page it ended on (a link followed). A
// route the app changed without a load (its URL changed, nothing requested it), checks read
// through the banner get none. A banner seen for
// the first time is dismissed before the failing step alone: it may be one the app remembers.
func TestReturningBannerIsDismissedOnEveryLoadedPage(t *testing.T) {
	cover := &gardener.Fingerprint{Tag: "DIV", ID: "consent", XPath: "/html[1]/body[1]/div[2]"}
	accept := button("", "Accept all", "/html[1]/body[1]/div[2]/button[1]", 600)
	page := []gardener.Fingerprint{accept}
	l := similo.NewPage(page).Locators(0)
	if len(l) == 0 {
		t.Fatal("no locator for the banner's button")
	}
	dismiss := gardener.Step{Kind: gardener.Click, Locator: gardener.MustLocator(l[0])}
	css := func(v string) gardener.Locator { return gardener.Locator{Kind: gardener.ByCSS, Value: v} }
	steps := []gardener.Step{
		{Kind: gardener.Goto, URL: "/login"}, // 0
		dismiss,                              // 1
		{Kind: gardener.Click, Locator: css("#signin")},    // 2: loads /home
		{Kind: gardener.Fill, Locator: css("#search")},     // 3: fails, the banner back
		{Kind: gardener.Click, Locator: css("#tab-2")},     // 4: a route, nothing loaded
		{Kind: gardener.Click, Locator: css("#item")},      // 5: loads /item
		{Kind: gardener.AssertVisible, Locator: css("h1")}, // 6: a check
		{Kind: gardener.Click, Locator: css("#buy")},       // 7: first action on /item
		{Kind: gardener.Goto, URL: "/cart"},                // 8
		{Kind: gardener.Click, Locator: css("#checkout")},  // 9
		{Kind: gardener.Goto, URL: "/help"},                // 10
		{Kind: gardener.Click, Locator: css("#contact")},   // 11: first action on /help
	}
	loads := func(path, from, to string) gardener.StepRecord {
		return gardener.StepRecord{Path: path, Passed: true, URLBefore: "http://app.test" + from, URLAfter: "http://app.test" + to,
			Requests: []gardener.Request{{Method: "GET", URL: "http://app.test" + to + "#top", Status: 200}}}
	}
	green := &gardener.RunResult{Passed: true, Steps: []gardener.StepRecord{
		loads("3", "/login", "/home"),
		{Path: "5", Passed: true, URLBefore: "http://app.test/home", URLAfter: "http://app.test/home/tab-2",
			Requests: []gardener.Request{{Method: "GET", URL: "http://app.test/api/tab-2", Status: 200}}},
		loads("6", "/home/tab-2", "/item"),
	}}
	ask := func(steps []gardener.Step, fi int, green *gardener.RunResult) gardener.OpsAsk {
		return gardener.OpsAsk{Failure: gardener.Failure{
			Test:      gardener.Test{ID: "t", Steps: steps},
			Result:    gardener.RunResult{FailedStep: strconv.Itoa(fi + 1), FailedIndex: fi, ErrorKind: gardener.ErrTimeout, CoveredBy: cover},
			LastGreen: green,
			Snapshot:  page,
		}}
	}
	at := func(ops []gardener.Op) []int {
		var out []int
		for _, op := range ops {
			if op.Kind != gardener.OpInsert || op.Step.Target() != dismiss.Locator {
				t.Errorf("not the dismissal inserted: %v", op)
			}
			out = append(out, op.Index)
		}
		return out
	}
	for _, c := range []struct {
		name  string
		steps []gardener.Step
		fi    int
		green *gardener.RunResult
		want  []int
	}{
		{"back after a dismissal", steps, 3, green, []int{3, 7, 9, 11}},
		{"no green run: gotos alone", steps, 3, nil, []int{3, 9, 11}},
		{"seen for the first time", append([]gardener.Step{steps[0]}, steps[2:]...), 2, nil, []int{2}},
	} {
		ops, why := dismissOverlay(similo.NewPage(page), ask(c.steps, c.fi, c.green))
		if got := at(ops); !slices.Equal(got, c.want) {
			t.Errorf("%s: dismissals before steps (0-based) %v, want %v (%s)", c.name, got, c.want, why)
		}
	}
}

// TestFillRequiredBeforeTheSubmit: every required control the test does not fill gets a step
// of its kind before the click that submitted the form (one radio button a group, a select's
// option, a check of a checkbox), at the top level or, when the submit is inside an intent
// block, inside the block just before it; a field the test fills already, and one that is not
// flagged, get none.
func TestFillRequiredBeforeTheSubmit(t *testing.T) {
	field := func(tag, typ, id, name string, required bool) gardener.Fingerprint {
		return gardener.Fingerprint{Tag: tag, Type: typ, ID: id, Name: name, XPath: "/html[1]/body[1]/form[1]/" + strings.ToLower(tag) + "[@id='" + id + "']", FormID: "f", Invalid: required, Required: required,
			Location: gardener.Rect{X: 40, Y: 100, Width: 200, Height: 30}}
	}
	sel := field("SELECT", "", "terms", "terms", true)
	sel.Options = []string{"net30", "net60"}
	page := []gardener.Fingerprint{
		field("INPUT", "text", "user", "user", true), // the test fills it
		sel,
		field("INPUT", "radio", "plan-a", "plan", true), field("INPUT", "radio", "plan-b", "plan", true),
		field("INPUT", "checkbox", "agree", "agree", true),
		field("INPUT", "date", "start", "start", true),
		field("INPUT", "text", "nick", "nick", false),
		button("go", "Log in", "/html[1]/body[1]/form[1]/button[1]", 300),
	}
	fillUser := gardener.Step{Kind: gardener.Fill, Locator: gardener.Locator{Kind: gardener.ByCSS, Value: "#user"}, Value: "demo"}
	wait := gardener.Step{Kind: gardener.Wait, For: gardener.WaitURL, URL: "/dashboard"}
	want := []string{"select #terms", "check #plan-a", "check #agree", "fill #start"}
	got := func(steps []gardener.Step) string {
		var out []string
		for _, s := range steps {
			out = append(out, string(s.Kind)+" "+s.Locator.Value)
		}
		return strings.Join(out, ", ")
	}

	top := []gardener.Step{{Kind: gardener.Goto, URL: "/login"}, fillUser, clickStep(t, "#go"), wait}
	ask := gardener.OpsAsk{Failure: gardener.Failure{Test: gardener.Test{ID: "t", Steps: top},
		Result: gardener.RunResult{FailedStep: "4", FailedIndex: 3, ErrorKind: gardener.ErrTimeout}, LastGreen: &gardener.RunResult{Passed: true}, Snapshot: page}}
	ops, why := fillRequired(similo.NewPage(page), ask)
	var inserted []gardener.Step
	for _, op := range ops {
		if op.Kind != gardener.OpInsert || op.Index != 2 {
			t.Fatalf("top level: want inserts before step 3, got %v (%s)", ops, why)
		}
		inserted = append(inserted, *op.Step)
	}
	if g := got(inserted); g != strings.Join(want, ", ") {
		t.Errorf("top level: inserted %s, want %s", g, strings.Join(want, ", "))
	}

	block := gardener.Step{Kind: gardener.Intent, Goal: "log in", Steps: []gardener.Step{{Kind: gardener.Goto, URL: "/login"}, fillUser, clickStep(t, "#go"), wait}}
	for _, failed := range []string{"1.4", "2"} {
		steps := []gardener.Step{block, {Kind: gardener.AssertVisible, Locator: gardener.Locator{Kind: gardener.ByCSS, Value: "h1"}}}
		fi := 0
		if failed == "2" {
			fi = 1
		}
		ask.Test.Steps, ask.Result.FailedStep, ask.Result.FailedIndex = steps, failed, fi
		ops, why = fillRequired(similo.NewPage(page), ask)
		if len(ops) != 1 || ops[0].Kind != gardener.OpReplace || ops[0].Index != 0 {
			t.Fatalf("failing at %s after a block: want the block replaced, got %v (%s)", failed, ops, why)
		}
		wantBlock := "goto , fill #user, " + strings.Join(want, ", ") + ", click #go, wait "
		if g := got(ops[0].Step.Steps); g != wantBlock {
			t.Errorf("failing at %s: the block became %s, want %s", failed, g, wantBlock)
		}
	}
}

// TestDismissWords: the buttons consent banners and announcements close with, and not the
// buttons of a form or a confirmation.
func TestDismissWords(t *testing.T) {
	for _, w := range []string{"Accept all", "Accept and close", "Got it", "OK", "No thanks", "Not now", "Maybe later", "Continue to site", "Reject all", "Decline", "×",
		"Alle akzeptieren", "Tout accepter", "Aceptar todas", "Accetta tutti", "Alles accepteren", "Aceitar todos", "Schließen", "Fermer"} {
		if !gardener.DismissWords.MatchString(w) {
			t.Errorf("%q is not taken for a dismissal", w)
		}
	}
	for _, w := range []string{"Delete", "Place order", "Accept the invitation", "Continue to payment", "Close account",
		"Konto schließen", "Accepter l'invitation", "Aceptar pedido", "Chiudi ordine", "Bestelling accepteren"} {
		if gardener.DismissWords.MatchString(w) {
			t.Errorf("%q is taken for a dismissal", w)
		}
	}
}

// TestFillsFieldCountsSetSteps: a field the test already enters a value into — by a fill, a
// select, a set or a check — gets no made-up value from the rule for a new required field.
func TestFillsFieldCountsSetSteps(t *testing.T) {
	field := gardener.Fingerprint{Tag: "SELECT", ID: "zone", Label: "Time zone"}
	for _, kind := range []gardener.StepKind{gardener.Fill, gardener.Select, gardener.Set} {
		steps := []gardener.Step{{Kind: kind, Locator: gardener.MustLocator("label=Time zone"), Value: "cet"}}
		if !fillsField(steps, field, gardener.MustLocator("css=#zone")) {
			t.Errorf("a %s of the field does not count as entering it", kind)
		}
	}
	steps := []gardener.Step{{Kind: gardener.Click, Locator: gardener.MustLocator("label=Time zone")}}
	if fillsField(steps, field, gardener.MustLocator("css=#zone")) {
		t.Error("a click on the field counts as entering a value")
	}
}

// TestTargetOfAnyRole: with no green run, a role=*[name=…] locator describes an element by its
// accessible name and no role, never by the role "*".
func TestTargetOfAnyRole(t *testing.T) {
	fp, _ := targetOf(gardener.Step{Kind: gardener.Click, Locator: gardener.MustLocator(`role=*[name="Save profile"]`)}, nil)
	if fp.Role != "" || fp.AccessibleName != "Save profile" {
		t.Errorf("described as %+v", fp)
	}
}

// TestFillsFieldReadsLabelsAsTheRuntimeDoes: label=Email finds the "Email" field and not a new
// required "Work email" (the runtime matches a part of a label with its case), so the new field
// is one the test never fills; a quoted label is the whole label.
func TestFillsFieldReadsLabelsAsTheRuntimeDoes(t *testing.T) {
	steps := []gardener.Step{{Kind: gardener.Fill, Locator: gardener.MustLocator("label=Email"), Value: "hedy@crewdesk.test"}}
	email := gardener.Fingerprint{Tag: "INPUT", Type: "email", ID: "email", Label: "Email"}
	work := gardener.Fingerprint{Tag: "INPUT", Type: "email", ID: "f807", Label: "Work email", Required: true, Invalid: true}
	if !fillsField(steps, email, gardener.MustLocator("css=#email")) {
		t.Error("label=Email does not count as filling the Email field")
	}
	if fillsField(steps, work, gardener.MustLocator("css=#f807")) {
		t.Error("label=Email counts as filling a new Work email field")
	}
	if !fillsField(steps, gardener.Fingerprint{Tag: "INPUT", Label: "Email address"}, gardener.MustLocator("css=#x")) {
		t.Error("label=Email does not count as filling Email address, which the runtime finds by it")
	}
	quoted := []gardener.Step{{Kind: gardener.Fill, Locator: gardener.MustLocator(`label="Email"`), Value: "x"}}
	if fillsField(quoted, gardener.Fingerprint{Tag: "INPUT", Label: "Email address"}, gardener.MustLocator("css=#x")) {
		t.Error(`label="Email" counts as filling Email address`)
	}
	form := []gardener.Fingerprint{
		{Tag: "INPUT", Type: "email", ID: "email", Label: "Email", XPath: "/html[1]/body[1]/form[1]/input[1]", FormID: "f", Location: gardener.Rect{X: 40, Y: 100, Width: 200, Height: 30}},
		{Tag: "INPUT", Type: "email", ID: "f807", Name: "f807", Label: "Work email", XPath: "/html[1]/body[1]/form[1]/input[2]", FormID: "f", Required: true, Invalid: true, Location: gardener.Rect{X: 40, Y: 140, Width: 200, Height: 30}},
		button("send", "Send invite", "/html[1]/body[1]/form[1]/button[1]", 300),
	}
	top := []gardener.Step{{Kind: gardener.Goto, URL: "/members"}, steps[0], clickStep(t, "#send"), {Kind: gardener.AssertToast, Text: "Invitation sent"}}
	ask := gardener.OpsAsk{Failure: gardener.Failure{Test: gardener.Test{ID: "t", Steps: top},
		Result: gardener.RunResult{FailedStep: "4", FailedIndex: 3, ErrorKind: gardener.ErrAssertionFailed}, LastGreen: &gardener.RunResult{Passed: true}, Snapshot: form}}
	ops, why := fillRequired(similo.NewPage(form), ask)
	if len(ops) != 1 || ops[0].Step.Kind != gardener.Fill || !strings.Contains(ops[0].Step.Locator.String(), "Work email") && !strings.Contains(ops[0].Step.Locator.String(), "f807") {
		t.Errorf("want a fill of the Work email field before the submit, got %v (%s)", ops, why)
	}
}
