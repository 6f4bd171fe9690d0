// Package engines runs the state machines of template.yaml on two Step Functions engines, the
// project's own ASL interpreter (pkg/local/asl, with the handlers the local stack builds) and the
// executor moto ships (derived from LocalStack's), with every Task answered by the real function
// handlers, and compares the route each execution took and what it ended with. docs/engines.md
// holds the table of what one engine runs and the other does not.
//
// moto's executor calls lambda:Invoke at http://localhost:$MOTO_PORT. The test binary serves that
// port itself: a proxy that answers POST /2015-03-31/functions/{name}/invocations by calling the
// function's handler in process through aws-lambda-go's handler wrapper (as the local stack does)
// and forwards every other request to moto_server.
package engines

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambda/messages"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/embedded"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/handler"
	"github.com/driftgardener/gardener/pkg/local/asl"
	"github.com/driftgardener/gardener/pkg/local/stack"
	"github.com/driftgardener/gardener/pkg/local/template"
	"github.com/driftgardener/gardener/pkg/modelspec"
	"github.com/driftgardener/gardener/pkg/mototest"
)

const templatePath = "../../template.yaml"

// lambdaPort is the proxy moto's executor invokes functions through; remote is the stack whose
// handlers answer there, and motoURL the moto_server every other request goes to.
var (
	lambdaPort string
	proxyMu    sync.Mutex
	remote     *stack.Stack
	motoURL    *url.URL
	// fault is "Function:429" or "Function:ErrorType": the function's next invocation is
	// refused by Lambda's Invoke API with 429 TooManyRequestsException (as Lambda does past the
	// account's concurrency), or answered with a function error of that type (what a rung's
	// handler returns when Bedrock throttles it: ThrottlingError).
	fault string
)

func TestMain(m *testing.M) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("no loopback port for the Lambda proxy: %v", err))
	}
	_, lambdaPort, _ = net.SplitHostPort(l.Addr().String())
	mototest.Env = []string{"MOTO_PORT=" + lambdaPort}
	go http.Serve(l, http.HandlerFunc(serveProxy))
	mototest.Main(m)
}

