package ladder

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/builtin"
	"github.com/driftgardener/gardener/pkg/gardener"
)

// bannerApp is a three-page app a consent banner now covers on the pages in shows, each time
// one of them loads: a click on its "Accept all" button takes it away until the next load. A
// step acting under the banner fails as the browser reports it (covered, with what covers
// it and a snapshot holding the button); a click on the button where no banner is up finds
// nothing. Pages load at the goto and at the clicks on #next and #next2, each with a request
// for the page, as a followed link makes.
type bannerApp struct {
	shows map[string]bool
	// renamed are locators that match nothing now: the browser says so before it looks at
	// what covers the page.
	renamed map[string]bool
	replays int
}

var (
	bannerButton = gardener.Fingerprint{Tag: "button", Role: "button", AccessibleName: "Accept all", VisibleText: []string{"Accept all"}, IsButton: true,
		XPath: "/html/body/div[2]/button", IdxPath: "body>div.cookie-banner>button", ClassList: []string{"cookie-accept"}}
	bannerCover = gardener.Fingerprint{Tag: "div", ClassList: []string{"cookie-banner"}, XPath: "/html/body/div[2]"}
	loadsNext   = map[string]string{"css=#next": "/b", "css=#next2": "/c"}
)

func bannerTest() gardener.Test {
	return gardener.Test{ID: "t", ProjectID: "p", Status: gardener.StatusActive, Version: 1, Steps: []gardener.Step{
		{Kind: gardener.Goto, URL: "/a"},
		{Kind: gardener.Fill, Locator: loc("css=#x"), Value: "1"},
		{Kind: gardener.Click, Locator: loc("css=#next")},
		{Kind: gardener.Fill, Locator: loc("css=#y"), Value: "2"},
		{Kind: gardener.Click, Locator: loc("css=#next2")},
		{Kind: gardener.Click, Locator: loc("css=#z")},
	}}
}

// bannerGreen is bannerTest's run on the app before the banner: its last green run.
func bannerGreen(t *testing.T) *gardener.RunResult {
	t.Helper()
	green, err := (&bannerApp{}).Replay(context.Background(), bannerTest(), gardener.ReplayOptions{})
	if err != nil || !green.Result.Passed {
		t.Fatalf("the baseline run: %v %+v", err, green.Result)
	}
	return &green.Result
}

// targets are what each step acts on, as its locator is written.
func targets(steps []gardener.Step) []string {
	var out []string
	for _, st := range steps {
		out = append(out, st.Target().String())
	}
	return out
}

func isDismissal(st gardener.Step) bool {
	return st.Kind == gardener.Click && strings.Contains(st.Locator.String(), "Accept all")
}

func (a *bannerApp) Replay(_ context.Context, t gardener.Test, _ gardener.ReplayOptions) (gardener.Replay, error) {
	a.replays++
	res := gardener.RunResult{TestID: t.ID, TestVersion: t.Version, FailedIndex: -1}
	page, up := "", false
	for i, st := range t.Steps {
		rec := gardener.StepRecord{Path: strconv.Itoa(i + 1), Kind: st.Kind, URLBefore: page, URLAfter: page}
		load := func(to string) {
			page, up = "http://app.test"+to, a.shows[to]
			rec.URLAfter = page
			rec.Requests = []gardener.Request{{Method: "GET", URL: page, Status: 200}}
		}
		fail := func(kind gardener.ErrorKind, msg string, cover *gardener.Fingerprint) (gardener.Replay, error) {
			res.Steps = append(res.Steps, rec)
			res.FailedStep, res.FailedIndex, res.ErrorKind, res.Message, res.CoveredBy = rec.Path, i, kind, msg, cover
			snap := &gardener.Snapshot{URL: page, Candidates: []gardener.Fingerprint{{Tag: "input", ID: "y", Covered: up}}}
			if up {
				snap.Candidates = append(snap.Candidates, bannerButton)
			}
			return gardener.Replay{Result: res, Snapshot: snap}, nil
		}
		switch {
		case st.Kind == gardener.Goto:
			load(st.URL)
		case a.renamed[st.Locator.String()]:
			return fail(gardener.ErrElementNotFound, "no element matches "+st.Locator.String(), nil)
		case isDismissal(st):
			if !up {
				return fail(gardener.ErrElementNotFound, "no element matches "+st.Locator.String(), nil)
			}
			up = false
		case st.IsAction() && up:
			return fail(gardener.ErrTimeout, "the element "+st.Locator.String()+" is covered by div.cookie-banner", &bannerCover)
		case loadsNext[st.Locator.String()] != "":
			load(loadsNext[st.Locator.String()])
		}
		if st.Kind == gardener.Fill {
			rec.Values = []string{st.Value}
		}
		rec.Passed = true
		res.Steps = append(res.Steps, rec)
	}
	res.Passed = true
	return gardener.Replay{Result: res}, nil
}

