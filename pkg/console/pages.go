package console

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/driftgardener/gardener/pkg/eventstream"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/gardening"
)

// timeLayout is how the pages write a time (always UTC, said so).
const timeLayout = "2006-01-02 15:04 UTC"

// page is what the layout renders around a page's own content.
type page struct {
	Title   string
	Visitor Visitor
	// Project is the project the navigation links to; Section is the one the page is in.
	Project string
	Section string
	Data    any
}

// pageNames are the templates that are pages; each is parsed with the layout.
var pageNames = []string{"home", "signin", "problem", "radar", "tests", "test", "run", "settings", "confirm"}

var funcs = template.FuncMap{
	"when": func(t time.Time) string {
		if t.IsZero() {
			return "never"
		}
		return t.UTC().Format(timeLayout)
	},
	"iso":   func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"short": func(d time.Duration) string { return d.Round(time.Minute).String() },
	"join":  strings.Join,
	// path escapes an id for a URL path segment, so an id with "/", "?" or "#" in it still
	// names its object.
	"path":  url.PathEscape,
	"since": func(t time.Time) string { return time.Since(t).Round(time.Minute).String() },
	"usd":   gardener.FormatUSD,
	// qty writes a measured quantity without trailing zeros (units may be halves).
	"qty": func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) },
	"status": func(s gardener.TestStatus) string {
		return string(s)
	},
}

func parseTemplates() (map[string]*template.Template, error) {
	out := map[string]*template.Template{}
	for _, name := range pageNames {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/parts.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("console template %s: %w", name, err)
		}
		out[name] = t
	}
	return out, nil
}

