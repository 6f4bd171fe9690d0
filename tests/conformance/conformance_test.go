// Package conformance_test drives every door of the gardener — the CLI, the HTTP API, the
// console's forms, MCP over stdio and the repair state machine on the local stack — through
// one table of scenarios, and expects from each the same outcome, the same words, the same
// records written (or none), the same notification (or none), and no typed value in anything
// it says. Each door only translates to and from the application layer; a door that decided a
// rule on its own would answer differently here.
package conformance_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/driftgardener/gardener/pkg/console"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/mcpserver"
)

// act is what a scenario asks of a door.
type act string

const (
	repairRun     act = "repair"        // repair the failed run
	approveRow    act = "approve"       // a person approves the open proposal
	approveAsBots act = "approve-agent" // an agent approves it
)

type scenario struct {
	name string
	seed seed
	app  variant
	act  act
	// outcome is the outcome every door that serves the request answers; empty when every
	// door refuses it.
	outcome string
	// reason is the reason every door gives with the outcome; "*" is any reason, the same on
	// every door.
	reason string
	// refusal is what every door's refusal says, in the same words.
	refusal string
	records records
	// notes are the notifications of the doors that have a topic (the API, the console, the
	// machine).
	notes []string
}

// proposalID is the open proposal the approval scenarios seed.
const proposalID = "prop-seeded"

// proposalOf is a fix of the sign-in test that finds the button by its text: clean needs no
// person, held is UNVERIFIED and does.
func proposalOf(held bool) *gardener.Proposal {
	click := gardener.Step{Kind: gardener.Click, Locator: gardener.MustLocator("text=Sign in")}
	v := gardener.Verdict{Strategy: gardener.StrategySelfHeal, IntentConfirmed: true,
		Ops:     []gardener.Op{{Kind: gardener.OpReplace, Index: 2, Step: &click}},
		Changes: []gardener.Change{{Path: "3", Class: gardener.ClassRepair, Detail: "locator"}}}
	if held {
		v.Unverified = "the proof re-ran no fill of step 2"
	}
	return &gardener.Proposal{ID: proposalID, Verdict: v}
}

var scenarios = []scenario{
	{
		name: "drift repaired", seed: seed{autoRepair: true, green: true}, app: drift, act: repairRun,
		outcome: "repaired", reason: "",
		records: records{Version: 2, Repairs: 1},
		notes:   []string{"Auto-repaired: sign-in (version 2)"},
	},
	{
		// A request to propose in a project that repairs itself stages the fix, and the row
		// says the request asked: auto-repair is on, and the console says so beside it.
		name: "asked to propose in a project that repairs itself", seed: seed{autoRepair: true, green: true, propose: true}, app: drift, act: repairRun,
		outcome: "staged", reason: "proposed for review: the request asked to propose, not to apply",
		records: records{Version: 1, Open: 1},
		notes:   []string{"Repair staged for review: sign-in"},
	},
	{
		// The base URL the operator gives names the app otherwise than the project's allowed
		// origin (localhost, 127.0.0.1): its origin is allowed on every door, as gardener repair
		// has always allowed it, and no door records a blocked navigation or files a triage.
		name: "drift repaired on the app named by another origin", seed: seed{autoRepair: true, green: true, otherName: true}, app: drift, act: repairRun,
		outcome: "repaired", reason: "",
		records: records{Version: 2, Repairs: 1},
		notes:   []string{"Auto-repaired: sign-in (version 2)"},
	},
	{
		name: "a regression is not repaired", seed: seed{autoRepair: true, green: true}, app: regression, act: repairRun,
		outcome: "triaged", reason: "*",
		records: records{Version: 1, Triage: 1},
		notes:   []string{"Not repaired: sign-in"},
	},
	{
		name: "every proposed change refused", seed: seed{model: hostileSpec, autoRepair: true, green: true}, app: regression, act: repairRun,
		outcome: "refused", reason: "every proposed change was refused",
		records: records{Version: 1, Triage: 1},
		notes:   []string{"Not repaired: sign-in"},
	},
	{
		// Invariant 13: a verdict needs a green run to compare with. Without one every door
		// says it cannot tell drift from a bug, and none files an app-bug issue or alerts.
		name: "a test with no green run recorded", seed: seed{autoRepair: true}, app: drift, act: repairRun,
		outcome: "triaged", reason: "no green run of version 1 of test sign-in is recorded: the gardener cannot tell drift from a bug",
		records: records{Version: 1},
		notes:   []string{},
	},
	{
		name: "a test that passes has nothing to repair", seed: seed{autoRepair: true, green: true}, app: baseline, act: repairRun,
		outcome: "no-fix", reason: "the test passes: there is nothing to repair",
		records: records{Version: 1},
		notes:   []string{},
	},
	{
		name: "a control run is never repaired", seed: seed{autoRepair: true, green: true, control: true}, app: drift, act: repairRun,
		refusal: "run " + failedRunID + " is a negative control run: it is required to fail, and a repair there would teach a sentinel to pass",
		records: records{Version: 1},
		notes:   []string{},
	},
	{
		// The app under test is down: no door replays, records a run, starts a repair, files
		// a triage issue or notifies; each says the app could not be reached (the CLI exits 3,
		// the API and the console answer 502, MCP a tool error).
		name: "an app that is down is not judged", seed: seed{autoRepair: true, green: true}, app: down, act: repairRun,
		refusal: "could not be reached (dial tcp 127.0.0.1:",
		records: records{Version: 1},
		notes:   []string{},
	},
	{
		name: "a stale proposal is not approved", seed: seed{green: true, proposal: proposalOf(false), proof: true, edited: true}, app: baseline, act: approveRow,
		refusal: "stale: proposal " + proposalID + " was computed on version 1 of test sign-in, which is at version 2 now; the proposal is marked stale",
		records: records{Version: 2, Stale: 1},
		notes:   []string{},
	},
	{
		name: "a fix held for a person is approved by a person", seed: seed{green: true, proposal: proposalOf(true), proof: true}, app: baseline, act: approveRow,
		outcome: "applied",
		records: records{Version: 2, Repairs: 1},
		notes:   []string{},
	},
	{
		name: "a fix held for a person is refused to an agent", seed: seed{green: true, proposal: proposalOf(true), proof: true}, app: baseline, act: approveAsBots,
		refusal: "proposal " + proposalID + " is held for a person: UNVERIFIED: the proof re-ran no fill of step 2",
		records: records{Version: 1, Open: 1},
		notes:   []string{},
	},
	{
		name: "a proven fix that needs no person is applied for an agent", seed: seed{green: true, proposal: proposalOf(false), proof: true}, app: baseline, act: approveAsBots,
		outcome: "applied",
		records: records{Version: 2, Repairs: 1},
		notes:   []string{},
	},
}

