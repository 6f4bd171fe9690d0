package radar

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/similo"
)

func fp(tag, id, name, xpath string, classes ...string) gardener.Fingerprint {
	return gardener.Fingerprint{Tag: tag, ID: id, AccessibleName: name, VisibleText: strings.Fields(name), XPath: xpath, ClassList: classes,
		Role: map[string]string{"BUTTON": "button", "A": "link", "INPUT": "textbox"}[tag]}
}

func TestPageFingerprintIgnoresNumbersAndOrder(t *testing.T) {
	a := []gardener.Fingerprint{fp("A", "cart", "Cart (0)", "/a"), fp("BUTTON", "save", "Save", "/b")}
	b := []gardener.Fingerprint{fp("BUTTON", "save", "Save", "/b"), fp("A", "cart", "Cart (3)", "/a")}
	c := []gardener.Fingerprint{fp("A", "cart", "Cart (0)", "/a"), fp("BUTTON", "save", "Save now", "/b")}
	if pageFingerprint(a) != pageFingerprint(b) {
		t.Error("a cart count and the order of candidates changed the page fingerprint")
	}
	if pageFingerprint(a) == pageFingerprint(c) {
		t.Error("a renamed button left the page fingerprint as it was")
	}
}

func TestDiffPage(t *testing.T) {
	save := fp("BUTTON", "save", "Save product", "/html/body/form/button")
	name := fp("INPUT", "name", "Name", "/html/body/form/input")
	cancel := fp("A", "cancel", "Cancel", "/html/body/form/a")
	cases := []struct {
		name string
		now  []gardener.Fingerprint
		want []string // kind: detail prefix
	}{
		{"unchanged", []gardener.Fingerprint{save, name, cancel}, nil},
		{"wrapped button moves", []gardener.Fingerprint{fp("BUTTON", "save", "Save product", "/html/body/form/div/button"), name, cancel},
			[]string{`moved: button#save "Save product" moved from /html/body/form/button to /html/body/form/div/button`}},
		{"renamed id changes", []gardener.Fingerprint{save, fp("INPUT", "full-name", "Name", "/html/body/form/input"), cancel},
			[]string{`changed: input#name "Name": id "name" → "full-name"`}},
		{"link removed, tip added", []gardener.Fingerprint{save, name, fp("P", "", "Water weekly", "/html/body/p")},
			[]string{`removed: a#cancel "Cancel" is gone`, `added: p "Water weekly" is new`}},
		{"numbers are not a change", []gardener.Fingerprint{save, name, cancel}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, ch := range diffPage([]gardener.Fingerprint{save, name, cancel}, c.now, "http://app") {
				got = append(got, ch.Kind+": "+ch.Detail)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("got %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestJudge(t *testing.T) {
	save := fp("BUTTON", "save", "Save product", "/html/body/form/button")
	other := fp("BUTTON", "draft", "Save draft", "/html/body/form/button[2]")
	moved := fp("BUTTON", "save", "Save product", "/html/body/aside/button")
	cands := []gardener.Fingerprint{moved, other, fp("INPUT", "name", "Name", "/html/body/form/input")}
	one := func(e gardener.Fingerprint) gardener.ResolvedLocator {
		return gardener.ResolvedLocator{Count: 1, Visible: 1, Elements: []gardener.Fingerprint{e}}
	}
	cases := []struct {
		name string
		res  gardener.ResolvedLocator
		want string // "" untouched, else a phrase of the reason
	}{
		{"same element", one(save), ""},
		{"same element moved", one(moved), ""},
		{"finds nothing", gardener.ResolvedLocator{}, "finds nothing"},
		{"hidden", gardener.ResolvedLocator{Count: 1}, "it finds 1 element, which is not visible"},
		{"all hidden", gardener.ResolvedLocator{Count: 3}, "it finds 3 elements, none visible"},
		{"ambiguous", gardener.ResolvedLocator{Count: 2, Visible: 2, Elements: []gardener.Fingerprint{moved, other}}, "2 visible elements"},
		{"covered", gardener.ResolvedLocator{Count: 1, Visible: 1, Elements: []gardener.Fingerprint{moved}, CoveredBy: "div.cookie-banner"}, "covered by div.cookie-banner"},
		{"another element", one(other), "not the element it found on the baseline"},
		{"bad selector", gardener.ResolvedLocator{Error: "css=:x cannot be used"}, "cannot be used"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := judge(save, c.res, cands, "http://app", new(*similo.Page))
			if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
				t.Errorf("judge = %q, want %q", got, c.want)
			}
		})
	}
}

func TestStepAtAndRel(t *testing.T) {
	steps, err := gardener.DecodeSteps([]byte(`[{"kind":"goto","url":"/a"},{"kind":"intent","goal":"g","steps":[{"kind":"click","locator":"#x"},{"kind":"click","locator":"#y"}]}]`))
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"1": "goto /a", "2.2": "click css=#y"} {
		if st, ok := stepAt(steps, path); !ok || !strings.HasPrefix(st.String(), want) {
			t.Errorf("stepAt(%s) = %q, %v", path, st.String(), ok)
		}
	}
	for _, bad := range []string{"0", "3", "2.3", "x", "1.1"} {
		if _, ok := stepAt(steps, bad); ok {
			t.Errorf("stepAt(%s) found a step", bad)
		}
	}
	base, _ := url.Parse("http://127.0.0.1:8080")
	p := &project{base: base}
	for raw, want := range map[string]string{
		"http://127.0.0.1:8080/products?q=fern#top": "/products?q=fern",
		"http://127.0.0.1:8080":                     "/",
		"https://cdn.example/x":                     "https://cdn.example/x",
		"about:blank":                               "",
	} {
		if got := p.rel(raw); got != want {
			t.Errorf("rel(%s) = %q, want %q", raw, got, want)
		}
	}
}

// ledger is a store with a project and n active tests, all at risk, test i first seen i minutes
// after the first.
func ledger(t *testing.T, n int, edit func(*gardener.Project)) (*embedded.Store, *bytes.Buffer, *Radar) {
	t.Helper()
	ctx := context.Background()
	store, err := embedded.Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	p := gardener.Project{ID: "p", Plan: gardener.PlanPro, Model: "builtin", Radar: true, AllowedOrigins: []string{"http://127.0.0.1:1"}}
	if edit != nil {
		edit(&p)
	}
	if err := store.PutProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		id := fmt.Sprintf("t%02d", n-i) // ids sort against the order of risk
		steps, _ := gardener.DecodeSteps([]byte(`[{"kind":"goto","url":"/"}]`))
		if err := store.CreateTest(ctx, gardener.Test{ID: id, ProjectID: "p", Status: gardener.StatusActive, Version: 1, Steps: steps}); err != nil {
			t.Fatal(err)
		}
		if err := store.MarkAtRisk(ctx, "p", []string{id}, t0.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	var log bytes.Buffer
	return store, &log, &Radar{Store: store, Log: slog.New(slog.NewJSONHandler(&log, nil))}
}

func TestSelectCapsAtTenLongestAtRiskFirst(t *testing.T) {
	_, log, r := ledger(t, 12, nil)
	sel, err := r.Select(context.Background(), "p")
	if err != nil {
		t.Fatal(err)
	}
	wantSel := []string{"t12", "t11", "t10", "t09", "t08", "t07", "t06", "t05", "t04", "t03"}
	if !slices.Equal(sel.Selected, wantSel) || !slices.Equal(sel.Deferred, []string{"t02", "t01"}) {
		t.Fatalf("selected %v deferred %v", sel.Selected, sel.Deferred)
	}
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("the pass summary is %d log lines, want one:\n%s", len(lines), log)
	}
	var line struct {
		Msg      string   `json:"msg"`
		Project  string   `json:"project"`
		Selected []string `json:"selected"`
		Deferred []string `json:"deferred"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &line); err != nil {
		t.Fatal(err)
	}
	if line.Msg != "staging pass" || line.Project != "p" || !slices.Equal(line.Deferred, []string{"t02", "t01"}) || len(line.Selected) != 10 {
		t.Errorf("summary line %s", lines[0])
	}
}

func TestSelectSkips(t *testing.T) {
	cases := []struct {
		name string
		edit func(*gardener.Project)
		want string
	}{
		{"auto-repair on", func(p *gardener.Project) { p.AutoRepair = true }, "repairs itself"},
		{"no AI key", func(p *gardener.Project) { p.Model = "" }, "needs a key"},
		{"free plan", func(p *gardener.Project) { p.Plan = gardener.PlanFree }, "Pro feature"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			store, log, r := ledger(t, 3, c.edit)
			sel, err := r.Select(context.Background(), "p")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(sel.Skipped, c.want) || len(sel.Selected) != 0 || !strings.Contains(log.String(), c.want) {
				t.Errorf("selection %+v, log %s", sel, log)
			}
			if risky, _ := store.AtRisk(context.Background(), "p"); len(risky) != 3 {
				t.Errorf("a skipped pass changed the ledger: %v", risky)
			}
		})
	}
}

func TestSelectLeavesIneligibleTests(t *testing.T) {
	store, _, r := ledger(t, 3, nil)
	ctx := context.Background()
	tt, _ := store.Test(ctx, "t02")
	tt.Status = gardener.StatusPending
	if _, err := store.SaveTest(ctx, tt); err != nil {
		t.Fatal(err)
	}
	sel, err := r.Select(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sel.Selected, []string{"t03", "t01"}) || len(sel.Ineligible) != 1 || sel.Ineligible[0].ID != "t02" {
		t.Errorf("selection %+v", sel)
	}
}

// TestQueueEmptyReasons: the queue says which empty queue it is, and the staging pass agrees:
// it skips the project exactly when the queue gives the gate's reason, and it selects tests
// exactly when the queue says at-risk tests wait for it.
func TestQueueEmptyReasons(t *testing.T) {
	watched := &gardener.Baseline{ProjectID: "p", Tests: map[string][]string{"t01": {"/a"}}, Pages: map[string]gardener.PageBaseline{"/a": {URL: "/a"}}}
	empty := &gardener.Baseline{ProjectID: "p"}
	unreached := &gardener.Baseline{ProjectID: "p", Tests: map[string][]string{"t01": {"/a", "/b"}}, Pages: map[string]gardener.PageBaseline{"/a": {URL: "/a"}}}
	t0 := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	ctx := context.Background()
	// dismiss stages a proposal for t01 at version 1 and dismisses it, as a reviewer does.
	dismiss := func(t *testing.T, store *embedded.Store) {
		t.Helper()
		if _, err := store.Test(ctx, "t01"); err != nil {
			// t01 is not at risk in this case: the ledger did not create it.
			steps, _ := gardener.DecodeSteps([]byte(`[{"kind":"goto","url":"/"}]`))
			if err := store.CreateTest(ctx, gardener.Test{ID: "t01", ProjectID: "p", Status: gardener.StatusActive, Version: 1, Steps: steps}); err != nil {
				t.Fatal(err)
			}
		}
		pr := gardener.Proposal{ID: "pr-1", ProjectID: "p", TestID: "t01", BaseVersion: 1, Status: gardener.ProposalProposed,
			Triggers: []gardener.AppChange{{ID: "c-1", ProjectID: "p", URL: "/a", Kind: "moved", At: t0}}, StagedAt: t0, UpdatedAt: t0}
		if _, err := store.StageProposal(ctx, pr); err != nil {
			t.Fatal(err)
		}
		if _, err := store.CloseProposal(ctx, gardener.CloseProposal{ProposalID: pr.ID, Status: gardener.ProposalDismissed, By: "ana", At: t0.Add(time.Hour), Dismissal: gardener.DismissalOf(pr)}); err != nil {
			t.Fatal(err)
		}
	}
	green := func(at time.Time) func(*testing.T, *embedded.Store) {
		return func(t *testing.T, store *embedded.Store) {
			if err := store.PutRun(ctx, gardener.Run{ID: "green-" + at.Format("150405"), ProjectID: "p", TestID: "t01", TestVersion: 1, Trigger: gardener.TriggerManual,
				Result: &gardener.RunResult{Passed: true}, At: at}); err != nil {
				t.Fatal(err)
			}
		}
	}
	pass := func(o gardener.PassOutcome) func(*testing.T, *embedded.Store) {
		return func(t *testing.T, store *embedded.Store) {
			s := gardener.NewPassSummary("p", t0.Add(30*time.Minute), nil)
			s.Add("t01", o, "")
			if err := store.PutPassSummary(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
	}
	pending := func(t *testing.T, store *embedded.Store) {
		for _, id := range []string{"t01", "t02"} {
			tt, _ := store.Test(ctx, id)
			tt.Status = gardener.StatusPending
			if _, err := store.SaveTest(ctx, tt); err != nil {
				t.Fatal(err)
			}
		}
	}
	all := func(fs ...func(*testing.T, *embedded.Store)) func(*testing.T, *embedded.Store) {
		return func(t *testing.T, store *embedded.Store) {
			for _, f := range fs {
				f(t, store)
			}
		}
	}
	// skips are the empty queues that are the staging pass's gate.
	skips := []string{EmptyRepairsItself, EmptyNotPro, EmptyNeedsKey, EmptyRadarOff}
	cases := []struct {
		name     string
		edit     func(*gardener.Project)
		baseline *gardener.Baseline
		atRisk   int
		setup    func(*testing.T, *embedded.Store)
		want     string
		explain  string
	}{
		{"auto-repair first", func(p *gardener.Project) { p.AutoRepair, p.Model, p.Plan = true, "", gardener.PlanFree }, nil, 2, nil, EmptyRepairsItself, "Auto-repair is on"},
		{"free plan with tests at risk", func(p *gardener.Project) { p.Plan = gardener.PlanFree }, watched, 2, nil, EmptyNotPro, "free plan"},
		{"free plan before no key", func(p *gardener.Project) { p.Plan, p.Model = gardener.PlanFree, "" }, nil, 0, nil, EmptyNotPro, "needs Pro"},
		{"no key before not swept", func(p *gardener.Project) { p.Model = "" }, nil, 2, nil, EmptyNeedsKey, "needs a key"},
		{"no key with a baseline", func(p *gardener.Project) { p.Model = "" }, watched, 2, nil, EmptyNeedsKey, "needs a key"},
		{"radar off with tests at risk", func(p *gardener.Project) { p.Radar = false }, watched, 2, nil, EmptyRadarOff, "radar off"},
		{"radar off before not swept", func(p *gardener.Project) { p.Radar = false }, nil, 0, nil, EmptyRadarOff, "radar off"},
		{"radar off with a dismissed fix still failing", func(p *gardener.Project) { p.Radar = false }, watched, 0, dismiss, EmptyRadarOff, "radar off"},
		{"not swept", nil, nil, 0, nil, EmptyNotSwept, "No baseline"},
		{"a baseline of no tests", nil, empty, 0, nil, EmptyNoTests, "holds no tests"},
		{"a page the sweep could not reach", nil, unreached, 0, nil, EmptyUnreached, "/b"},
		{"at-risk tests not dry-run yet", nil, watched, 2, nil, EmptyWaiting, "2 tests a sweep put at risk have not"},
		{"only eligible at-risk tests wait", nil, watched, 3, func(t *testing.T, s *embedded.Store) { pending(t, s) }, EmptyWaiting, "1 test a sweep put at risk has not"},
		{"at-risk tests the pass leaves alone", nil, watched, 2, pending, EmptyNotTended, "t01: not eligible: test t01 is pending"},
		{"a dry-run failed and no fix was found", nil, watched, 0, pass(gardener.PassNotStaged), EmptyNoFix, "t01"},
		{"a staged fix dismissed while the test still fails", nil, watched, 0, all(pass(gardener.PassStaged), dismiss), EmptyDismissed, "t01"},
		{"a dismissed fix declined again by the pass", nil, watched, 0, all(dismiss, pass(gardener.PassNotStaged)), EmptyDismissed, "until the test or the app changes"},
		{"a dismissed fix, no pass since", nil, watched, 0, dismiss, EmptyDismissed, "t01"},
		{"a dismissed fix whose test went green since", nil, watched, 0, all(dismiss, green(t0.Add(2*time.Hour))), EmptyNothingBroken, "still passes"},
		{"a dismissed fix, the last green run before it", nil, watched, 0, all(green(t0.Add(-time.Hour)), dismiss), EmptyDismissed, "t01"},
		{"swept, nothing broken", nil, watched, 0, nil, EmptyNothingBroken, "still passes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			store, _, r := ledger(t, c.atRisk, c.edit)
			if c.baseline != nil {
				b := *c.baseline
				b.At = time.Now()
				if err := store.PutBaseline(ctx, b); err != nil {
					t.Fatal(err)
				}
			}
			if c.setup != nil {
				c.setup(t, store)
			}
			q, err := r.Queue(ctx, "p")
			if err != nil {
				t.Fatal(err)
			}
			if q.Empty != c.want || len(q.Rows) != 0 || !strings.Contains(q.Explain, c.explain) && !strings.Contains(selectSkip(t, r), c.explain) {
				t.Errorf("empty %q (%s), want %q saying %q", q.Empty, q.Explain, c.want, c.explain)
			}
			if len(q.AtRisk) != c.atRisk {
				t.Errorf("the at-risk list is %v: it must show whatever the queue says", q.AtRisk)
			}
			b, err := json.Marshal(q)
			if err != nil || !bytes.Contains(b, []byte(`"empty":"`+c.want+`"`)) {
				t.Errorf("JSON %s, %v", b, err)
			}
			// The staging pass must do what the queue says it will.
			sel, err := r.Select(ctx, "p")
			if err != nil {
				t.Fatal(err)
			}
			if skipped := slices.Contains(skips, c.want); skipped != (sel.Skipped != "") {
				t.Errorf("the queue says %q, the pass skipped %q", q.Empty, sel.Skipped)
			}
			if waits := c.want == EmptyWaiting; waits != (len(sel.Selected)+len(sel.Deferred) > 0) {
				t.Errorf("the queue says %q, the pass selected %v deferred %v", q.Empty, sel.Selected, sel.Deferred)
			}
			if tended := c.want == EmptyNotTended; tended != (len(sel.Ineligible) > 0 && len(sel.Selected) == 0) {
				t.Errorf("the queue says %q, the pass left %v", q.Empty, sel.Ineligible)
			}
		})
	}
}

// selectSkip is the sentence a staging pass of p skips with, for the cases whose explanation
// names the gate's reason rather than repeating it.
func selectSkip(t *testing.T, r *Radar) string {
	t.Helper()
	sel, err := r.Select(context.Background(), "p")
	if err != nil {
		t.Fatal(err)
	}
	return sel.Skipped
}

func TestSamePageOnARouteIgnoresTheIDsItCreates(t *testing.T) {
	via := &gardener.PageRoute{TestID: "create-product", Steps: 17}
	for _, c := range []struct {
		via       *gardener.PageRoute
		got, want string
		same      bool
	}{
		{nil, "/products", "/products", true},
		{nil, "/products/9", "/products/8", false}, // a goto that lands elsewhere is a redirect
		{via, "/products/9", "/products/8", true},
		{via, "/checkout/confirmation?order=SS-1005", "/checkout/confirmation?order=SS-1004", true},
		{via, "/login", "/products/8", false},
		{via, "/products/9/edit", "/products/8", false},
	} {
		if got := samePage(c.via, c.got, c.want); got != c.same {
			t.Errorf("samePage(via=%v, %q, %q) = %v", c.via != nil, c.got, c.want, got)
		}
	}
}

// A product created or deleted is the app's data: rows of a table or items of a list that come
// and go among rows of their shape are no change, and do not change the page's fingerprint.
func TestRowsComingAndGoingAreData(t *testing.T) {
	row := func(n int, name string) []gardener.Fingerprint {
		tr := fmt.Sprintf("/html[1]/body[1]/main[1]/table[1]/tbody[1]/tr[%d]", n)
		r := gardener.Fingerprint{Tag: "TR", TestID: fmt.Sprintf("product-row-%d", n), XPath: tr, VisibleText: []string{name}}
		link := gardener.Fingerprint{Tag: "A", Role: "link", AccessibleName: name, Href: fmt.Sprintf("http://app/products/%d", n), XPath: tr + "/td[1]/a[1]"}
		return []gardener.Fingerprint{r, link}
	}
	save := fp("BUTTON", "save", "Save", "/html[1]/body[1]/main[1]/button[1]")
	base := append(append([]gardener.Fingerprint{save}, row(1, "Fern")...), row(2, "Cactus")...)
	grown := append(slices.Clone(base), row(3, "Monstera")...)
	shrunk := append([]gardener.Fingerprint{save}, row(1, "Fern")...)
	for name, now := range map[string][]gardener.Fingerprint{"row added": grown, "row removed": shrunk} {
		if ch := diffPage(base, now, "http://app"); len(ch) != 0 {
			t.Errorf("%s: %+v", name, ch)
		}
		if pageFingerprint(now) != pageFingerprint(base) {
			t.Errorf("%s changed the page fingerprint", name)
		}
	}
	// Structure still counts: a new button outside the table, the table emptied, a row renamed.
	banner := fp("BUTTON", "accept", "Accept cookies", "/html[1]/body[1]/div[1]/button[1]")
	if ch := diffPage(base, append(slices.Clone(base), banner), "http://app"); len(ch) != 1 || ch[0].Kind != Added {
		t.Errorf("a new button: %+v", ch)
	}
	if pageFingerprint(append(slices.Clone(base), banner)) == pageFingerprint(base) {
		t.Error("a new button left the page fingerprint as it was")
	}
	if ch := diffPage(base, []gardener.Fingerprint{save}, "http://app"); len(ch) != 4 {
		t.Errorf("the table emptied: %+v", ch)
	}
	renamed := slices.Clone(base)
	renamed[2].AccessibleName, renamed[2].VisibleText = "Fern (sold out)", []string{"Fern (sold out)"}
	if ch := diffPage(base, renamed, "http://app"); len(ch) != 1 || ch[0].Kind != Changed {
		t.Errorf("a renamed row link: %+v", ch)
	}
}

// TestBaselineDue: a project never swept gets a baseline first, and says the sweep compares the
// app with itself; one with a baseline keeps it unless a refresh is asked for.
func TestBaselineDue(t *testing.T) {
	ctx := context.Background()
	store, _, rad := ledger(t, 0, nil)
	due := func(refresh bool) string {
		t.Helper()
		why, err := rad.BaselineDue(ctx, "p", refresh)
		if err != nil {
			t.Fatal(err)
		}
		return why
	}
	if why := due(false); !strings.Contains(why, "compares the app with itself") {
		t.Errorf("no baseline yet: due because %q, want the first-sweep reason", why)
	}
	if err := store.PutBaseline(ctx, gardener.Baseline{ProjectID: "p", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if why := due(false); why != "" {
		t.Errorf("with a baseline: due because %q, want not due", why)
	}
	if why := due(true); why != "asked for" {
		t.Errorf("refresh: due because %q, want %q", why, "asked for")
	}
}