// render writes a page; it renders into a buffer first, so a template error answers 500 rather
// than half a page.
func (c *Console) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	var b bytes.Buffer
	if err := c.pages[name].Execute(&b, p); err != nil {
		c.log().Error("console: render", "page", name, "path", r.URL.Path, "error", err.Error())
		http.Error(w, "rendering the page failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

// problem answers with a page saying what went wrong.
func (c *Console) problem(w http.ResponseWriter, r *http.Request, v Visitor, status int, msg string) {
	c.render(w, r, status, "problem", page{Title: http.StatusText(status), Visitor: v, Project: v.Project, Data: struct {
		Status  int
		Message string
		Back    string
	}{status, msg, back(r)}})
}

// back is the console page a problem links back to: the page the form was on.
func back(r *http.Request) string {
	if ref, err := url.Parse(r.Referer()); err == nil && ref.Host == r.Host {
		return safeNext(ref.RequestURI())
	}
	return Prefix
}

// failed answers a domain error with its status and message.
func (c *Console) failed(w http.ResponseWriter, r *http.Request, v Visitor, err error) {
	c.problem(w, r, v, statusOf(err), err.Error())
}

func statusOf(err error) int {
	var ae *ActionError
	var form *FormError
	switch {
	case errors.As(err, &ae):
		return ae.Status
	case errors.As(err, &form):
		return http.StatusBadRequest
	}
	return gardening.ClassOf(err).HTTPStatus()
}

// done sends the browser back to a page after an action, with a notice the page shows. The
// notice is one of a fixed set, chosen by key, so nothing a request carries is reflected.
func done(w http.ResponseWriter, r *http.Request, to, notice string) {
	http.Redirect(w, r, to+"?done="+url.QueryEscape(notice), http.StatusSeeOther)
}

var notices = map[string]string{
	"approved":  "Approved and applied: the fix is written to the test and records who approved it.",
	"baselined": "Baseline recorded: the project had none, so there was nothing to compare with yet. The next sweep compares the app with it.",
	"swept":     "Swept: the sections below show what the sweep saw and what the staging pass after it did.",
	"reswept":   "Swept: the sections below show what the sweep saw and what the staging pass after it did. Tests were added, edited or went green since the baseline was recorded, so it was recorded again after the sweep: the next sweep watches them as they are now.",
	"green":     "Ran now: the test passed. This run is its green run: a later repair of this version compares a failure with it.",
	"red":       "Ran now: the test failed. The failure is below; a repair can start from this run.",
	"dismissed": "Dismissed: the fix is not proposed again unless the test or the app changes.",
	"reverted":  "Reverted: the pre-repair steps are back.",
	"reviewed":  "Marked reviewed: the Auto-repaired badge is cleared and the fix stays.",
	"saved":     "Settings saved.",
	"started":   "Started: the execution's state is below.",
}

// approvalNotices are the notices after an approval that names other tests using the locator
// its fix healed (flash adds their ids).
var approvalNotices = map[string]string{
	"approved-others":   "Approved and applied: the fix is written to the test and records who approved it. Other tests use the locator it healed; approving alone leaves them as they are, and they fail on the same change until they are repaired.",
	"propagated":        "Approved and applied, and the healed locator carried to the other tests that use it: each was replayed with it and written only if green and nothing in it needs a person.",
	"propagate-stopped": "Approved and applied, but carrying the healed locator to the other tests that use it stopped part way (the server's log says why): a test not named below is left as it is.",
}

// flash is the notice a page shows after an action. After an approval it names the other tests
// the approval left or reached, by id: only the ids come from the address, the words are the
// console's.
func flash(r *http.Request) string {
	q := r.URL.Query()
	msg := cmp.Or(notices[q.Get("done")], approvalNotices[q.Get("done")])
	if msg == "" {
		return ""
	}
	for _, k := range []struct{ key, said string }{
		{"written", "Carried to and written: "},
		{"staged", "Carried to and staged for a person (see the queue): "},
		{"left", "Left as they are: "},
	} {
		if ids := testIDs(q[k.key]); len(ids) > 0 {
			msg += " " + k.said + strings.Join(ids, ", ") + "."
		}
	}
	return msg
}

// testIDs keeps of the ids an address names those the id rule takes, at most as many as one
// approval can carry a heal to: a link made elsewhere can put anything in its query, and the
// notice must not show words of its choosing as the console's.
func testIDs(ids []string) []string {
	var out []string
	for _, id := range ids {
		if len(out) < gardener.MaxPropagated && gardener.CheckID("test", id) == nil {
			out = append(out, id)
		}
	}
	return out
}

func (c *Console) home(w http.ResponseWriter, r *http.Request, v Visitor) {
	type entry struct{ ID, Name string }
	var list []entry
	if v.May("*") {
		ps, err := c.Store.Projects(r.Context())
		if err != nil {
			c.failed(w, r, v, err)
			return
		}
		for _, p := range ps {
			list = append(list, entry{p.ID, p.Name})
		}
	}
	for _, id := range v.Projects {
		if id == "*" || slices.ContainsFunc(list, func(e entry) bool { return e.ID == id }) {
			continue
		}
		p, err := c.Store.Project(r.Context(), id)
		if err != nil {
			continue
		}
		list = append(list, entry{p.ID, p.Name})
	}
	c.render(w, r, http.StatusOK, "home", page{Title: "Projects", Visitor: v, Data: struct {
		Projects []entry
		Any      bool
	}{list, v.May("*")}})
}

func (c *Console) radarPage(w http.ResponseWriter, r *http.Request, v Visitor) {
	rv, err := c.radarView(r.Context(), v.Project)
	if err != nil {
		c.failed(w, r, v, err)
		return
	}
	rv.Flash = flash(r)
	c.render(w, r, http.StatusOK, "radar", page{Title: "App radar — " + rv.Project.Name, Visitor: v, Project: v.Project, Section: "radar", Data: rv})
}

func (c *Console) testsPage(w http.ResponseWriter, r *http.Request, v Visitor) {
	q := r.URL.Query()
	f := testFilter{Repaired: q.Get("repaired") != "", Review: q.Get("review") != "", Risk: q.Get("risk") != "", Status: q.Get("status")}
	if f.Status != "" && !slices.Contains(testStatuses, gardener.TestStatus(f.Status)) {
		c.problem(w, r, v, http.StatusBadRequest, fmt.Sprintf("status %q is not one of draft, pending, active, rejected, archived", f.Status))
		return
	}
	tv, err := c.testsView(r.Context(), v.Project, f)
	if err != nil {
		c.failed(w, r, v, err)
		return
	}
	c.render(w, r, http.StatusOK, "tests", page{Title: "Tests — " + tv.Project.Name, Visitor: v, Project: v.Project, Section: "tests", Data: tv})
}

func (c *Console) testPage(w http.ResponseWriter, r *http.Request, v Visitor) {
	tv, err := c.testView(r.Context(), r.PathValue("testId"), r.URL.Query().Get("runsAfter"))
	if err != nil {
		c.failed(w, r, v, err)
		return
	}
	tv.Flash = flash(r)
	c.render(w, r, http.StatusOK, "test", page{Title: "Test — " + tv.Test.Name, Visitor: v, Project: v.Project, Section: "tests", Data: tv})
}

func (c *Console) runPage(w http.ResponseWriter, r *http.Request, v Visitor) {
	rv, err := c.runView(r.Context(), r.PathValue("runId"))
	if err != nil {
		c.failed(w, r, v, err)
		return
	}
	rv.Flash = flash(r)
	c.render(w, r, http.StatusOK, "run", page{Title: "Run " + rv.Run.ID, Visitor: v, Project: v.Project, Section: "tests", Data: rv})
}

// executionEvents streams an execution's events to the run page's script. Served by a process
// that can flush (gardener serve), the stream stays open while the execution runs; through API
// Gateway it answers what is there and EventSource comes back with the last id it saw.
func (c *Console) executionEvents(w http.ResponseWriter, r *http.Request, _ Visitor) {
	id := r.PathValue("executionId")
	eventstream.Serve(w, r, func(ctx context.Context, after int) (eventstream.Page, error) {
		return eventstream.Read(ctx, c.Store, c.executionStatus, id, after, 0)
	}, eventstream.Options{})
}

type settingsView struct {
	Project gardener.Project
	Error   string
	Flash   string
}

func (c *Console) settingsPage(w http.ResponseWriter, r *http.Request, v Visitor) {
	p, err := c.Store.Project(r.Context(), v.Project)
	if err != nil {
		c.failed(w, r, v, err)
		return
	}
	c.render(w, r, http.StatusOK, "settings", page{Title: "Settings — " + p.Name, Visitor: v, Project: v.Project, Section: "settings", Data: settingsView{Project: p, Flash: flash(r)}})
}

// saveSettings changes the settings through the API's own update: the model is checked, and the
// write is conditional on the version the form was rendered from, so a change someone made
// meanwhile is shown rather than overwritten.
func (c *Console) saveSettings(w http.ResponseWriter, r *http.Request, v Visitor) {
	version, err := strconv.Atoi(r.PostFormValue("version"))
	if err != nil {
		c.failed(w, r, v, &FormError{Field: "version", Reason: fmt.Sprintf("%q is not a whole number", r.PostFormValue("version"))})
		return
	}
	autoRepair, radarOn, model := r.PostFormValue("autoRepair") == "on", r.PostFormValue("radar") == "on", strings.TrimSpace(r.PostFormValue("model"))
	s := gardening.Settings{AutoRepair: &autoRepair, Radar: &radarOn, Model: &model}
	_, err = c.App.UpdateSettings(r.Context(), v.Project, s, gardening.SettingsReadAt(func(at int) bool { return at == version }))
	if err == nil {
		done(w, r, Prefix+"/projects/"+url.PathEscape(v.Project)+"/settings", "saved")
		return
	}
	p, perr := c.Store.Project(r.Context(), v.Project)
	if perr != nil {
		c.failed(w, r, v, perr)
		return
	}
	msg := err.Error()
	status := statusOf(err)
	// Settings that moved are shown as they are now, with the refusal every door gives; any other
	// refusal keeps what the person entered beside it.
	if status != http.StatusPreconditionFailed {
		p.AutoRepair, p.Radar, p.Model = autoRepair, radarOn, model
	}
	c.render(w, r, status, "settings", page{Title: "Settings — " + p.Name, Visitor: v, Project: v.Project, Section: "settings", Data: settingsView{Project: p, Error: msg}})
}

// approve applies a proposal. One that needs confirming (gardener.ApprovalCautions: UNVERIFIED,
// a step deleted) is applied only when the form says it was confirmed; otherwise the answer is
// a page that says what the person is about to write and asks again. The check is here, on the
// server, so no form (a script's, a stale page's) skips it.
func (c *Console) approve(w http.ResponseWriter, r *http.Request, v Visitor) {
	id := r.PathValue("proposalId")
	if r.PostFormValue("confirm") != "yes" {
		cautions, err := c.App.ApprovalCautions(r.Context(), id)
		if err != nil {
			c.failed(w, r, v, err)
			return
		}
		if len(cautions) > 0 {
			c.confirmApproval(w, r, v, id, cautions)
			return
		}
	}
	propagate := r.PostFormValue("propagate") == "yes"
	opt := gardening.ApproveOptions{Propagate: propagate}
	if propagate {
		opt.Here = c.here(v.Project)
	}
	a, err := c.App.Approve(r.Context(), gardening.Person(v.ID), id, opt)
	if err != nil {
		c.failed(w, r, v, err)
		return
	}
	to := Prefix + "/projects/" + url.PathEscape(v.Project)
	switch {
	case propagate && len(a.Propagated) > 0 || a.PropagateError != "":
		q := url.Values{"done": {"propagated"}}
		if a.PropagateError != "" {
			q.Set("done", "propagate-stopped")
		}
		for _, p := range a.Propagated {
			q.Add(string(gardening.CarriedOf(p)), p.TestID)
		}
		http.Redirect(w, r, to+"?"+q.Encode(), http.StatusSeeOther)
	case len(a.Others) > 0:
		q := url.Values{"done": {"approved-others"}}
		for _, u := range a.Others {
			q.Add("left", u.TestID)
		}
		http.Redirect(w, r, to+"?"+q.Encode(), http.StatusSeeOther)
	default:
		done(w, r, to, "approved")
	}
}

type confirmView struct {
	// Propagate carries the person's choice to carry the fix to the other tests through the
	// confirmation.
	Propagate  bool
	ProposalID string
	TestID     string
	TestName   string
	Cautions   []string
	Proof      proofView
}

func (c *Console) confirmApproval(w http.ResponseWriter, r *http.Request, v Visitor, id string, cautions []string) {
	p, err := c.Store.Proposal(r.Context(), id)
	if err != nil {
		c.failed(w, r, v, err)
		return
	}
	t, err := c.Store.Test(r.Context(), p.TestID)
	if err != nil {
		c.failed(w, r, v, err)
		return
	}
	cv := confirmView{ProposalID: p.ID, TestID: t.ID, TestName: t.Name, Cautions: cautions, Propagate: r.PostFormValue("propagate") == "yes"}
	if t.Version == p.BaseVersion {
		cv.Proof = proof(gardener.Diff(t.Steps, p.Verdict.Ops), p.Verdict).Opened()
	}
	c.render(w, r, http.StatusOK, "confirm", page{Title: "Confirm the approval", Visitor: v, Project: v.Project, Section: "radar", Data: cv})
}

// sweepNow sweeps the project now, and runs the staging pass after it, through the same use
// case as the radar's schedule; a console served without a browser says it cannot here.
func (c *Console) sweepNow(w http.ResponseWriter, r *http.Request, v Visitor) {
	swept, err := c.App.SweepNow(r.Context(), gardening.Person(v.ID), v.Project, c.here(v.Project))
	if err != nil {
		c.failed(w, r, v, err)
		return
	}
	notice := "swept"
	switch {
	case swept.Sweep == nil:
		notice = "baselined"
	case swept.Refreshed != "":
		notice = "reswept"
	}
	done(w, r, Prefix+"/projects/"+url.PathEscape(v.Project), notice)
}

// runNow replays a test now and records its run, through the same use case as
// POST /tests/{testId}/runs, and shows the run.
func (c *Console) runNow(w http.ResponseWriter, r *http.Request, v Visitor) {
	ran, err := c.App.RunNow(r.Context(), gardening.Person(v.ID), r.PathValue("testId"), c.here(v.Project))
	if err != nil {
		c.failed(w, r, v, err)
		return
	}
	notice := "red"
	if ran.Green {
		notice = "green"
	}
	done(w, r, Prefix+"/runs/"+url.PathEscape(ran.Run.ID), notice)
}

func (c *Console) dismiss(w http.ResponseWriter, r *http.Request, v Visitor) {
	if _, err := c.App.Dismiss(r.Context(), gardening.Person(v.ID), r.PathValue("proposalId")); err != nil {
		c.failed(w, r, v, err)
		return
	}
	done(w, r, Prefix+"/projects/"+url.PathEscape(v.Project), "dismissed")
}

func (c *Console) revert(w http.ResponseWriter, r *http.Request, v Visitor) {
	if r.PostFormValue("confirm") != "yes" {
		c.problem(w, r, v, http.StatusBadRequest, "A revert must be confirmed: open the repair's Revert and confirm it.")
		return
	}
	rv, err := c.App.Revert(r.Context(), gardening.Person(v.ID), r.PathValue("repairId"))
	if err != nil {
		c.failed(w, r, v, err)
		return
	}
	done(w, r, Prefix+"/tests/"+url.PathEscape(rv.Test.ID), "reverted")
}

func (c *Console) reviewed(w http.ResponseWriter, r *http.Request, v Visitor) {
	rep, err := c.App.MarkReviewed(r.Context(), gardening.Person(v.ID), r.PathValue("repairId"))
	if err != nil {
		c.failed(w, r, v, err)
		return
	}
	done(w, r, Prefix+"/tests/"+url.PathEscape(rep.TestID), "reviewed")
}

// startRepair asks for Suggest fix, Diagnose or the whole ladder on a failed run.
func (c *Console) startRepair(w http.ResponseWriter, r *http.Request, v Visitor) {
	var rungs []gardener.Strategy
	// "ladder" is the form's word for the whole ladder; any other value names one rung, refused
	// in the words the API and MCP refuse it with.
	switch ask := r.PostFormValue("rung"); {
	case ask == "ladder":
	case gardening.IsRung(gardener.Strategy(ask)):
		rungs = []gardener.Strategy{gardener.Strategy(ask)}
	default:
		c.failed(w, r, v, &FormError{Field: "rung", Reason: gardening.NotARung(ask)})
		return
	}
	runID := r.PathValue("runId")
	if _, err := c.App.StartRepair(r.Context(), gardening.Person(v.ID), gardening.RepairRequest{RunID: runID, Rungs: rungs}); err != nil {
		c.failed(w, r, v, err)
		return
	}
	done(w, r, Prefix+"/runs/"+url.PathEscape(runID), "started")
}