// expresses says whether a door can be asked what the scenario asks: the CLI repairs a test
// file, not a platform run (so it cannot be handed a control run), and approves as a person;
// the console is a person's; MCP is an agent's; the machine repairs and approves nothing.
func expresses(d door, sc scenario) bool {
	switch sc.act {
	case repairRun:
		if sc.seed.propose {
			// Asking to propose is the CLI's --mode propose and the API's "propose": the console
			// has no such choice, an agent's suggestion always proposes (in its own words), and
			// the machine's automatic path is asked by nobody.
			return d.name == "cli" || d.name == "api"
		}
		// The machine is not asked about an app that is down: it is what a scheduled run's
		// failure starts, with nobody waiting for an answer, and the scheduled run before it
		// recorded the network's failure (see the suite machine); a person's request through
		// a door is answered that the app could not be reached instead.
		if d.name == "machine" && sc.app == down {
			return false
		}
		return d.repair != nil && !(d.name == "cli" && sc.seed.control)
	case approveRow:
		return d.approve != nil && d.name != "mcp"
	case approveAsBots:
		return d.name == "api" || d.name == "mcp"
	}
	return false
}

func TestEveryDoorAnswersAlike(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			// Scenarios run beside each other: each door has an app and a state of its own, and
			// most of a door's time is waiting (a process starting, a step's limit running out).
			t.Parallel()
			reasons, outcomes := map[string]string{}, map[string]string{}
			asked := 0
			for _, d := range doors {
				if !expresses(d, sc) {
					continue
				}
				asked++
				t.Run(d.name, func(t *testing.T) {
					w := open(t, d, sc.seed, sc.app)
					var a answer
					switch sc.act {
					case repairRun:
						a = d.repair(t, w, sc.seed)
					default:
						a = d.approve(t, w, proposalID, sc.act == approveAsBots)
					}
					if where := carries(a.Text + a.Refusal); where != "" {
						t.Errorf("the %s door's text carries what the test types: …%s…", d.name, where)
					}
					switch {
					case sc.refusal != "":
						if !strings.Contains(a.Refusal, sc.refusal) {
							t.Errorf("refusal %q (outcome %q), want it to say %q", a.Refusal, a.Outcome, sc.refusal)
						}
					case a.Refusal != "":
						t.Errorf("refused: %s; want outcome %s", a.Refusal, sc.outcome)
					case sc.outcome != "*" && a.Outcome != sc.outcome:
						t.Errorf("outcome %q (%s), want %q", a.Outcome, a.Reason, sc.outcome)
					case sc.reason != "*" && a.Reason != sc.reason:
						t.Errorf("reason %q, want %q", a.Reason, sc.reason)
					}
					reasons[d.name], outcomes[d.name] = a.Reason, a.Outcome
					if got := w.records(t); got.Version != sc.records.Version || got.Repairs != sc.records.Repairs || got.Open != sc.records.Open || got.Stale != sc.records.Stale || got.Triage != sc.records.Triage {
						t.Errorf("records %+v, want %+v", got, sc.records)
					}
					if a.Notes != nil && !slices.Equal(a.Notes, sc.notes) {
						t.Errorf("notifications %q, want %q", a.Notes, sc.notes)
					}
					if sc.act == repairRun && sc.refusal == "" {
						checkCost(t, d, sc, a.Cost)
					}
				})
			}
			if asked < 2 {
				t.Errorf("only %d door(s) express the scenario: it compares nothing", asked)
			}
			for what, by := range map[string]map[string]string{"reason": reasons, "outcome": outcomes} {
				var first string
				for name, v := range by {
					if first == "" {
						first = v
					}
					if v != first {
						t.Errorf("the %s door's %s %q differs from another door's %q", name, what, v, first)
					}
				}
			}
		})
	}
}

