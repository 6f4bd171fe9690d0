package handler_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
)

// TestListingsSkipCorruptRecordsByName: one stored record that does not decode does not take a
// listing down. Each listing route answers 200 with the records that decode and names every
// one it skipped in the X-Gardener-Corrupt header.
func TestListingsSkipCorruptRecordsByName(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	seedCorrupt(t, path)
	store, err := embedded.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	s := fullServices(t)
	s.Store = store
	h, err := handler.ApiFunction.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	api := h.(*handler.API)
	shop := map[string]string{"sub": "u-s", "email": "sam@shop.test", "projects": "shop"}
	cases := []struct {
		path, good string
		bad        []string
	}{
		{"/projects/shop/repairs", "rp-good", []string{"repair rp-bad"}},
		{"/tests/t-1/repairs", "rp-good", []string{"repair rp-bad"}},
		{"/tests/t-1/history", "rp-good", []string{"repair rp-bad", "model%20call t-1%2F"}},
		{"/projects/shop/triage", "tr-good", []string{"triage%20issue tr-bad"}},
		{"/projects/shop/queue", "pr-good", []string{"proposal pr-bad"}},
	}
	for _, c := range cases {
		r := handler.WithClaims(httptest.NewRequest("GET", c.path, nil), shop)
		w := httptest.NewRecorder()
		api.ServeHTTP(w, r)
		named := w.Header().Values(handler.CorruptHeader)
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), c.good) {
			t.Errorf("GET %s: %d %s; want 200 listing %s", c.path, w.Code, w.Body.String(), c.good)
		}
		if strings.Contains(w.Body.String(), "-bad") {
			t.Errorf("GET %s lists a record that does not decode: %s", c.path, w.Body.String())
		}
		for _, b := range c.bad {
			if !slices.ContainsFunc(named, func(v string) bool { return strings.HasPrefix(v, b) }) {
				t.Errorf("GET %s: %s %q, want %q named", c.path, handler.CorruptHeader, named, b)
			}
		}
		if len(named) != len(c.bad) {
			t.Errorf("GET %s: %s %q names %d records, want %d", c.path, handler.CorruptHeader, named, len(named), len(c.bad))
		}
	}
	// A listing with nothing corrupt in it says nothing.
	w := httptest.NewRecorder()
	api.ServeHTTP(w, handler.WithClaims(httptest.NewRequest("GET", "/tests/t-2/repairs", nil), shop))
	if w.Code != http.StatusOK || w.Header().Get(handler.CorruptHeader) != "" {
		t.Errorf("a clean listing: %d, %s %q", w.Code, handler.CorruptHeader, w.Header().Get(handler.CorruptHeader))
	}
}

// seedCorrupt writes project shop with tests t-1 and t-2, and for t-1 a record of each listed
// kind that decodes and one that does not (a time that is not one), written past the encoder.
func seedCorrupt(t *testing.T, path string) {
	t.Helper()
	ctx := context.Background()
	store, err := embedded.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	steps := []gardener.Step{{Kind: gardener.Goto, URL: "/login"}, {Kind: gardener.Click, Locator: gardener.MustLocator("#go")}}
	err = store.PutProject(ctx, gardener.Project{ID: "shop", Plan: gardener.PlanPro, Model: "builtin"})
	for _, id := range []string{"t-1", "t-2"} {
		if err == nil {
			err = store.CreateTest(ctx, gardener.Test{ID: id, ProjectID: "shop", Name: "sign in", Status: gardener.StatusActive, Version: 1, Steps: steps})
		}
	}
	if err == nil {
		_, err = store.WriteRepair(ctx, gardener.WriteRepair{Steps: steps, Repair: gardener.Repair{ID: "rp-good", ProjectID: "shop", TestID: "t-1", PreSteps: steps, FromVersion: 1, ToVersion: 2, At: at, Auto: true}})
	}
	if err == nil {
		err = store.PutTriageIssue(ctx, gardener.TriageIssue{ID: "tr-good", ProjectID: "shop", TestID: "t-1", Classification: gardener.Unknown, At: at})
	}
	if err == nil {
		err = store.AddModelCall(ctx, gardener.ModelCall{TestID: "t-1", Ask: "locator", Model: "builtin", At: at})
	}
	if err == nil {
		_, err = store.StageProposal(ctx, gardener.Proposal{ID: "pr-good", ProjectID: "shop", TestID: "t-1", BaseVersion: 2, Status: gardener.ProposalProposed, StagedAt: at, UpdatedAt: at})
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bolt.Tx) error {
		for _, r := range []struct{ bucket, key, body string }{
			{"repairs", "rp-bad", `{"id":"rp-bad","projectId":"shop","testId":"t-1","at":"yesterday"}`},
			{"triage", "tr-bad", `{"id":"tr-bad","projectId":"shop","testId":"t-1","at":"yesterday"}`},
			{"modelcalls", "t-1\x0020261201T070000.000000000\x00ffffffffffffffff", `{"testId":"t-1","at":"yesterday"}`},
			{"proposals", "pr-bad", `{"id":"pr-bad","projectId":"shop","testId":"t-1","stagedAt":"yesterday"}`},
		} {
			if err := tx.Bucket([]byte(r.bucket)).Put([]byte(r.key), []byte(r.body)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
