package console_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/console"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/lifecycle"
)

// router is the console's routes on a mux, authorized by project as the API's router does, and
// a session cookie for a visitor allowed every project.
func router(b testing.TB, w *world) (http.Handler, []*http.Cookie) {
	b.Helper()
	auth, err := console.DevAuth()
	if err != nil {
		b.Fatal(err)
	}
	c, err := console.New(console.Deps{Store: w.store, App: appOver(b, w, nil), Auth: auth})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	authorize := func(r *http.Request, who console.Identity) (string, error) {
		switch {
		case r.PathValue("projectId") != "":
			return r.PathValue("projectId"), nil
		case r.PathValue("testId") != "":
			t, err := w.store.Test(ctx, r.PathValue("testId"))
			return t.ProjectID, err
		}
		run, err := w.store.Run(ctx, r.PathValue("runId"))
		return run.ProjectID, err
	}
	mux := http.NewServeMux()
	for _, rt := range console.Routes() {
		mux.Handle(rt.Pattern, c.Handler(rt, authorize))
	}
	get := httptest.NewRecorder()
	mux.ServeHTTP(get, httptest.NewRequest("GET", "/console/signin", nil))
	tok := csrfField.FindStringSubmatch(get.Body.String())
	post := httptest.NewRequest("POST", "/console/signin", strings.NewReader(url.Values{"csrf": {tok[1]}, "email": {"ann@example.com"}, "projects": {"*"}}.Encode()))
	post.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for _, ck := range get.Result().Cookies() {
		post.AddCookie(ck)
	}
	signed := httptest.NewRecorder()
	mux.ServeHTTP(signed, post)
	if signed.Code != http.StatusSeeOther {
		b.Fatalf("signing in: %d %s", signed.Code, signed.Body)
	}
	return mux, signed.Result().Cookies()
}

// cpu is the process's CPU time so far. On a machine shared with other work the wall time of a
// render says more about the neighbours than about the page; the CPU time it took does not.
func cpu() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// render serves path b.N times and reports the page's size and the CPU time of a render.
func render(b *testing.B, h http.Handler, cookies []*http.Cookie, path string) {
	var size int
	start := cpu()
	for b.Loop() {
		req := httptest.NewRequest("GET", path, nil)
		for _, ck := range cookies {
			req.AddCookie(ck)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("GET %s: %d %.300s", path, rec.Code, rec.Body)
		}
		size = rec.Body.Len()
	}
	b.ReportMetric(float64(cpu()-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(size)/1024, "KiB/page")
}

// BenchmarkQueue100 renders the App radar page of a project with 100 staged proposals.
func BenchmarkQueue100(b *testing.B) {
	w := seed(b)
	ctx := context.Background()
	life := lifecycle.New(w.store, nil)
	for i := range 100 {
		id := fmt.Sprintf("bulk-%03d", i)
		if err := w.store.CreateTest(ctx, gardener.Test{ID: id, ProjectID: "shop", Name: "Bulk test " + id, Status: gardener.StatusActive, Version: 1, Steps: decodeSteps(b, checkoutSteps)}); err != nil {
			b.Fatal(err)
		}
		s := step(b, fmt.Sprintf(`{"kind": "click", "locator": "css=#pay-%d"}`, i))
		before := decodeSteps(b, checkoutSteps)[2]
		v := gardener.Verdict{Strategy: gardener.StrategySuggestFix, Ops: []gardener.Op{{Kind: gardener.OpReplace, Index: 2, Step: s}},
			Changes:  []gardener.Change{{Class: gardener.ClassRepair, Before: &before, After: s, Path: "3"}},
			Contract: gardener.Contract{Requirements: []gardener.Requirement{{Step: "2", What: "enters", Detail: "SAVE10", Kept: true}}}, IntentConfirmed: true}
		trig := gardener.AppChange{ID: "c-" + id, ProjectID: "shop", URL: "http://shop.test/cart", Kind: "changed", Detail: "the button moved", At: w.now}
		if _, err := life.Stage(ctx, gardener.Proposal{ID: "p-" + id, ProjectID: "shop", TestID: id, BaseVersion: 1, Verdict: v, Triggers: []gardener.AppChange{trig}, FailedStep: "3", Error: "element-not-found"}); err != nil {
			b.Fatal(err)
		}
	}
	h, cookies := router(b, w)
	render(b, h, cookies, "/console/projects/shop")
}

// BenchmarkTest50Repairs renders the page of a test with 50 repairs in its history.
func BenchmarkTest50Repairs(b *testing.B) {
	w := seed(b)
	ctx := context.Background()
	for i := range 50 {
		t, err := w.store.Test(ctx, "quiet")
		if err != nil {
			b.Fatal(err)
		}
		s := step(b, fmt.Sprintf(`{"kind": "click", "locator": "css=#pay-%d"}`, i))
		before := t.Steps[2]
		v := gardener.Verdict{Strategy: gardener.StrategySelfHeal, Ops: []gardener.Op{{Kind: gardener.OpReplace, Index: 2, Step: s}},
			Changes: []gardener.Change{{Class: gardener.ClassRepair, Before: &before, After: s, Path: "3"}}, IntentConfirmed: true}
		fixed, err := gardener.ApplySteps(t.Steps, v.Ops)
		if err != nil {
			b.Fatal(err)
		}
		r := gardener.Repair{ID: fmt.Sprintf("r-%02d", i), ProjectID: "shop", TestID: "quiet", RunID: fmt.Sprintf("run-%02d", i), Verdict: v, PreSteps: t.Steps,
			FromVersion: t.Version, ToVersion: t.Version + 1, At: w.now.Add(time.Duration(i) * time.Minute), Auto: true, Badge: true}
		if _, err := w.store.WriteRepair(ctx, gardener.WriteRepair{Steps: fixed, Repair: r}); err != nil {
			b.Fatal(err)
		}
	}
	h, cookies := router(b, w)
	render(b, h, cookies, "/console/tests/quiet")
}

// BenchmarkPages renders each page of the seeded project, for its time and size.
func BenchmarkPages(b *testing.B) {
	w := seed(b)
	h, cookies := router(b, w)
	for _, p := range pages(w) {
		if p.name == "not-found" || p.name == "projects" {
			continue
		}
		b.Run(p.name, func(b *testing.B) { render(b, h, cookies, p.path) })
	}
}