// checkCost: every door that repairs shows what the repair used, measured: the store's reads
// always and its writes when the repair wrote a record, the model's tokens when the project's model was called (the hostile Bedrock
// model), and the state transitions and Lambda invocations when the repair ran on the state
// machine (every in-process door); the CLI repairs in its own process, with neither. MCP says
// it in one line of text, which the comparison does not read.
func checkCost(t *testing.T, d door, sc scenario, u *gardener.RepairUsage) {
	t.Helper()
	if d.name == "mcp" {
		return
	}
	if u == nil {
		t.Errorf("the %s door shows no cost of the repair", d.name)
		return
	}
	t.Logf("the %s door's repair used %d transitions, %d invocations (%.3f GB-s), %v write / %v read units, tokens %d/%d",
		d.name, u.Transitions, u.Invocations(), u.GBSeconds(), u.WriteUnits, u.ReadUnits, u.InputTokens, u.OutputTokens)
	if u.ReadUnits <= 0 {
		t.Errorf("the %s door shows %v read units; want the store's reads counted", d.name, u.ReadUnits)
	}
	if wrote := sc.records.Version != 1 || sc.records.Repairs+sc.records.Triage > 0; wrote && u.WriteUnits <= 0 {
		t.Errorf("the %s door shows no write units, though the repair wrote %+v; want its writes counted", d.name, sc.records)
	}
	if sc.seed.model != "" && (u.InputTokens <= 0 || u.OutputTokens <= 0) {
		t.Errorf("the %s door shows tokens in/out %d/%d; want the model's calls counted", d.name, u.InputTokens, u.OutputTokens)
	}
	if d.inProcess && (u.Transitions <= 0 || u.Invocations() <= 0) {
		t.Errorf("the %s door shows %d transitions and %d invocations; want the state machine's counted", d.name, u.Transitions, u.Invocations())
	}
}

