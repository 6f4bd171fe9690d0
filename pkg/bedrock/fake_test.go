package bedrock

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"

	"github.com/driftgardener/gardener/pkg/gardener"
)

const testModelID = "anthropic.claude-3-5-sonnet-20240620-v1:0"

// recorded is a response as Bedrock sent it, read from testdata: Body is JSON, RawBody is sent
// as is when the body is not JSON.
type recorded struct {
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers"`
	Body    json.RawMessage   `json:"body"`
	RawBody string            `json:"rawBody"`
}

// sent is one request the fake received.
type sent struct {
	Path string
	Body map[string]any
}

// fakeBedrock speaks the Converse wire format: POST /model/{modelId}/converse with a JSON body,
// answered with the recorded responses in order (the last one repeats).
type fakeBedrock struct {
	t       *testing.T
	srv     *httptest.Server
	mu      sync.Mutex
	replies []recorded
	got     []sent
}

func newFake(t *testing.T, files ...string) *fakeBedrock {
	t.Helper()
	f := &fakeBedrock{t: t}
	for _, name := range files {
		data, err := os.ReadFile(filepath.Join("testdata", name+".json"))
		if err != nil {
			t.Fatalf("reading recorded response: %v", err)
		}
		var r recorded
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatalf("testdata/%s.json: %v", name, err)
		}
		f.replies = append(f.replies, r)
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeBedrock) serve(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		f.t.Errorf("request body is not JSON: %v", err)
	}
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/converse") {
		f.t.Errorf("request %s %s is not a Converse call", r.Method, r.URL.Path)
	}
	if !strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 ") {
		f.t.Errorf("request is not SigV4-signed: Authorization %q", r.Header.Get("Authorization"))
	}
	f.mu.Lock()
	f.got = append(f.got, sent{Path: r.URL.Path, Body: body})
	reply := f.replies[min(len(f.got), len(f.replies))-1]
	f.mu.Unlock()
	for k, v := range reply.Headers {
		w.Header().Set(k, v)
	}
	w.WriteHeader(reply.Status)
	if reply.RawBody != "" {
		_, _ = io.WriteString(w, reply.RawBody)
		return
	}
	_, _ = w.Write(reply.Body)
}

func (f *fakeBedrock) requests() []sent {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]sent(nil), f.got...)
}

// client is a real Bedrock runtime client pointed at the fake with static credentials; the
// retryer waits no time between attempts so retry tests stay fast.
func (f *fakeBedrock) client() *bedrockruntime.Client {
	return testClient(f.srv.URL)
}

func testClient(endpoint string) *bedrockruntime.Client {
	return bedrockruntime.New(bedrockruntime.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "AKIDFAKE", SecretAccessKey: "fake-secret", Source: "test"}, nil
		}),
		Retryer: retry.NewStandard(func(o *retry.StandardOptions) {
			o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
		}),
	})
}

func (f *fakeBedrock) model(t *testing.T, opts ...Option) *Model {
	t.Helper()
	m, err := New(f.client(), testModelID, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// loginTest is the test the asks are about: its step 4 (index 3) lost its id, step 5 asserts
// where the flow ends, step 6 is an intent block.
const loginTestJSON = `{
  "id": "t-login", "project": "p-1", "name": "log in and open settings", "status": "active", "version": 3,
  "steps": [
    {"kind": "goto", "url": "http://app.test/login"},
    {"kind": "fill", "locator": "label=Email", "value": "ada@example.com"},
    {"kind": "fill", "locator": "label=Password", "value": "correct horse"},
    {"kind": "click", "locator": "css=#login-btn"},
    {"kind": "assert", "assert": "url", "condition": "contains", "expected": "/dashboard"},
    {"kind": "intent", "goal": "open the settings page", "values": {"section": "Settings"}, "steps": [
      {"kind": "click", "locator": "role=link[name=\"Settings\"]"},
      {"kind": "assertVisible", "locator": "css=h1", "text": "Settings"}
    ]}
  ]
}`

func loginTest(t testing.TB) gardener.Test {
	t.Helper()
	test, err := gardener.DecodeTest([]byte(loginTestJSON))
	if err != nil {
		t.Fatal(err)
	}
	return test
}

// failure is the evidence of the failing run at step 4, with a page whose text tries to give
// the model orders.
func failure(t testing.TB, pageText string) gardener.Failure {
	test := loginTest(t)
	signIn := gardener.Fingerprint{Tag: "button", Role: "button", AccessibleName: "Sign in", VisibleText: []string{"Sign in"}, XPath: "/html/body/main/form/div/button"}
	recorded := gardener.Fingerprint{Tag: "button", ID: "login-btn", Role: "button", AccessibleName: "Sign in", VisibleText: []string{"Sign in"}, XPath: "/html/body/main/form/button"}
	return gardener.Failure{
		Test: test,
		Result: gardener.RunResult{
			TestID: test.ID, TestVersion: test.Version, FailedStep: "4", FailedIndex: 3,
			ErrorKind: gardener.ErrElementNotFound, Message: `no element matches css=#login-btn`,
			Steps: []gardener.StepRecord{
				{Path: "1", Kind: gardener.Goto, Passed: true},
				{Path: "4", Kind: gardener.Click, Passed: false},
			},
			Console: []gardener.ConsoleMessage{{Level: "log", Text: "app booted"}, {Level: "warning", Text: "deprecated API"}},
		},
		LastGreen: &gardener.RunResult{
			TestID: test.ID, TestVersion: test.Version, Passed: true, FailedIndex: -1, FinalURL: "http://app.test/settings",
			Steps: []gardener.StepRecord{
				{Path: "4", Kind: gardener.Click, Element: &recorded, Passed: true},
				{Path: "6.1", Kind: gardener.Click, Passed: true},
			},
		},
		Snapshot: []gardener.Fingerprint{signIn, {Tag: "a", Role: "link", AccessibleName: "Forgot password?"}},
		PageURL:  "http://app.test/login",
		PageText: pageText,
	}
}

func locatorAsk(t testing.TB, pageText string) gardener.LocatorAsk {
	f := failure(t, pageText)
	return gardener.LocatorAsk{Failure: f, Index: 3, Inner: -1, Step: f.Test.Steps[3], Recorded: f.LastGreen.Steps[0].Element}
}

func intentAsk(t testing.TB) gardener.IntentAsk {
	f := failure(t, "Account ▾")
	f.Result.FailedStep, f.Result.FailedIndex = "6.1", 5
	return gardener.IntentAsk{Failure: f, Index: 5, Block: f.Test.Steps[5]}
}

// httpHang answers nothing until the caller gives up. It reads the body first: only then does
// the server notice a client that hangs up.
type httpHang struct{}

func (httpHang) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	select {
	case <-r.Context().Done():
	case <-time.After(30 * time.Second):
	}
}