// serveProxy is Lambda's Invoke API for moto's executor, answered by the remote stack's handlers;
// anything else goes on to moto.
func serveProxy(w http.ResponseWriter, r *http.Request) {
	proxyMu.Lock()
	s, moto := remote, motoURL
	proxyMu.Unlock()
	if name, ok := strings.CutPrefix(r.URL.EscapedPath(), "/2015-03-31/functions/"); ok && r.Method == http.MethodPost && strings.HasSuffix(name, "/invocations") {
		name, _ = url.PathUnescape(strings.TrimSuffix(name, "/invocations"))
		id, ok := template.FunctionFromARN(name)
		if !ok {
			id = name
		}
		proxyMu.Lock()
		fn, kind, _ := strings.Cut(fault, ":")
		hit := fn != "" && fn == id
		if hit {
			fault = ""
		}
		proxyMu.Unlock()
		if hit && kind != "429" {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("X-Amz-Function-Error", "Unhandled")
			json.NewEncoder(w).Encode(map[string]string{"errorMessage": "injected: " + kind, "errorType": kind})
			return
		}
		if hit {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("X-Amzn-ErrorType", "TooManyRequestsException")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"Type":"User","message":"Rate Exceeded.","Reason":"ReservedFunctionConcurrentInvocationLimitExceeded"}`)
			return
		}
		body, _ := io.ReadAll(r.Body)
		if s == nil {
			http.Error(w, "no stack", http.StatusServiceUnavailable)
			return
		}
		out, err := s.Invoke(r.Context(), id, body)
		w.Header().Set("Content-Type", "application/json")
		if err != nil {
			// A function error, as Lambda reports it: 200 with X-Amz-Function-Error and the
			// runtime's error document, whose errorType aws-lambda-go takes from the error's type.
			w.Header().Set("X-Amz-Function-Error", "Unhandled")
			json.NewEncoder(w).Encode(map[string]string{"errorMessage": err.Error(), "errorType": asl.ErrorName(err)})
			return
		}
		w.Write(out)
		return
	}
	if moto == nil {
		http.Error(w, "no moto", http.StatusServiceUnavailable)
		return
	}
	httputil.NewSingleHostReverseProxy(moto).ServeHTTP(w, r)
}

// newStack is a local stack of template.yaml over a store of its own, seeded by seed.
func newStack(t *testing.T, runner gardener.Runner, seed func(gardener.Store)) *stack.Stack {
	t.Helper()
	store, err := embedded.Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	s, err := stack.New(stack.Config{Template: templatePath, Services: handler.Services{Store: store, Runner: runner, Models: func(ctx context.Context, spec string) (gardener.Model, error) {
		return modelspec.Open(ctx, spec, modelspec.Options{})
	}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Wait)
	seed(store)
	return s
}

// outcome is what one engine made of one execution.
type outcome struct {
	Status string
	Path   []string // top-level states entered, in order
	Inner  []string // states entered inside Map iterations, sorted (iterations run concurrently)
	Output string   // SUCCEEDED: the output; otherwise Error: Cause
	// Retries counts the retries the engine scheduled (pkg/local/asl records them; moto's
	// history has no retry event, so 0 there).
	Retries int
	// Failures names the Lambda errors of moto's history.
	Failures []string
}

// seed puts the same projects, tests and runs in a store, one set per case.
func seed(t *testing.T, app string) func(gardener.Store) {
	return func(store gardener.Store) {
		ctx := context.Background()
		must := func(err error) {
			if err != nil {
				t.Fatal(err)
			}
		}
		steps, _ := gardener.DecodeSteps([]byte(`[{"kind":"goto","url":"/"}]`))
		// not-eligible: a Pro project that did not opt in to repairs of scheduled runs.
		must(store.PutProject(ctx, gardener.Project{ID: "shop", Plan: gardener.PlanPro, Model: "builtin", AllowedOrigins: []string{"http://127.0.0.1:1"}}))
		must(store.CreateTest(ctx, gardener.Test{ID: "t", ProjectID: "shop", Status: gardener.StatusActive, Version: 1, Steps: steps}))
		res := gardener.RunResult{TestID: "t", TestVersion: 1, FailedStep: "1", FailedIndex: 0, ErrorKind: gardener.ErrNavigation, Message: "no page"}
		must(store.PutRun(ctx, gardener.Run{ID: "r", ProjectID: "shop", TestID: "t", TestVersion: 1, Trigger: gardener.TriggerSchedule, Result: &res, At: time.Unix(1700000000, 0)}))
		// staging skipped: a project that repairs itself stages nothing.
		must(store.PutProject(ctx, gardener.Project{ID: "self", Plan: gardener.PlanPro, AutoRepair: true}))
		// cap exceeded: twelve tests at risk, ten dry-runs, two deferred.
		must(store.PutProject(ctx, gardener.Project{ID: "many", Plan: gardener.PlanPro, Model: "builtin", Radar: true}))
		var ids []string
		for i := range 12 {
			id := fmt.Sprintf("m%02d", i)
			ids = append(ids, id)
			must(store.CreateTest(ctx, gardener.Test{ID: id, ProjectID: "many", Status: gardener.StatusActive, Version: 1, Steps: steps}))
		}
		must(store.MarkAtRisk(ctx, "many", ids, time.Unix(1700000000, 0)))
		// triaged after every rung: a click on a password field whose id was renamed, with no green
		// run to say what the element was; nothing on the page can take the click.
		must(store.PutProject(ctx, gardener.Project{ID: "heal", Plan: gardener.PlanPro, AutoRepair: true, Model: "builtin", AllowedOrigins: []string{app}}))
		pw, err := gardener.ParseLocator("#password")
		must(err)
		// A project of its own: the repair below propagates to tests of its project that share
		// the locator, and this case must not depend on which ran first.
		must(store.PutProject(ctx, gardener.Project{ID: "rungs", Plan: gardener.PlanPro, AutoRepair: true, Model: "builtin", AllowedOrigins: []string{app}}))
		must(store.CreateTest(ctx, gardener.Test{ID: "healme", ProjectID: "rungs", Name: "signs in", Status: gardener.StatusActive, Version: 1,
			Steps: []gardener.Step{{Kind: gardener.Goto, URL: "/heal"}, {Kind: gardener.Click, Locator: pw, TimeoutMs: 300}}}))
		hres := gardener.RunResult{TestID: "healme", TestVersion: 1, FailedStep: "2", FailedIndex: 1, ErrorKind: gardener.ErrElementNotFound, Message: "no element matches css=#password after 300ms"}
		must(store.PutRun(ctx, gardener.Run{ID: "rh", ProjectID: "rungs", TestID: "healme", TestVersion: 1, Trigger: gardener.TriggerSchedule, Result: &hres, At: time.Unix(1700000000, 0)}))
		// drift repaired: the same renamed field, filled: its label and name still say password.
		// The step limit is the default's, not a short one: the self-heal's proof fills under
		// it, and on a loaded machine (two engines side by side) 300 ms did not always suffice,
		// which sent one engine to another rung. The reproduction ends on the quiet page anyway.
		must(store.CreateTest(ctx, gardener.Test{ID: "fillme", ProjectID: "heal", Name: "signs in", Status: gardener.StatusActive, Version: 1,
			Steps: []gardener.Step{{Kind: gardener.Goto, URL: "/heal"}, {Kind: gardener.Fill, Locator: pw, Value: "hunter2"}}}))
		fres := gardener.RunResult{TestID: "fillme", TestVersion: 1, FailedStep: "2", FailedIndex: 1, ErrorKind: gardener.ErrElementNotFound, Message: "no element matches css=#password after 3s"}
		must(store.PutRun(ctx, gardener.Run{ID: "rf", ProjectID: "heal", TestID: "fillme", TestVersion: 1, Trigger: gardener.TriggerSchedule, Result: &fres, At: time.Unix(1700000000, 0)}))
		// a Retry on a rung: the same drift in a project of its own.
		must(store.PutProject(ctx, gardener.Project{ID: "again", Plan: gardener.PlanPro, AutoRepair: true, Model: "builtin", AllowedOrigins: []string{app}}))
		must(store.CreateTest(ctx, gardener.Test{ID: "retryme", ProjectID: "again", Name: "signs in", Status: gardener.StatusActive, Version: 1,
			Steps: []gardener.Step{{Kind: gardener.Goto, URL: "/heal"}, {Kind: gardener.Fill, Locator: pw, Value: "hunter2"}}}))
		ares := gardener.RunResult{TestID: "retryme", TestVersion: 1, FailedStep: "2", FailedIndex: 1, ErrorKind: gardener.ErrElementNotFound, Message: "no element matches css=#password after 3s"}
		must(store.PutRun(ctx, gardener.Run{ID: "ra", ProjectID: "again", TestID: "retryme", TestVersion: 1, Trigger: gardener.TriggerSchedule, Result: &ares, At: time.Unix(1700000000, 0)}))
		// suite replays: a test that passes and one whose button is gone, replayed in Chromium.
		must(store.PutProject(ctx, gardener.Project{ID: "app", Plan: gardener.PlanPro, AllowedOrigins: []string{app}}))
		for _, tc := range []struct{ id, locator string }{{"buys", "#buy"}, {"sells", "#sell"}} {
			loc, err := gardener.ParseLocator(tc.locator)
			must(err)
			must(store.CreateTest(ctx, gardener.Test{ID: tc.id, ProjectID: "app", Name: tc.id, Status: gardener.StatusActive, Version: 1,
				Steps: []gardener.Step{{Kind: gardener.Goto, URL: "/"}, {Kind: gardener.Click, Locator: loc, TimeoutMs: 300}}}))
		}
	}
}

var cases = []struct {
	name, machine, input string
	// fault makes the first invocation of a function fail: see the fault variable.
	fault string
	// motoPath is set where moto's executor is known to take another route: see docs/engines.md.
	motoPath []string
}{
	// Step Functions names a Lambda service error "Lambda.TooManyRequestsException", which the
	// Eligibility Retry matches; moto's executor names every service error "Exception", so its
	// Retry does not match and the Catch ends the execution.
	{"eligibility-retried", "RepairStateMachine", `{"detail":{"projectId":"shop","runId":"r","testId":"t"}}`, "EligibilityFunction:429", []string{"Eligibility", "EligibilityFailed"}},
	// A rung's function error is named by its errorType on both engines, and the rung's Retry on
	// ThrottlingError is taken (moto waits its 5 s interval), then the repair goes on as above.
	{"selfheal-retried", "RepairStateMachine", `{"detail":{"projectId":"again","runId":"ra","testId":"retryme"}}`, "SelfHealFunction:ThrottlingError", nil},
	{"not-eligible", "RepairStateMachine", `{"detail":{"projectId":"shop","runId":"r","testId":"t"}}`, "", nil},
	{"eligibility-caught", "RepairStateMachine", `{"detail":{"projectId":"shop","runId":"r"}}`, "", nil},
	{"staging-skipped", "StagingStateMachine", `{"detail":{"projectId":"self","sweepId":"s1"}}`, "", nil},
	{"staging-cap", "StagingStateMachine", `{"detail":{"projectId":"many","sweepId":"s2"}}`, "", nil},
	{"suite-nothing", "SuiteStateMachine", `{"detail":{"projectId":"self"}}`, "", nil},
	{"suite-plan-caught", "SuiteStateMachine", `{"detail":{"testId":"nosuch","runId":"x","testVersion":1}}`, "", nil},
	{"suite-replays", "SuiteStateMachine", `{"detail":{"projectId":"app"}}`, "", nil},
	{"drift-repaired", "RepairStateMachine", `{"detail":{"projectId":"heal","runId":"rf","testId":"fillme"}}`, "", nil},
	{"triaged-every-rung", "RepairStateMachine", `{"detail":{"projectId":"rungs","runId":"rh","testId":"healme"}}`, "", nil},
}

// route is the top-level route each case is named for, the one docs/engines.md's table gives (for
// a known divergence, pkg/local/asl's): two engines that agree on another route (a repair both
// triage, a suite both fail to plan) fail the case rather than pass it.
var route = map[string][]string{
	"eligibility-retried": {"Eligibility", "IsEligible", "NotEligible"},
	"selfheal-retried":    {"Eligibility", "IsEligible", "SelfHeal", "SelfHealGreen", "UseSelfHeal", "Persist", "Propagate", "Notify", "Done"},
	"not-eligible":        {"Eligibility", "IsEligible", "NotEligible"},
	"eligibility-caught":  {"Eligibility", "EligibilityFailed"},
	"staging-skipped":     {"Select", "HasWork", "Skipped"},
	"staging-cap":         {"Select", "HasWork", "Cap", "DryRuns", "Summary", "Done"},
	"suite-nothing":       {"Plan", "HasWork", "Done"},
	"suite-plan-caught":   {"Plan", "PlanFailed"},
	"suite-replays":       {"Plan", "HasWork", "Replays", "Report", "Done"},
	"drift-repaired":      {"Eligibility", "IsEligible", "SelfHeal", "SelfHealGreen", "UseSelfHeal", "Persist", "Propagate", "Notify", "Done"},
	"triaged-every-rung":  {"Eligibility", "IsEligible", "SelfHeal", "SelfHealGreen", "SuggestFix", "SuggestFixGreen", "Diagnose", "DiagnosisRoute", "Triage", "HasNews", "Done"},
}

const healPage = `<!doctype html><html><head><title>Sign in</title></head><body><form><p><label for="pw2">Password</label> <input id="pw2" name="password" type="password"></p><p><button id="go" type="submit">Sign in</button></p></form></body></html>`

const appPage = `<!doctype html><html><head><title>Shop</title></head><body><h1>Shop</h1><button id="buy">Buy</button></body></html>`

func TestEnginesAgree(t *testing.T) {
	cfg := mototest.Config(t)
	endpoint := mototest.Endpoint(t)
	u, _ := url.Parse(endpoint)
	if _, err := browser.ChromePath(); err != nil {
		t.Skipf("SKIP: no Chromium (%v); install it with: apt-get install -y chromium", err)
	}
	runner := browser.New(browser.Options{})
	t.Cleanup(func() { runner.Close() })
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/heal" {
			fmt.Fprint(w, healPage)
			return
		}
		fmt.Fprint(w, appPage)
	}))
	t.Cleanup(app.Close)
	local := newStack(t, runner, seed(t, app.URL))
	rs := newStack(t, runner, seed(t, app.URL))
	proxyMu.Lock()
	remote, motoURL = rs, u
	proxyMu.Unlock()

	tpl, err := template.Load(templatePath, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	client := sfn.NewFromConfig(cfg)
	defs := map[string][]byte{}
	tops := map[string][]string{}
	for id := range tpl.StateMachines {
		def, err := tpl.Definition(id)
		if err != nil {
			t.Fatal(err)
		}
		defs[id] = def
		var d struct{ States map[string]json.RawMessage }
		if err := json.Unmarshal(def, &d); err != nil {
			t.Fatal(err)
		}
		for k := range d.States {
			tops[id] = append(tops[id], k)
		}
	}
	// moto 5.2.1 runs one execution per server: StartExecution deep-copies the state machine,
	// which holds its backend, and once the backend holds an execution (with its thread's lock)
	// the copy fails (TypeError: cannot pickle '_thread.RLock' object, a 500) for every machine.
	// So each moto execution starts from a reset server, one at a time.
	var motoMu sync.Mutex
	fresh := func(id string) (string, error) {
		for _, call := range []struct{ path, body string }{
			{"/moto-api/reset", ""},
			{"/moto-api/config", `{"stepfunctions":{"execute_state_machine":true}}`},
		} {
			resp, err := http.Post(endpoint+call.path, "application/json", strings.NewReader(call.body))
			if err != nil {
				return "", err
			}
			resp.Body.Close()
			if resp.StatusCode/100 != 2 {
				return "", fmt.Errorf("POST %s: %s", call.path, resp.Status)
			}
		}
		out, err := client.CreateStateMachine(ctx, &sfn.CreateStateMachineInput{Name: aws.String(mototest.Name(id)), Definition: aws.String(string(defs[id])), RoleArn: aws.String("arn:aws:iam::123456789012:role/engines")})
		if err != nil {
			return "", fmt.Errorf("moto refuses %s: %w", id, err)
		}
		return *out.StateMachineArn, nil
	}

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			name := "engines-" + c.name
			var a, b outcome
			var wg sync.WaitGroup
			wg.Add(2)
			go func() { defer wg.Done(); a = runLocal(t, local, defs[c.machine], c.fault, name, c.input) }()
			go func() {
				defer wg.Done()
				motoMu.Lock()
				defer motoMu.Unlock()
				arn, err := fresh(c.machine)
				if err != nil {
					t.Error(err)
					return
				}
				proxyMu.Lock()
				fault = c.fault
				proxyMu.Unlock()
				b = runMoto(t, client, arn, tops[c.machine], name, c.input)
			}()
			wg.Wait()
			// Routes only: an output holds the values the tests type, which no log may show.
			t.Logf("pkg/local/asl: %s %v inner %v", a.Status, a.Path, a.Inner)
			t.Logf("moto:          %s %v inner %v", b.Status, b.Path, b.Inner)
			if want, ok := route[c.name]; !ok || !slices.Equal(a.Path, want) {
				t.Errorf("pkg/local/asl took %v; the case is named for %v (docs/engines.md)", a.Path, want)
			}
			if c.motoPath != nil {
				// A known divergence: pkg/local/asl must take AWS's route, moto its own.
				if !slices.Equal(b.Path, c.motoPath) || !slices.Equal(b.Failures, []string{"Exception"}) {
					t.Errorf("moto took %v after the errors %v; docs/engines.md says it takes %v after one error named Exception: update the table", b.Path, b.Failures, c.motoPath)
				}
				if a.Retries != 1 || slices.Equal(a.Path, c.motoPath) {
					t.Errorf("pkg/local/asl took %v with %d retries; the Retry must be taken once", a.Path, a.Retries)
				}
				return
			}
			if a.Status != b.Status || !slices.Equal(a.Path, b.Path) || !slices.Equal(a.Inner, b.Inner) {
				t.Errorf("the engines took different routes")
			}
			if c.fault != "" {
				_, kind, _ := strings.Cut(c.fault, ":")
				if a.Retries != 1 || !slices.Equal(b.Failures, []string{kind}) {
					t.Errorf("pkg/local/asl retried %d times, moto's history has the errors %v; want one %s and one retry on each", a.Retries, b.Failures, kind)
				}
			}
			if !sameJSON(a.Output, b.Output) {
				t.Errorf("the engines ended with different outputs:\n%s\n%s", a.Output, b.Output)
			}
		})
	}
}

// runLocal runs a definition on pkg/local/asl with each Task answered by the stack's handler, as
// the stack's own machines are; the fault's function fails its first invocation as Step Functions
// reports it (a Lambda 429 as Lambda.TooManyRequestsException, a function error by its type).
// Retry intervals are not waited out.
func runLocal(t *testing.T, s *stack.Stack, def []byte, fault, name, input string) outcome {
	var mu sync.Mutex
	m, err := asl.Parse(def, asl.Config{
		Sleep: func(context.Context, time.Duration) error { return nil },
		Resolve: func(resource string) (asl.Invoker, error) {
			id, _ := template.FunctionFromARN(resource)
			return func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
				mu.Lock()
				fn, kind, _ := strings.Cut(fault, ":")
				hit := fn != "" && fn == id
				if hit {
					fault = ""
				}
				mu.Unlock()
				switch {
				case hit && kind == "429":
					return nil, &asl.Failure{Name: "Lambda.TooManyRequestsException", Cause: "Rate Exceeded."}
				case hit:
					return nil, messages.InvokeResponse_Error{Message: "injected: " + kind, Type: kind}
				}
				return s.Invoke(ctx, id, in)
			}, nil
		},
	})
	if err != nil {
		t.Errorf("pkg/local/asl refuses the definition: %v", err)
		return outcome{}
	}
	e, err := m.Run(context.Background(), name, json.RawMessage(input))
	if err != nil {
		t.Errorf("local run: %v", err)
		return outcome{}
	}
	o := outcome{Status: string(e.Status), Path: e.Path(), Retries: len(e.Events(asl.EventRetryScheduled))}
	for _, ev := range e.History {
		if ev.Type == asl.EventStateEntered && ev.Scope != "" {
			o.Inner = append(o.Inner, ev.State)
		}
	}
	slices.Sort(o.Inner)
	if e.Status == asl.StatusSucceeded {
		o.Output = string(e.Output)
	} else {
		o.Output = e.Failure.Name + ": " + e.Failure.Cause
	}
	return o
}

func runMoto(t *testing.T, c *sfn.Client, arn string, tops []string, name, input string) outcome {
	ctx := context.Background()
	st, err := c.StartExecution(ctx, &sfn.StartExecutionInput{StateMachineArn: aws.String(arn), Name: aws.String(name), Input: aws.String(input)})
	if err != nil {
		t.Errorf("moto start: %v", err)
		return outcome{}
	}
	var d *sfn.DescribeExecutionOutput
	for deadline := time.Now().Add(50 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		d, err = c.DescribeExecution(ctx, &sfn.DescribeExecutionInput{ExecutionArn: st.ExecutionArn})
		if err != nil {
			t.Errorf("moto describe: %v", err)
			return outcome{}
		}
		if d.Status != sfntypes.ExecutionStatusRunning {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("moto execution %s did not end", name)
			return outcome{}
		}
	}
	o := outcome{Status: string(d.Status)}
	if d.Output != nil {
		o.Output = *d.Output
	} else {
		o.Output = aws.ToString(d.Error) + ": " + aws.ToString(d.Cause)
	}
	p := sfn.NewGetExecutionHistoryPaginator(c, &sfn.GetExecutionHistoryInput{ExecutionArn: st.ExecutionArn})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Errorf("moto history: %v", err)
			return o
		}
		for _, ev := range page.Events {
			if f := ev.LambdaFunctionFailedEventDetails; f != nil {
				o.Failures = append(o.Failures, aws.ToString(f.Error))
			}
			if ev.StateEnteredEventDetails == nil {
				continue
			}
			n := aws.ToString(ev.StateEnteredEventDetails.Name)
			if slices.Contains(tops, n) {
				o.Path = append(o.Path, n)
			} else {
				o.Inner = append(o.Inner, n)
			}
		}
	}
	slices.Sort(o.Inner)
	return o
}

// runIDSuffix is the time and random part of a stored run's id (schedule-sells-mx658l9t-e00c7c33).
var runIDSuffix = regexp.MustCompile(`-[0-9a-z]{8}-[0-9a-f]{8}"`)

// handoffID is the id of a stored rung decision: the digest of a body that holds the times the
// handlers wrote.
var handoffID = regexp.MustCompile(`"handoff-[0-9a-f]{32}"`)

// sameJSON compares two outputs as JSON values, leaving out what the clock decides: the "at"
// timestamps the handlers write, the time and random parts of new run ids (the trigger and
// test they name are compared) and the ids of handoffs, which digest such times. Nothing else
// may differ.
func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return a == b
	}
	ja, _ := json.Marshal(untimed(x))
	jb, _ := json.Marshal(untimed(y))
	mask := func(j []byte) []byte {
		j = handoffID.ReplaceAll(runIDSuffix.ReplaceAll(j, []byte(`-…"`)), []byte(`"handoff-…"`))
		// How long a step waited before a quiet page ended it is the machine's, not the route's.
		return waited.ReplaceAll(j, []byte("${1}…ms"))
	}
	return bytes.Equal(mask(ja), mask(jb))
}

// waited is a duration a failure message reports in milliseconds ("after 605ms").
var waited = regexp.MustCompile(`(after |stopped after )[0-9]+ms`)

func untimed(v any) any {
	switch v := v.(type) {
	case map[string]any:
		delete(v, "at")
		for k, e := range v {
			v[k] = untimed(e)
		}
	case []any:
		for i, e := range v {
			v[i] = untimed(e)
		}
	}
	return v
}
