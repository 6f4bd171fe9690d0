package handler_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
)

// scriptedRunner passes or fails every replay, typing a value on the way as a browser does.
type scriptedRunner struct{ pass bool }

func (s scriptedRunner) Replay(_ context.Context, t gardener.Test, o gardener.ReplayOptions) (gardener.Replay, error) {
	res := gardener.RunResult{TestID: t.ID, Passed: s.pass, FailedIndex: -1, FinalURL: o.BaseURL,
		Steps: []gardener.StepRecord{{Path: "1", Kind: gardener.Fill, Passed: s.pass, Values: []string{"typed-secret"}}}}
	if !s.pass {
		res.FailedStep, res.FailedIndex, res.ErrorKind, res.Message = "1", 0, gardener.ErrElementNotFound, "no element"
	}
	return gardener.Replay{Result: res}, nil
}

// TestRunNowRecordsTheBaseline: POST /tests/{testId}/runs replays the test where the API has a
// browser and records the run; a green one is the last green run of the version a later repair
// compares with (invariant 13), a red one is no baseline; an API without a browser (the zip
// Lambda) answers 501 and records nothing.
func TestRunNowRecordsTheBaseline(t *testing.T) {
	ctx := context.Background()
	who := map[string]string{"sub": "u-a", "email": "ann@shop.test", "projects": "shop"}
	for _, c := range []struct {
		name   string
		runner gardener.Runner
		status int
		green  bool
	}{
		{"green", scriptedRunner{pass: true}, http.StatusCreated, true},
		{"red", scriptedRunner{pass: false}, http.StatusCreated, false},
		{"no browser", nil, http.StatusNotImplemented, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := fullServices(t)
			s.Runner = c.runner
			if err := s.Store.PutProject(ctx, gardener.Project{ID: "shop", Plan: gardener.PlanPro, AllowedOrigins: []string{"http://shop.test"}}); err != nil {
				t.Fatal(err)
			}
			if err := s.Store.CreateTest(ctx, gardener.Test{ID: "login", ProjectID: "shop", Status: gardener.StatusActive, Version: 2,
				Steps: []gardener.Step{{Kind: gardener.Fill, Locator: gardener.MustLocator("#user"), Value: "typed-secret"}}}); err != nil {
				t.Fatal(err)
			}
			h, err := handler.ApiFunction.Build(s)
			if err != nil {
				t.Fatal(err)
			}
			got := viaHTTP(t, h.(*handler.API), "POST", "/tests/login/runs", "", who)
			if got.status != c.status {
				t.Fatalf("status %d (%s), want %d", got.status, got.body, c.status)
			}
			if strings.Contains(got.body, "typed-secret") {
				t.Errorf("the answer carries a typed value: %s", got.body)
			}
			green, err := s.Store.LastGreenRun(ctx, "login")
			if c.green != (err == nil && green.TestVersion == 2) {
				t.Errorf("last green run %+v (%v), want one of version 2: %v", green, err, c.green)
			}
			if c.status != http.StatusCreated {
				if !strings.Contains(got.body, "browser") {
					t.Errorf("the 501 does not say why: %s", got.body)
				}
				return
			}
			var ran struct {
				Run   gardener.Run `json:"run"`
				Green bool         `json:"green"`
			}
			if err := json.Unmarshal([]byte(got.body), &ran); err != nil {
				t.Fatal(err)
			}
			if ran.Green != c.green || ran.Run.TestVersion != 2 || ran.Run.Result == nil || ran.Run.Result.FinalURL != "http://shop.test" {
				t.Errorf("answered %+v, want green %v on version 2 against the project's origin", ran, c.green)
			}
			stored, err := s.Store.Run(ctx, ran.Run.ID)
			if err != nil || stored.Result == nil || stored.Result.Passed != c.green {
				t.Errorf("stored run %+v (%v)", stored, err)
			}
		})
	}
}
