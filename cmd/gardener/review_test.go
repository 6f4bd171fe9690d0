package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/local/stack"
	"github.com/driftgardener/gardener/pkg/modelspec"
	"github.com/driftgardener/gardener/pkg/radar"
)

// reviewTyped is what the seeded sign-in test types: no review command may print it.
const reviewTyped = "s3cret-typed-value"

// seedReview writes a project with two tests and an open proposal for each, as a propose-mode
// repair or a staging pass leaves them.
func seedReview(t *testing.T, store gardener.Store) {
	t.Helper()
	ctx := context.Background()
	noErr(t, store.PutProject(ctx, gardener.Project{ID: "shop", Name: "Shop", Plan: gardener.PlanPro, Model: "builtin", Radar: true, AllowedOrigins: []string{"http://127.0.0.1:9"}}))
	tests := map[string][]gardener.Step{
		"signin": {
			{Kind: gardener.Goto, URL: "/login"},
			{Kind: gardener.Fill, Locator: gardener.MustLocator("label=Password"), Value: reviewTyped},
			{Kind: gardener.Click, Locator: gardener.MustLocator("#go")},
		},
		"search": {
			{Kind: gardener.Goto, URL: "/"},
			{Kind: gardener.Click, Locator: gardener.MustLocator("#q")},
		},
	}
	for id, steps := range tests {
		noErr(t, store.CreateTest(ctx, gardener.Test{ID: id, ProjectID: "shop", Name: "The " + id, Status: gardener.StatusActive, Version: 1, Steps: steps}))
		fixed := gardener.Step{Kind: gardener.Click, Locator: gardener.MustLocator("text=Go on")}
		index := len(steps) - 1
		_, err := store.StageProposal(ctx, gardener.Proposal{ID: "prop-" + id, ProjectID: "shop", TestID: id, BaseVersion: 1, Status: gardener.ProposalProposed,
			Verdict: gardener.Verdict{Strategy: gardener.StrategySelfHeal, IntentConfirmed: true,
				Ops:     []gardener.Op{{Kind: gardener.OpReplace, Index: index, Step: &fixed}},
				Changes: []gardener.Change{{Path: fmt.Sprint(index + 1), Class: gardener.ClassRepair, Detail: "locator"}}},
			FailedStep: "3", Error: "no element matches css=#go", StagedAt: time.Now().Add(-time.Hour), UpdatedAt: time.Now()})
		noErr(t, err)
	}
}

// reviewDoor runs one review command line and answers its exit, stdout and stderr.
// localDoor is the local state seeded by seed, as the review commands' --state names it.
func localDoor(t *testing.T, seed func(*testing.T, gardener.Store)) reviewDoor {
	dir := t.TempDir()
	store, err := embedded.Open(filepath.Join(dir, "gardener.db"))
	noErr(t, err)
	seed(t, store)
	noErr(t, store.Close())
	return reviewDoor{name: "state", args: []string{"--state", dir}, by: localUser()}
}

// apiDoor is the local stack's API over a store seeded by seed, as --api names it.
func apiDoor(t *testing.T, seed func(*testing.T, gardener.Store)) reviewDoor {
	store, err := embedded.Open(filepath.Join(t.TempDir(), "gardener.db"))
	noErr(t, err)
	t.Cleanup(func() { store.Close() })
	seed(t, store)
	quiet := slog.New(slog.DiscardHandler)
	st, err := stack.New(stack.Config{Template: "../../template.yaml", Log: quiet, Services: handler.Services{Store: store, Runner: sharedRunner, Log: quiet,
		Models: func(ctx context.Context, spec string) (gardener.Model, error) {
			return modelspec.Open(ctx, spec, modelspec.Options{})
		}}})
	noErr(t, err)
	t.Cleanup(st.Wait)
	srv := httptest.NewServer(st.Handler())
	t.Cleanup(srv.Close)
	// The token is ann's (TestMain's $GARDENER_TOKEN is for project demo): named with
	// --token-env, since a parallel test may not set the environment.
	return reviewDoor{name: "api", args: []string{"--api", srv.URL, "--token-env", "REVIEW_TOKEN_SHOP"}, by: "ann@example.com"}
}

