// Package statemachines holds the ASL definitions of the two state machines; its tests prove
// the properties the design card asks of them, on the definitions themselves.
package statemachines

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/local/asl"
	"github.com/driftgardener/gardener/pkg/local/asltest"
)

var placeholder = regexp.MustCompile(`\$\{(\w+)\}`)

// substituted reads a definition with every ${Name} replaced by a local Lambda ARN named after it.
func substituted(t *testing.T, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return placeholder.ReplaceAllFunc(b, func(m []byte) []byte {
		name := strings.TrimSuffix(string(placeholder.FindSubmatch(m)[1]), "Arn")
		return []byte("arn:aws:lambda:us-east-1:000000000000:function:" + name)
	})
}

func TestDefinitionsPassTheReferenceValidators(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for _, f := range []string{"repair.asl.json", "staging.asl.json", "suite.asl.json"} {
		p := filepath.Join(dir, f)
		if err := os.WriteFile(p, substituted(t, f), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
		if _, err := asl.Parse(substituted(t, f), asl.Config{}); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	asltest.Validate(t, paths...)
}

// state is the part of an ASL state the graph walk reads.
type state struct {
	Type       string            `json:"Type"`
	Next       string            `json:"Next"`
	Default    string            `json:"Default"`
	InputPath  *string           `json:"InputPath"`
	ResultPath *string           `json:"ResultPath"`
	Choices    []json.RawMessage `json:"Choices"`
	Catch      []struct {
		Next string `json:"Next"`
	} `json:"Catch"`
}

type definition struct {
	StartAt string           `json:"StartAt"`
	States  map[string]state `json:"States"`
}

func load(t *testing.T, file string) definition {
	t.Helper()
	var d definition
	if err := json.Unmarshal(substituted(t, file), &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// greenRule returns the result path a Choice rule proves green ("$.selfHeal" for
// {"Variable": "$.selfHeal.green", "BooleanEquals": true}), or "".
func greenRule(raw json.RawMessage) string {
	var r struct {
		Variable      string `json:"Variable"`
		BooleanEquals *bool  `json:"BooleanEquals"`
	}
	if json.Unmarshal(raw, &r) != nil || r.BooleanEquals == nil || !*r.BooleanEquals {
		return ""
	}
	return strings.TrimSuffix(r.Variable, ".green")
}

// TestEveryPathIntoPersistPassesAGreenProof walks the repair machine as a graph, every path from
// the start, and proves that Persist is only reached with a winner that a Choice proved green on
// the way: the rule `X.green == true` was taken, and the Pass that fills $.winner copied that
// same X.
func TestEveryPathIntoPersistPassesAGreenProof(t *testing.T) {
	d := load(t, "repair.asl.json")
	if _, ok := d.States["Persist"]; !ok {
		t.Fatal("no Persist state")
	}
	type walk struct {
		at, proven, winner string
		seen               map[string]bool
		path               []string
	}
	paths := 0
	var visit func(w walk)
	visit = func(w walk) {
		if w.seen[w.at] {
			t.Fatalf("cycle at %s: %v", w.at, w.path)
		}
		w.seen = cloneSet(w.seen)
		w.seen[w.at] = true
		w.path = append(append([]string(nil), w.path...), w.at)
		if w.at == "Persist" {
			paths++
			if w.proven == "" || w.winner != w.proven {
				t.Errorf("a path reaches Persist without a green proof of its winner (proven %q, winner %q): %s", w.proven, w.winner, strings.Join(w.path, " → "))
			}
		}
		s, ok := d.States[w.at]
		if !ok {
			t.Fatalf("transition to unknown state %s", w.at)
		}
		next := func(to, proven, winner string) {
			visit(walk{at: to, proven: proven, winner: winner, seen: w.seen, path: w.path})
		}
		switch s.Type {
		case "Choice":
			for _, c := range s.Choices {
				var r struct{ Next string }
				_ = json.Unmarshal(c, &r)
				if p := greenRule(c); p != "" {
					next(r.Next, p, w.winner)
				} else {
					next(r.Next, w.proven, w.winner)
				}
			}
			if s.Default != "" {
				next(s.Default, w.proven, w.winner)
			}
		case "Pass":
			winner := w.winner
			if s.ResultPath != nil && *s.ResultPath == "$.winner" {
				winner = "<unproven>"
				if s.InputPath != nil {
					winner = *s.InputPath
				}
			}
			if s.Next != "" {
				next(s.Next, w.proven, winner)
			}
		default:
			winner := w.winner
			if s.ResultPath != nil && *s.ResultPath == "$.winner" {
				winner = "<task output>"
			}
			if s.Next != "" {
				next(s.Next, w.proven, winner)
			}
			for _, c := range s.Catch {
				next(c.Next, w.proven, winner)
			}
		}
	}
	visit(walk{at: d.StartAt, seen: map[string]bool{}})
	if paths != 3 {
		t.Errorf("%d paths reach Persist; the ladder has three rungs that can win", paths)
	}
}

func cloneSet(m map[string]bool) map[string]bool {
	out := make(map[string]bool, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// rung is what a scripted rung answers: a real rung's decision always names its outcome.
type rung struct {
	Green          bool         `json:"green"`
	Classification string       `json:"classification"`
	Decision       rungDecision `json:"decision"`
}

type rungDecision struct {
	Outcome string `json:"outcome"`
}

// scripted is a rung's answer: green, or triaged with the classification.
func scripted(green bool, class string) rung {
	outcome := "triaged"
	if green {
		outcome = "repaired"
	}
	return rung{Green: green, Classification: class, Decision: rungDecision{Outcome: outcome}}
}

// TestRepairMachineRoutes runs the repair machine in the interpreter over every combination of
// rung answers: Persist runs exactly when some rung went green before the ladder ended, an
// app-bug or environment diagnosis never reaches it, and every other ending files triage.
func TestRepairMachineRoutes(t *testing.T) {
	classes := []string{"test-drift", "app-bug", "environment", "unknown"}
	for _, eligible := range []bool{true, false} {
		for mask := 0; mask < 8; mask++ {
			for _, class := range classes {
				sh, sf, dg := mask&1 != 0, mask&2 != 0, mask&4 != 0
				name := fmt.Sprintf("eligible=%v/self=%v/suggest=%v/diagnose=%v/%s", eligible, sh, sf, dg, class)
				t.Run(name, func(t *testing.T) {
					calls := map[string]int{}
					var mu sync.Mutex
					answer := map[string]any{
						"Eligibility": map[string]any{"eligible": eligible, "runId": "r1", "testId": "t1"},
						"SelfHeal":    scripted(sh, ""),
						"SuggestFix":  scripted(sf, ""),
						"Diagnose":    scripted(dg, class),
						"Persist":     map[string]any{"notify": true, "notification": map[string]any{"kind": "applied"}},
						"Triage":      map[string]any{"notify": true, "notification": map[string]any{"kind": "triaged"}},
						"Notify":      map[string]any{},
					}
					exec := runMachine(t, "repair.asl.json", `{"detail":{"runId":"r1","testId":"t1"}}`, func(fn string, _ json.RawMessage) (any, error) {
						mu.Lock()
						calls[fn]++
						mu.Unlock()
						return answer[fn], nil
					})
					if exec.Status != asl.StatusSucceeded {
						t.Fatalf("execution %s: %+v", exec.Status, exec.Failure)
					}
					wantPersist := eligible && (sh || sf || dg && (class == "test-drift" || class == "unknown"))
					if got := calls["Persist"] == 1; got != wantPersist {
						t.Errorf("persist called %d times, want %v", calls["Persist"], wantPersist)
					}
					if eligible && !wantPersist && calls["Triage"] != 1 {
						t.Errorf("an ending without a green proof filed %d triage issues", calls["Triage"])
					}
					if !eligible && len(calls) != 1 {
						t.Errorf("an ineligible run went on to %v", calls)
					}
					if sh && calls["SuggestFix"] != 0 || (sh || sf) && calls["Diagnose"] != 0 {
						t.Errorf("the ladder did not stop at the first green rung: %v", calls)
					}
					if eligible && calls["Notify"] != 1 {
						t.Errorf("an ending that is news notified %d times: %v", calls["Notify"], calls)
					}
				})
			}
		}
	}
}

// TestRepairMachineCatchWritesNothing: a rung that keeps failing (a throttled model, say) is
// retried with backoff and then caught into triage; Persist is never reached.
func TestRepairMachineCatchWritesNothing(t *testing.T) {
	calls := map[string]int{}
	var mu sync.Mutex
	exec := runMachine(t, "repair.asl.json", `{"detail":{"runId":"r1","testId":"t1"}}`, func(fn string, _ json.RawMessage) (any, error) {
		mu.Lock()
		calls[fn]++
		mu.Unlock()
		switch fn {
		case "Eligibility":
			return map[string]any{"eligible": true}, nil
		case "SelfHeal":
			return nil, &ThrottlingError{}
		case "Triage":
			return map[string]any{"notify": true, "notification": map[string]any{"kind": "triaged"}}, nil
		}
		return map[string]any{}, nil
	})
	if exec.Status != asl.StatusSucceeded {
		t.Fatalf("execution %s: %+v", exec.Status, exec.Failure)
	}
	if calls["SelfHeal"] != 6 {
		t.Errorf("a throttled rung was tried %d times; the Retry allows 1 + 5", calls["SelfHeal"])
	}
	if calls["Persist"] != 0 || calls["Triage"] != 1 {
		t.Errorf("calls %v: want triage and no persist", calls)
	}
}

// TestRepairMachineStopsOnATestThatPasses: a rung whose reproduction passed goes straight to the
// conclusion, which says there is nothing to repair; no later rung replays the test again, and
// nothing is announced when the conclusion is nobody's news.
func TestRepairMachineStopsOnATestThatPasses(t *testing.T) {
	for _, at := range []string{"SelfHeal", "SuggestFix", "Diagnose"} {
		t.Run(at, func(t *testing.T) {
			calls := map[string]int{}
			var mu sync.Mutex
			exec := runMachine(t, "repair.asl.json", `{"detail":{"runId":"r1","testId":"t1"}}`, func(fn string, _ json.RawMessage) (any, error) {
				mu.Lock()
				calls[fn]++
				mu.Unlock()
				switch fn {
				case "Eligibility":
					return map[string]any{"eligible": true}, nil
				case at:
					return rung{Decision: rungDecision{Outcome: "no-fix"}}, nil
				case "SelfHeal", "SuggestFix", "Diagnose":
					return scripted(false, "unknown"), nil
				case "Triage":
					return map[string]any{"notify": false}, nil
				}
				return map[string]any{}, nil
			})
			if exec.Status != asl.StatusSucceeded {
				t.Fatalf("execution %s: %+v", exec.Status, exec.Failure)
			}
			order := []string{"SelfHeal", "SuggestFix", "Diagnose"}
			for _, later := range order[slices.Index(order, at)+1:] {
				if calls[later] != 0 {
					t.Errorf("%s ran after %s found the test passing: %v", later, at, calls)
				}
			}
			if calls["Triage"] != 1 || calls["Persist"] != 0 || calls["Notify"] != 0 {
				t.Errorf("calls %v: want the conclusion once, no persist, no notification", calls)
			}
		})
	}
}

// ThrottlingError has the type name Step Functions matches in the Retry of the rungs, as the
// Bedrock adapter's error does.
type ThrottlingError struct{}

func (*ThrottlingError) Error() string { return "throttled" }

// TestStagingCapHoldsForAnyInputSize: whatever Select returns, the Map dry-runs at most 10 tests,
// never more than MaxConcurrency at a time, and only the red ones climb the ladder.
func TestStagingCapHoldsForAnyInputSize(t *testing.T) {
	for _, n := range []int{0, 1, 9, 10, 11, 12, 25, 100} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			items := make([]map[string]string, n)
			for i := range items {
				items[i] = map[string]string{"projectId": "p", "testId": fmt.Sprintf("t%02d", i)}
			}
			var dry, propose, stage, active, peak atomic.Int32
			exec := runMachine(t, "staging.asl.json", `{"detail":{"projectId":"p","sweepId":"s1"}}`, func(fn string, in json.RawMessage) (any, error) {
				switch fn {
				case "StagingSelect":
					return map[string]any{"projectId": "p", "sweepId": "s1", "skipped": false, "count": n, "items": items}, nil
				case "DryRun":
					dry.Add(1)
					now := active.Add(1)
					for {
						p := peak.Load()
						if now <= p || peak.CompareAndSwap(p, now) {
							break
						}
					}
					time.Sleep(2 * time.Millisecond)
					active.Add(-1)
					var item struct{ TestID string }
					_ = json.Unmarshal(in, &item)
					// Every other test still passes: no ladder for those.
					return map[string]any{"passed": strings.HasSuffix(item.TestID, "0") || strings.HasSuffix(item.TestID, "2"), "skipped": false, "gate": map[string]any{"testId": item.TestID}}, nil
				case "Propose":
					propose.Add(1)
					if propose.Load()%2 == 0 {
						return map[string]any{"outcome": "triaged"}, nil
					}
					stage.Add(1)
					return map[string]any{"outcome": "staged"}, nil
				}
				return map[string]any{}, nil
			})
			if exec.Status != asl.StatusSucceeded {
				t.Fatalf("execution %s: %+v", exec.Status, exec.Failure)
			}
			want := min(n, 10)
			if int(dry.Load()) != want {
				t.Errorf("%d dry-runs for %d at-risk tests, want %d", dry.Load(), n, want)
			}
			if peak.Load() > 5 {
				t.Errorf("%d dry-runs at once; MaxConcurrency is 5", peak.Load())
			}
			red := 0
			for i := 0; i < want; i++ {
				if id := fmt.Sprintf("t%02d", i); !strings.HasSuffix(id, "0") && !strings.HasSuffix(id, "2") {
					red++
				}
			}
			if int(propose.Load()) != red || stage.Load() > propose.Load() {
				t.Errorf("propose %d, stage %d", propose.Load(), stage.Load())
			}
		})
	}
}

func TestStagingSkipsAutoRepairProjects(t *testing.T) {
	var calls atomic.Int32
	exec := runMachine(t, "staging.asl.json", `{"detail":{"projectId":"p","sweepId":"s1"}}`, func(fn string, _ json.RawMessage) (any, error) {
		calls.Add(1)
		if fn == "StagingSelect" {
			return map[string]any{"skipped": true, "reason": "project p repairs itself"}, nil
		}
		return map[string]any{}, nil
	})
	if exec.Status != asl.StatusSucceeded || calls.Load() != 1 {
		t.Fatalf("status %s after %d calls; a skipped project stops after Select", exec.Status, calls.Load())
	}
}

// runMachine runs a definition with every Lambda answered by fn (named by the function's logical
// name without "Function"), through JSON as Lambda would.
func runMachine(t *testing.T, file, input string, fn func(name string, in json.RawMessage) (any, error)) *asl.Execution {
	t.Helper()
	m, err := asl.Parse(substituted(t, file), asl.Config{
		Sleep: func(context.Context, time.Duration) error { return nil },
		Resolve: func(resource string) (asl.Invoker, error) {
			name := strings.TrimSuffix(resource[strings.LastIndex(resource, ":")+1:], "Function")
			return func(_ context.Context, in json.RawMessage) (json.RawMessage, error) {
				out, err := fn(name, in)
				if err != nil {
					return nil, err
				}
				return json.Marshal(out)
			}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	exec, err := m.Run(context.Background(), "", json.RawMessage(input))
	if err != nil {
		t.Fatal(err)
	}
	return exec
}

// TestSuiteReplaysEveryItemBounded: the suite replays every planned test, never more than
// MaxConcurrency at a time, and a replay that cannot run (caught after its retries) neither
// stops the others nor ends the execution in failure; an empty plan replays nothing.
func TestSuiteReplaysEveryItemBounded(t *testing.T) {
	for _, n := range []int{0, 1, 4, 5, 17} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			items := make([]map[string]any, n)
			for i := range items {
				items[i] = map[string]any{"projectId": "p", "testId": fmt.Sprintf("t%02d", i), "testVersion": 1, "trigger": "schedule"}
			}
			var runs, active, peak atomic.Int32
			exec := runMachine(t, "suite.asl.json", `{"detail":{}}`, func(fn string, in json.RawMessage) (any, error) {
				switch fn {
				case "SuitePlan":
					return map[string]any{"count": n, "items": items, "skipped": map[string]string{}, "deferred": []string{}}, nil
				case "SuiteRun":
					runs.Add(1)
					now := active.Add(1)
					for {
						p := peak.Load()
						if now <= p || peak.CompareAndSwap(p, now) {
							break
						}
					}
					time.Sleep(2 * time.Millisecond)
					active.Add(-1)
					var item struct{ TestID string }
					_ = json.Unmarshal(in, &item)
					if item.TestID == "t03" {
						return nil, &ThrottlingError{}
					}
					return map[string]any{"testId": item.TestID, "passed": true}, nil
				case "SuiteReport":
					var got struct {
						Results []json.RawMessage `json:"results"`
					}
					if err := json.Unmarshal(in, &got); err != nil || len(got.Results) != n {
						return nil, fmt.Errorf("report of %d results, want %d (%v)", len(got.Results), n, err)
					}
					return map[string]any{"reported": []string{}}, nil
				}
				return nil, fmt.Errorf("unexpected function %s", fn)
			})
			if exec.Status != asl.StatusSucceeded {
				t.Fatalf("execution %s: %+v", exec.Status, exec.Failure)
			}
			if int(runs.Load()) != n {
				t.Errorf("%d replays for %d planned tests", runs.Load(), n)
			}
			if peak.Load() > 4 {
				t.Errorf("%d replays at once; MaxConcurrency is 4", peak.Load())
			}
			var out struct {
				Results []struct {
					TestID string `json:"testId"`
					NotRun bool   `json:"notRun"`
				} `json:"results"`
			}
			if err := json.Unmarshal(exec.Output, &out); err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				if out.Results != nil {
					t.Errorf("an empty plan produced results %+v", out.Results)
				}
				return
			}
			if len(out.Results) != n {
				t.Fatalf("%d results for %d tests", len(out.Results), n)
			}
			for i, r := range out.Results {
				if r.TestID != fmt.Sprintf("t%02d", i) || r.NotRun != (i == 3) {
					t.Errorf("result %d: %+v", i, r)
				}
			}
		})
	}
}

// TestRepairTasksNameTheirExecution: every task of the repair machine is invoked with its
// payload beside its execution's id, which is how an invocation on AWS knows whose cost it adds
// to (handler.Task takes the envelope off); a task without it would count nothing there. Every
// task after Eligibility (whose payload is the execution's input) also gets the gate, which
// names the run whose cost it adds to without the execution's history being read.
func TestRepairTasksNameTheirExecution(t *testing.T) {
	b, err := os.ReadFile("repair.asl.json")
	if err != nil {
		t.Fatal(err)
	}
	var def struct {
		StartAt string
		States  map[string]struct {
			Type       string
			Parameters map[string]any
		}
	}
	if err := json.Unmarshal(b, &def); err != nil {
		t.Fatal(err)
	}
	tasks := 0
	for name, st := range def.States {
		if st.Type != "Task" {
			continue
		}
		tasks++
		_, payload := st.Parameters["payload"]
		_, payloadPath := st.Parameters["payload.$"]
		want := 3
		if name == def.StartAt {
			want = 2
			if st.Parameters["payload.$"] != "$" {
				t.Errorf("task %s, the first: payload %v; want the execution's input, $", name, st.Parameters["payload.$"])
			}
		} else if st.Parameters["gate.$"] != "$.gate" {
			t.Errorf("task %s: gate %v; want $.gate", name, st.Parameters["gate.$"])
		}
		if st.Parameters["execution.$"] != "$$.Execution.Id" || payload == payloadPath || len(st.Parameters) != want {
			t.Errorf("task %s: Parameters %v; want {\"payload\" or \"payload.$\": …, \"execution.$\": \"$$.Execution.Id\"} and, after the first, \"gate.$\"", name, st.Parameters)
		}
	}
	if tasks == 0 {
		t.Fatal("the repair machine has no tasks")
	}
}