// TestEveryDoorIsInTheTable: every way in that acts on a repair or a proposal is a door the
// table drives, or is named here with what decides it. A new route, form, tool or command
// fails this test until it joins the table or is named.
func TestEveryDoorIsInTheTable(t *testing.T) {
	driven := map[string]string{
		"POST /runs/{runId}/repair":                    "api",
		"POST /proposals/{proposalId}/approve":         "api",
		"POST /console/runs/{runId}/repair":            "console",
		"POST /console/proposals/{proposalId}/approve": "console",
		"tool suggest_fix":                             "mcp",
		"tool apply_repair":                            "mcp",
		"command repair":                               "cli",
		"command approve":                              "cli",
		"event Run Failed":                             "machine",
	}
	// Named: ways in the table does not drive yet, each a thin call of the application layer.
	named := map[string]string{
		"PUT /projects/{projectId}/settings":           "gardening.UpdateSettings",
		"POST /proposals/{proposalId}/dismiss":         "gardening.Dismiss",
		"POST /repairs/{repairId}/revert":              "gardening.Revert",
		"POST /repairs/{repairId}/reviewed":            "gardening.MarkReviewed",
		"PUT /projects/{projectId}":                    "workspace: a project's settings",
		"PUT /tests/{testId}":                          "workspace: a test's steps",
		"DELETE /tests/{testId}":                       "workspace: archive",
		"PUT /tests/{testId}/status":                   "workspace: a test's status",
		"POST /tests/{testId}/repair":                  "gardening.StartRepair, as POST /runs/{runId}/repair after recording a run",
		"POST /tests/{testId}/edits":                   "builder and chat edits",
		"POST /console/signin":                         "signing in",
		"POST /console/signout":                        "signing out",
		"POST /console/projects/{projectId}/settings":  "gardening.UpdateSettings",
		"POST /console/proposals/{proposalId}/dismiss": "gardening.Dismiss",
		"POST /console/repairs/{repairId}/revert":      "gardening.Revert",
		"POST /console/repairs/{repairId}/reviewed":    "gardening.MarkReviewed",
		"POST /console/tests/{testId}/runs":            "gardening.RunNow, as POST /tests/{testId}/runs",
		"POST /console/projects/{projectId}/sweep":     "gardening.SweepNow: the radar's sweep (gardening.SweepProject) and a staging pass",
		"command dismiss":                              "gardening.Dismiss (with --api, POST /proposals/{proposalId}/dismiss)",
		"command revert":                               "gardening.Revert after gardening.RevertConfirmation (with --api, POST /repairs/{repairId}/revert)",
		"command queue":                                "gardening.Queue (with --api, GET /projects/{projectId}/queue); reads only",
		"command history":                              "gardening.History, TriageIssues and Queue (with --api, their GET routes); reads only",
		"command runs":                                 "gardening.Runs (with --api, GET /tests/{testId}/runs); reads only",
		"command fmt":                                  "rewrites test files in the canonical layout; touches no state",
		"command run":                                  "replays a test; repairs nothing; --record records the run through gardening.RunNow",
		"POST /tests/{testId}/runs":                    "gardening.RunNow: replays and records a run (the baseline a repair compares with); repairs nothing",
		"tool run_test":                                "gardening.RunNow, as POST /tests/{testId}/runs (the remote backend calls that route); repairs nothing",
		"command sweep":                                "the radar's staging pass",
		"command push":                                 "workspace sync",
		"command pull":                                 "workspace sync",
		"command demo":                                 "the demo, over the doors above",
		"command serve":                                "serves the API and the console above",
		"command mcp":                                  "serves the MCP tools above",
		"command app":                                  "serves the demo app",
		"command import":                               "converts a recording",
		"command locate":                               "the locate engine",
		"command help":                                 "help",
		"command version":                              "version",
	}
	var ways []string
	for _, p := range handler.Routes() {
		if !strings.HasPrefix(p, "GET ") {
			ways = append(ways, p)
		}
	}
	for _, rt := range console.Routes() {
		if !strings.HasPrefix(rt.Pattern, "GET ") && !slices.Contains(ways, rt.Pattern) {
			ways = append(ways, rt.Pattern)
		}
	}
	for _, tool := range mcpTools(t) {
		ways = append(ways, "tool "+tool)
	}
	ways = append(ways, "event Run Failed")
	help, err := exec.Command(binary, "help").Output()
	if err != nil {
		t.Fatalf("gardener help: %v", err)
	}
	_, list, _ := strings.Cut(string(help), "commands:\n")
	list, _, _ = strings.Cut(list, "\n\n")
	for _, line := range strings.Split(list, "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			ways = append(ways, "command "+f[0])
		}
	}
	for _, w := range ways {
		if _, ok := driven[w]; ok {
			continue
		}
		if _, ok := named[w]; !ok {
			t.Errorf("%s is a way in that the door table neither drives nor names", w)
		}
	}
	for w, d := range driven {
		if !slices.Contains(ways, w) {
			t.Errorf("the table drives %s through the %s door, which no longer has it", w, d)
		}
	}
}

// mcpTools are the tools the MCP server offers, as a client lists them.
func mcpTools(t *testing.T) []string {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcpserver.New(nil, mcpserver.Options{Version: "conformance"}).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "conformance", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tool := range res.Tools {
		out = append(out, tool.Name)
	}
	if len(out) == 0 {
		t.Fatal("the MCP server lists no tools")
	}
	return out
}

// carries finds the canary in text, with what is around it.
func carries(text string) string {
	i := strings.Index(text, canary)
	if i < 0 {
		return ""
	}
	return text[max(0, i-150):min(len(text), i+len(canary)+50)]
}

// testKeys are the fields of a JSON answer that are the test itself (its steps, a repair's
// pre-repair steps, a fix's operations): a reader allowed to read the test reads its values
// there. Every other field is text for people or agents, and carries none.
var testKeys = []string{"steps", "preSteps", "ops", "step"}

// forPeople is a JSON answer without the test's own fields; text that is not JSON is as it is.
func forPeople(raw string) string {
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		return raw
	}
	b, _ := json.Marshal(drop(v))
	return string(b)
}

func drop(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if slices.Contains(testKeys, k) {
				delete(x, k)
				continue
			}
			x[k] = drop(e)
		}
	case []any:
		for i, e := range x {
			x[i] = drop(e)
		}
	}
	return v
}