// TestReturningBannerDismissedOnEveryPageInOneProof: a consent banner that comes back with every
// page load is dismissed on every page the last green run loaded once the first proof shows it
// back on the second page, so the climb takes one reproduction and two proofs, not one proof per
// page. Where it does not come back (the app remembers the dismissal from the second page on),
// the proof fails at the dismissal expected there, which is dropped with the ones after it; a
// banner shown on the first load only is dismissed there alone. Every fix dismisses exactly on
// the pages the banner shows on, and each was proven green.
func TestReturningBannerDismissedOnEveryPageInOneProof(t *testing.T) {
	green := bannerGreen(t)
	for _, c := range []struct {
		name    string
		shows   []string
		replays int
	}{
		{"on every load", []string{"/a", "/b", "/c"}, 3},
		{"not on the last page", []string{"/a", "/b"}, 4},
		{"on the first load only", []string{"/a"}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			app := &bannerApp{shows: map[string]bool{}}
			for _, p := range c.shows {
				app.shows[p] = true
			}
			l := &Ladder{Runner: app, Model: builtin.Engine{}}
			res, err := l.Repair(context.Background(), Request{Test: bannerTest(), Mode: gardener.ModeApply, LastGreen: green})
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome != Repaired || res.Proof == nil || !res.Proof.Passed {
				t.Fatalf("outcome %s (%s); rungs %+v", res.Outcome, res.Reason, res.Rungs)
			}
			// Where each dismissal goes: before the first action on each page the banner shows on.
			var before []string
			for i, st := range res.Steps {
				if isDismissal(st) {
					before = append(before, res.Steps[i+1].Target().String())
				}
			}
			want := map[string]string{"/a": "css=#x", "/b": "css=#y", "/c": "css=#z"}
			var wantBefore []string
			for _, p := range c.shows {
				wantBefore = append(wantBefore, want[p])
			}
			if !slices.Equal(before, wantBefore) {
				t.Errorf("dismissals before %v, want before %v", before, wantBefore)
			}
			if app.replays != c.replays {
				t.Errorf("%d replays, want %d", app.replays, c.replays)
			}
		})
	}
}

// healing heals the locators in at, and answers everything else as the built-in engine does.
type healing struct {
	builtin.Engine
	at map[string]string
}

func (m healing) FixLocator(ctx context.Context, ask gardener.LocatorAsk) (gardener.LocatorAnswer, error) {
	if l, ok := m.at[ask.Step.Target().String()]; ok {
		return gardener.LocatorAnswer{Locator: loc(l), Reason: "the same field, renamed"}, nil
	}
	return m.Engine.FixLocator(ctx, ask)
}

// TestBannerBackOverARenamedField: a proof that fails at a renamed field on a page the banner
// came back on (the field not found, so nothing says it is covered) gets the field healed and
// the banner dismissed there, and on the pages after it, in one candidate: a reproduction and two
// proofs, where the heal alone met the field covered in a third.
func TestBannerBackOverARenamedField(t *testing.T) {
	green := bannerGreen(t)
	app := &bannerApp{shows: map[string]bool{"/a": true, "/b": true, "/c": true}, renamed: map[string]bool{"css=#y": true}}
	l := &Ladder{Runner: app, Model: healing{at: map[string]string{"css=#y": "css=#y2"}}}
	res, err := l.Repair(context.Background(), Request{Test: bannerTest(), Mode: gardener.ModeApply, LastGreen: green})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != Repaired || res.Proof == nil || !res.Proof.Passed {
		t.Fatalf("outcome %s (%s); rungs %+v", res.Outcome, res.Reason, res.Rungs)
	}
	want := []string{"", `role=button[name="Accept all"]`, "css=#x", "css=#next", `role=button[name="Accept all"]`, "css=#y2", "css=#next2", `role=button[name="Accept all"]`, "css=#z"}
	if got := targets(res.Steps); !slices.Equal(got, want) {
		t.Errorf("steps target %v, want %v", got, want)
	}
	if app.replays != 3 {
		t.Errorf("%d replays, want 3", app.replays)
	}
}

// TestRenamedFieldUnderTheBannerOnTheFirstPage: a field renamed on a page a banner covers fails
// as not found, and the snapshot shows the page's controls covered: the first candidate heals
// the field and dismisses the banner, so its proof goes on to the next page instead of meeting
// the healed field covered. A page that is not covered gets the heal alone.
func TestRenamedFieldUnderTheBannerOnTheFirstPage(t *testing.T) {
	green := bannerGreen(t)
	for _, c := range []struct {
		name    string
		shows   []string
		want    []string
		replays int
	}{
		{"every load", []string{"/a", "/b", "/c"}, []string{"", `role=button[name="Accept all"]`, "css=#x2", "css=#next", `role=button[name="Accept all"]`, "css=#y", "css=#next2", `role=button[name="Accept all"]`, "css=#z"}, 3},
		{"no banner", nil, []string{"", "css=#x2", "css=#next", "css=#y", "css=#next2", "css=#z"}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			app := &bannerApp{shows: map[string]bool{}, renamed: map[string]bool{"css=#x": true}}
			for _, p := range c.shows {
				app.shows[p] = true
			}
			l := &Ladder{Runner: app, Model: healing{at: map[string]string{"css=#x": "css=#x2"}}}
			res, err := l.Repair(context.Background(), Request{Test: bannerTest(), Mode: gardener.ModeApply, LastGreen: green})
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome != Repaired {
				t.Fatalf("outcome %s (%s); rungs %+v", res.Outcome, res.Reason, res.Rungs)
			}
			if got := targets(res.Steps); !slices.Equal(got, c.want) {
				t.Errorf("steps target %v, want %v", got, c.want)
			}
			if app.replays != c.replays {
				t.Errorf("%d replays, want %d", app.replays, c.replays)
			}
		})
	}
}
