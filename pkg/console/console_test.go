package console_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// TestReview: a person signs in, reads every page, and approves one proposal, dismisses one,
// reverts one auto-repair and marks another reviewed, all in Chromium; the store shows each
// decision afterwards, with who made it.
func TestReview(t *testing.T) {
	w := seed(t)
	srv := serve(t, w)
	tb := newTab(t, srv.URL, 1280)
	ctx := context.Background()
	const who = "ann@example.com"
	tb.signIn("/console/projects/shop", who, "shop")
	if got := tb.url(); got != "/console/projects/shop" {
		t.Fatalf("after signing in the browser is at %s, want back at the radar page", got)
	}

	// The radar page: the queue with everything a row carries, the at-risk list, the pass.
	body := tb.text("main")
	for _, want := range []string{
		"Staged repairs", "Apply a coupon", "Check out as a guest",
		"Restated by 0 later sweeps", "Failing step 3", "css=#checkout matched nothing",
		"http://shop.test/cart", "the checkout button's id changed",
		"Flow change", "Insensitive check", "NOT KEPT", "Contract: 1 of 2 kept", "Checks proven sensitive: 1 of 2",
		"Approve and apply", "Dismiss",
		"At risk since the last sweep", "Browse the catalogue",
		"Last staging pass", "Waiting for the next pass: at-risk",
		"Last sweep", "Pages it could not reach: 1", "http://shop.test/account",
		"Dry-run: 3 (approve-me, dismiss-me, quiet)", "Staged: 2 (approve-me, dismiss-me)", "Still passing, nothing proposed: 1 (quiet)",
		"Deferred to the next sweep: 1 (at-risk)",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the radar page does not show %q", want)
		}
	}
	// A diff entry opens to the step before and after, labelled in words.
	tb.do(clickAction(`#proposal-p-approve .diff summary`))
	if got := tb.text(`#proposal-p-approve .diff .change`); !strings.Contains(got, "Before") || !strings.Contains(got, "click css=#checkout") || !strings.Contains(got, "After") || !strings.Contains(got, "click css=#pay") {
		t.Errorf("the opened diff shows %q, want the step before and after", got)
	}

	tb.click(`#proposal-p-approve form[action$="/approve"] button`)
	if got := tb.text(".notice"); !strings.Contains(got, "Approved and applied") {
		t.Errorf("after approving the page says %q", got)
	}
	p, err := w.store.Proposal(ctx, "p-approve")
	if err != nil {
		t.Fatal(err)
	}
	tst, err := w.store.Test(ctx, "approve-me")
	if err != nil {
		t.Fatal(err)
	}
	if p.Status != gardener.ProposalApplied || p.DecidedBy != who || tst.Version != 2 || tst.Steps[2].Locator.String() != "css=#pay" {
		t.Errorf("after approving: proposal %s by %q, test version %d step 3 %s; want applied by %s, version 2, css=#pay", p.Status, p.DecidedBy, tst.Version, tst.Steps[2].Locator, who)
	}
	reps, err := w.store.Repairs(ctx, "approve-me")
	if err != nil || len(reps) != 1 || reps[0].ApprovedBy != who {
		t.Errorf("the approval's repair record: %+v, %v; want one approved by %s", reps, err, who)
	}

	tb.click(`#proposal-p-dismiss form[action$="/dismiss"] button`)
	if p, err = w.store.Proposal(ctx, "p-dismiss"); err != nil || p.Status != gardener.ProposalDismissed || p.DecidedBy != who {
		t.Errorf("after dismissing: %s by %q (%v), want dismissed by %s", p.Status, p.DecidedBy, err, who)
	}
	// The rows' titles: another row may name a decided proposal's test as one that uses the
	// locator its fix heals.
	if titles := value(tb, chromedp.Evaluate[string](`[...document.querySelectorAll(".row h3")].map(h => h.textContent).join(" | ")`)); strings.Contains(titles, "Apply a coupon") || strings.Contains(titles, "Check out as a guest") {
		t.Errorf("decided proposals are still in the queue: %s", titles)
	}

	// Tests list: the badge and the filters.
	tb.open("/console/projects/shop/tests?review=1")
	list := tb.text("table.list")
	for _, want := range []string{"Log in", "Sign up", "Auto-repaired"} {
		if !strings.Contains(list, want) {
			t.Errorf("the tests needing review do not show %q: %s", want, list)
		}
	}
	if strings.Contains(list, "Read the FAQ") {
		t.Errorf("a test needing no review is listed under needs review: %s", list)
	}
	tb.open("/console/projects/shop/tests?risk=1")
	if list := tb.text("table.list"); !strings.Contains(list, "Browse the catalogue") || strings.Contains(list, "Log in") {
		t.Errorf("the at-risk filter shows %q", list)
	}
	tb.open("/console/projects/shop/tests?repaired=1")
	if list := tb.text("table.list"); !strings.Contains(list, "Apply a coupon") || !strings.Contains(list, "Log in") || strings.Contains(list, "Read the FAQ") {
		t.Errorf("repaired this week shows %q", list)
	}

	// Revert: the confirmation is the API's, honest about the consequence.
	repair := w.repairs["revert-me"]
	tb.open("/console/tests/revert-me")
	page := tb.text("main")
	for _, want := range []string{"Auto-repaired", "protected check", "Repair history", "By: auto", "Contract: 2 of 2 kept", "Checks proven sensitive: 2 of 2", "sched-revert-me"} {
		if !strings.Contains(page, want) {
			t.Errorf("the test page does not show %q", want)
		}
	}
	tb.do(clickAction(`#repair-` + repair + ` details.revert summary`))
	if got := tb.text(`#confirm-` + repair); !strings.Contains(got, "will fail again until it is repaired another way") {
		t.Errorf("the revert confirmation says %q", got)
	}
	tb.click(`#repair-` + repair + ` details.revert button`)
	tst, err = w.store.Test(ctx, "revert-me")
	if err != nil {
		t.Fatal(err)
	}
	r, err := w.store.Repair(ctx, repair)
	if err != nil {
		t.Fatal(err)
	}
	if tst.Version != 3 || !slices.EqualFunc(tst.Steps, r.PreSteps, gardener.Step.Equal) || r.RevertedBy != who {
		t.Errorf("after reverting: test version %d, steps restored %v, reverted by %q; want version 3, the pre-repair steps, %s", tst.Version, slices.EqualFunc(tst.Steps, r.PreSteps, gardener.Step.Equal), r.RevertedBy, who)
	}

	// Mark reviewed: the review dialog opens with the diff open and the action inside it (the
	// same action outside is for a browser without the script, and hidden here); the badge
	// goes, the fix stays.
	tb.open("/console/tests/review-me")
	if value(tb, chromedp.Evaluate[bool](`getComputedStyle(document.querySelector('[data-without-dialog="review-dialog"]')).display !== "none"`)) {
		t.Error("with the script, Mark reviewed is still offered outside the review dialog")
	}
	tb.do(clickAction(`button[data-opens="review-dialog"]`))
	if !value(tb, chromedp.Evaluate[bool](`document.getElementById("review-dialog").open`)) {
		t.Error("the Review button did not open the review dialog")
	}
	if got := tb.text("#review-dialog .diff .change"); !strings.Contains(got, "click css=#checkout") || !strings.Contains(got, "click css=#pay") {
		t.Errorf("the review dialog's diff shows %q, want it open on the step before and after", got)
	}
	tb.click(`#review-dialog form[action$="/reviewed"] button`)
	r, err = w.store.Repair(ctx, w.repairs["review-me"])
	if err != nil {
		t.Fatal(err)
	}
	tst, _ = w.store.Test(ctx, "review-me")
	if r.Badge || r.ReviewedBy != who || tst.Version != 2 {
		t.Errorf("after marking reviewed: badge %v by %q, test version %d; want no badge, %s, version 2 kept", r.Badge, r.ReviewedBy, tst.Version, who)
	}

	// The triage issue with its evidence, on its test's page.
	tb.open("/console/tests/at-risk")
	if got := tb.text("main"); !strings.Contains(got, "app-bug at step 4") || !strings.Contains(got, "POST /api/checkout answered 500") {
		t.Errorf("the triage issue is not on the test page: %s", got)
	}

	// The run page: the failure, and why no repair is offered — the run is of version 1 and
	// the revert above wrote another, which the manual gate refuses in its words.
	tb.open("/console/runs/sched-revert-me")
	run := tb.text("main")
	for _, want := range []string{"Failing step", "element-not-found: css=#checkout matched nothing", "http://shop.test/cart", "which is at version 3 now"} {
		if !strings.Contains(run, want) {
			t.Errorf("the run page does not show %q", want)
		}
	}
	if strings.Contains(run, "Suggest fix") {
		t.Errorf("the page of a run of a gone version offers a repair: %s", run)
	}
	// A failed run of the test's version offers the manual actions.
	if err := w.store.PutRun(ctx, gardener.Run{ID: "sched-quiet", ProjectID: "shop", TestID: "quiet", TestVersion: 1, Trigger: gardener.TriggerSchedule, At: w.now}); err != nil {
		t.Fatal(err)
	}
	tb.open("/console/runs/sched-quiet")
	run = tb.text("main")
	for _, want := range []string{"Suggest fix", "Diagnose", "Run the ladder"} {
		if !strings.Contains(run, want) {
			t.Errorf("the run page does not show %q", want)
		}
	}
	tb.open("/console/runs/" + w.control)
	if got := tb.text("main"); !strings.Contains(got, "negative control run") || strings.Contains(got, "Suggest fix") {
		t.Errorf("the control run's page offers a repair: %s", got)
	}

	// Settings: a change is written through the API's update.
	tb.open("/console/projects/shop/settings")
	tb.do(clickAction(`input[name="radar"]`))
	tb.click(`form.stack button[type="submit"]`)
	proj, err := w.store.Project(ctx, "shop")
	if err != nil || proj.Radar {
		t.Errorf("after turning the radar off the project has radar %v (%v)", proj.Radar, err)
	}

	// Another project's objects answer as ones that do not exist.
	tb.open("/console/tests/secret")
	if got := tb.text("main"); !strings.Contains(got, "not found") || strings.Contains(got, "Not yours") {
		t.Errorf("another project's test shows %q", got)
	}
}