type reviewDoor struct {
	name string
	// args are the flags that name the door: --state DIR, or --api URL.
	args []string
	// by is who the door records as deciding.
	by string
}

func (d reviewDoor) run(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := dispatch(append(args, d.args...), strings.NewReader(stdin), &out, &errb)
	// Text is for people; --json holds the records as the API gives them to those who may read
	// the test (docs/api.md, "Typed values").
	if !slices.Contains(args, "--json") && strings.Contains(out.String()+errb.String(), reviewTyped) {
		t.Errorf("%v printed the value the test types:\n%s%s", args, out.String(), errb.String())
	}
	return code, out.String(), errb.String()
}

// TestReviewCommandsOnEveryDoor: queue, approve, dismiss, revert and history answer alike on the
// local state and through the API (the console's use cases, on the command line): the queue
// lists what is staged, then why it is empty; an approval writes a repair the history shows as
// revertable with the console's confirmation; a revert asks, refuses without an answer, and
// reverts on yes; a decided proposal, a reverted repair and unknown ids are refused with exit
// 1 or 2; no output carries what a test types. Through the API a token it refuses is bad input
// (2). No browser: about a second.
func TestReviewCommandsOnEveryDoor(t *testing.T) {
	t.Parallel()
	local := func(t *testing.T) reviewDoor { return localDoor(t, seedReview) }
	api := func(t *testing.T) reviewDoor { return apiDoor(t, seedReview) }
	// refusals holds each door's stderr for the same refused request: every door gives the same
	// words (the "gardener approve: " prefix is the command's, not the door's).
	refusals := map[string]map[string]string{}
	for _, open := range []func(*testing.T) reviewDoor{local, api} {
		d := open(t)
		refusals[d.name] = map[string]string{}
		t.Run(d.name, func(t *testing.T) {
			code, out, errb := d.run(t, "", "queue", "--project", "shop")
			t.Log(out)
			if code != exitOK || !strings.Contains(out, "Staged repairs of shop: 2") || !strings.Contains(out, "gardener approve prop-signin") ||
				!strings.Contains(out, "+ step 3  click text=Go on") || !strings.Contains(out, "restated by 0 later sweeps") {
				t.Fatalf("queue: exit %d\n%s%s", code, out, errb)
			}
			code, out, _ = d.run(t, "", "queue", "--project", "shop", "--json")
			var q radar.Queue
			if err := json.Unmarshal([]byte(out), &q); code != exitOK || err != nil || len(q.Rows) != 2 {
				t.Fatalf("queue --json: exit %d %v\n%s", code, err, out)
			}

			code, out, errb = d.run(t, "", "approve", "prop-signin")
			if code != exitOK || !strings.Contains(out, "approved prop-signin: signin is now version 2") || !strings.Contains(out, "approved by "+d.by) {
				t.Fatalf("approve: exit %d\n%s%s", code, out, errb)
			}
			if code, _, errb = d.run(t, "", "approve", "prop-signin"); code != exitNegative || !strings.Contains(errb, "only an open proposal can be approved") {
				t.Errorf("approve of a decided proposal: exit %d %s", code, errb)
			}
			if code, _, errb = d.run(t, "", "approve", "prop-none"); code != exitBadInput || !strings.Contains(errb, "prop-none") {
				t.Errorf("approve of no proposal: exit %d %s", code, errb)
			}
			refusals[d.name]["approve of no proposal"] = errb
			_, _, refusals[d.name]["dismiss of no proposal"] = d.run(t, "", "dismiss", "prop-none")
			_, _, refusals[d.name]["dismiss of an applied proposal"] = d.run(t, "", "dismiss", "prop-signin")
			code, out, _ = d.run(t, "", "dismiss", "prop-search", "--json")
			var p gardener.Proposal
			if err := json.Unmarshal([]byte(out), &p); code != exitOK || err != nil || p.Status != gardener.ProposalDismissed || p.DecidedBy != d.by {
				t.Errorf("dismiss --json: exit %d %v %+v", code, err, p)
			}
			if code, out, _ = d.run(t, "", "queue", "--project", "shop"); code != exitOK || !strings.Contains(out, "Staged repairs of shop: none. ") {
				t.Errorf("the empty queue: exit %d\n%s", code, out)
			}

			code, out, errb = d.run(t, "", "history", "signin")
			t.Log(out)
			repairID := gardener.RepairIDOfProposal("prop-signin")
			for _, want := range []string{"Test signin (The signin) of project shop: version 2, active, 3 steps", "repair " + repairID + "  version 1 -> 2",
				"by: approved by " + d.by, "fix (self-heal): 1 repair", "- step 3  click css=#go", "revertable: gardener revert " + repairID, "it asks: Revert test signin to its 3 steps",
				"No triage issue for this test.", "AI history: 0 model calls for this test, beside its 1 repair"} {
				if !strings.Contains(out, want) {
					t.Errorf("history does not say %q: exit %d\n%s%s", want, code, out, errb)
				}
			}
			code, out, _ = d.run(t, "", "history", "signin", "--json")
			var h testHistory
			if err := json.Unmarshal([]byte(out), &h); code != exitOK || err != nil || len(h.Repairs) != 1 || !h.Repairs[0].Revertable || h.Test.Version != 2 {
				t.Errorf("history --json: exit %d %v\n%s", code, err, out)
			}
			if code, _, errb = d.run(t, "", "history", "nobody"); code != exitBadInput {
				t.Errorf("history of no test: exit %d %s", code, errb)
			}

			// A revert says what it will do and waits for a yes.
			if code, _, errb = d.run(t, "n\n", "revert", repairID); code != exitNegative || !strings.Contains(errb, "the selector the repair fixed will fail again") || !strings.Contains(errb, "not reverted") {
				t.Errorf("revert answered no: exit %d %s", code, errb)
			}
			if code, _, errb = d.run(t, "", "revert", repairID); code != exitBadInput || !strings.Contains(errb, "give --yes") {
				t.Errorf("revert with no answer: exit %d %s", code, errb)
			}
			code, out, errb = d.run(t, "yes\n", "revert", repairID)
			if code != exitOK || !strings.Contains(out, "reverted "+repairID+": signin is version 3 with its 3 steps from before the repair") {
				t.Fatalf("revert answered yes: exit %d\n%s%s", code, out, errb)
			}
			if code, _, errb = d.run(t, "", "revert", repairID, "--yes"); code != exitNegative || !strings.Contains(errb, "was reverted already by "+d.by) || strings.Contains(errb, "Revert test") {
				t.Errorf("a second revert: exit %d %s; want it refused before the confirmation is asked", code, errb)
			}
			refusals[d.name]["a second revert"] = strings.ReplaceAll(errb, d.by, "WHO")
			if _, out, _ = d.run(t, "", "history", "signin"); !strings.Contains(out, "Reverted by "+d.by) {
				t.Errorf("history after the revert:\n%s", out)
			}
		})
	}

	for what, local := range refusals["state"] {
		if api := refusals["api"][what]; local != api {
			t.Errorf("%s: the local state says\n%s\nthe API says\n%s", what, local, api)
		}
	}

	t.Run("bad input", func(t *testing.T) {
		d := api(t)
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"queue", "--state", filepath.Join(t.TempDir(), "none")}, "no local state in"},
			{[]string{"approve", "a", "b", "--state", t.TempDir()}, "give one proposal id (got 2 arguments)"},
			{[]string{"approve", "prop-signin", "--api", d.args[1], "--token-env", "REVIEW_TOKEN_NONE"}, "--api needs the API's bearer token in $REVIEW_TOKEN_NONE"},
			{[]string{"approve", "prop-signin", "--api", d.args[1], "--token-env", "REVIEW_TOKEN_SHOP", "--by", "eve"}, "--by is for the local state"},
			{[]string{"queue", "--project", "shop", "--api", d.args[1], "--token-env", "REVIEW_TOKEN_BAD"}, "the API refused the token in $REVIEW_TOKEN_BAD (401"},
			{[]string{"approve", "prop-signin", "--api", d.args[1], "--token-env", "REVIEW_TOKEN_OTHER"}, "prop-signin"},
		} {
			var out, errb bytes.Buffer
			if code := dispatch(c.args, nil, &out, &errb); code != exitBadInput || !strings.Contains(errb.String(), c.want) {
				t.Errorf("%v: exit %d, want 2 saying %q:\n%s", c.args, code, c.want, errb.String())
			}
		}
	})
}
