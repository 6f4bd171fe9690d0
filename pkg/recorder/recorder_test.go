package recorder

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/tests/demoapp"
)

const recordings = "../../tests/recordings"

func read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(recordings, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSelectorsRanked: the role and name wins over CSS and XPath whatever the Recorder's order,
// a CSS test id becomes a testid locator, pierce/ duplicates of CSS collapse, and the rest are
// kept as alternatives in the Recorder's order.
func TestSelectorsRanked(t *testing.T) {
	rec := `{"title":"t","steps":[
		{"type":"navigate","url":"http://app.test/a"},
		{"type":"click","selectors":[["xpath///button[1]"],["#buy"],["pierce/#buy"],["aria/Buy now[role=\"button\"]"],["text/Buy now"]]},
		{"type":"change","selectors":[["[data-testid='qty']"],["input.qty"]],"value":"2"},
		{"type":"navigate","url":"https://elsewhere.test/b"}]}`
	test, _, err := Convert([]byte(rec))
	if err != nil {
		t.Fatal(err)
	}
	click := test.Steps[1]
	if got := click.Locator.String(); got != `role=button[name="Buy now"]` {
		t.Errorf("locator %s", got)
	}
	var alts []string
	for _, a := range click.Alternatives {
		alts = append(alts, a.String())
	}
	if want := []string{"text=Buy now", "css=#buy", "xpath=//button[1]"}; !slices.Equal(alts, want) {
		t.Errorf("alternatives %v, want %v", alts, want)
	}
	if got := test.Steps[2].Locator.String(); got != "testid=qty" || test.Steps[2].Value != "2" {
		t.Errorf("change: %s", test.Steps[2])
	}
	if test.Steps[0].URL != "/a" || test.Steps[3].URL != "https://elsewhere.test/b" {
		t.Errorf("navigations %q and %q: the first origin's URL is a path, another origin's stays whole", test.Steps[0].URL, test.Steps[3].URL)
	}
}

// TestKeys: a keyDown is a press, its keyUp releases it, a modifier held combines with the next
// key, and a key released without being pressed is refused.
func TestKeys(t *testing.T) {
	rec := `{"steps":[{"type":"navigate","url":"http://app.test/"},
		{"type":"keyDown","key":"Control"},{"type":"keyDown","key":"a"},{"type":"keyUp","key":"a"},{"type":"keyUp","key":"Control"},
		{"type":"keyDown","key":"Enter"},{"type":"keyUp","key":"Enter"}]}`
	test, _, err := Convert([]byte(rec))
	if err != nil {
		t.Fatal(err)
	}
	if len(test.Steps) != 3 || test.Steps[1].Key != "Control+a" || test.Steps[2].Key != "Enter" {
		t.Fatalf("steps %v", test.Steps)
	}
	_, _, err = Convert([]byte(`{"steps":[{"type":"navigate","url":"http://app.test/"},{"type":"keyUp","key":"Enter"}]}`))
	var refused *RefusedError
	if !errors.As(err, &refused) || refused.Refusals[0].Step != 2 {
		t.Errorf("a key released unpressed: %v", err)
	}
}

// TestRefusals: every step without an equivalent is refused at once, with its number and why.
func TestRefusals(t *testing.T) {
	_, _, err := Convert(read(t, "refused.json"))
	var refused *RefusedError
	if !errors.As(err, &refused) {
		t.Fatalf("refused.json converted: %v", err)
	}
	var steps []int
	for _, r := range refused.Refusals {
		steps = append(steps, r.Step)
		if r.Reason == "" {
			t.Errorf("step %d refused without a reason", r.Step)
		}
	}
	if want := []int{2, 3, 4, 5, 6, 7, 8}; !slices.Equal(steps, want) {
		t.Errorf("refused steps %v, want %v", steps, want)
	}
	for _, bad := range []string{``, `[]`, `{"steps":[]}`, `{"steps":[{"type":"setViewport","width":1,"height":1}]}`} {
		if _, _, err := Convert([]byte(bad)); err == nil {
			t.Errorf("%q converted", bad)
		}
	}
}

// TestRecordingsReplayGreen: each hand-written recording of the demo shop imports, round-trips
// through the test format, and replays green in Chromium; together they cover every Recorder
// step type the import converts.
func TestRecordingsReplayGreen(t *testing.T) {
	if _, err := browser.ChromePath(); err != nil {
		t.Skipf("SKIP: no Chromium (%v); install it with: apt-get install -y chromium", err)
	}
	app := demoapp.New()
	srv := httptest.NewServer(app.Handler())
	defer srv.Close()
	runner := browser.New(browser.Options{})
	defer runner.Close()
	files, err := filepath.Glob(filepath.Join(recordings, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]bool{}
	for _, f := range files {
		if filepath.Base(f) == "refused.json" {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			b := read(t, filepath.Base(f))
			for _, typ := range []string{"setViewport", "navigate", "click", "change", "keyDown", "keyUp", "hover", "waitForElement", "scroll", "assertedEvents"} {
				if strings.Contains(string(b), `"`+typ+`"`) {
					types[typ] = true
				}
			}
			test, _, err := Convert(b)
			if err != nil {
				t.Fatal(err)
			}
			test.ID, test.ProjectID = strings.TrimSuffix(filepath.Base(f), ".json"), "demo"
			enc, err := json.Marshal(test)
			if err != nil {
				t.Fatal(err)
			}
			back, err := gardener.DecodeTest(enc)
			if err != nil || !slices.EqualFunc(back.Steps, test.Steps, gardener.Step.Equal) {
				t.Fatalf("the imported test does not round-trip through the test format: %v\n%s", err, enc)
			}
			rep, err := runner.Replay(context.Background(), test, gardener.ReplayOptions{BaseURL: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Result.Passed {
				t.Fatalf("%s replays red: step %s: %s", f, rep.Result.FailedStep, rep.Result.Message)
			}
		})
	}
	for _, typ := range []string{"setViewport", "navigate", "click", "change", "keyDown", "keyUp", "hover", "waitForElement", "scroll", "assertedEvents"} {
		if !types[typ] {
			t.Errorf("no recording covers %s", typ)
		}
	}
}

// TestAlternativesRescueADriftedLocator: when a step's locator matches nothing, the replay uses
// the first recorded alternative that matches one element, and says so; without the
// alternatives the same drifted step fails.
func TestAlternativesRescueADriftedLocator(t *testing.T) {
	if _, err := browser.ChromePath(); err != nil {
		t.Skipf("SKIP: no Chromium (%v); install it with: apt-get install -y chromium", err)
	}
	srv := httptest.NewServer(demoapp.New().Handler())
	defer srv.Close()
	runner := browser.New(browser.Options{})
	defer runner.Close()
	test, _, err := Convert(read(t, "login.json"))
	if err != nil {
		t.Fatal(err)
	}
	test.ID, test.ProjectID = "login", "demo"
	i := slices.IndexFunc(test.Steps, func(s gardener.Step) bool { return s.Kind == gardener.Fill && s.Value == "demo123" })
	test.Steps[i].Locator = gardener.MustLocator("css=#password-renamed")
	test.Steps[i].TimeoutMs = 1000
	rep, err := runner.Replay(context.Background(), test, gardener.ReplayOptions{BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Result.Passed || !strings.Contains(rep.Result.Steps[i].Observed, "recorded alternative xpath=") {
		t.Fatalf("a drifted locator with alternatives: passed %v, step %+v: %s", rep.Result.Passed, rep.Result.Steps[i], rep.Result.Message)
	}
	test.Steps[i].Alternatives = nil
	rep, err = runner.Replay(context.Background(), test, gardener.ReplayOptions{BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Result.Passed {
		t.Fatal("the drifted locator passed without its alternatives: the test proves nothing")
	}
}

// TestFramesAndShadowPaths: a step in an iframe keeps its frame path on every locator, nested
// frames included; a selector path through shadow roots of CSS parts becomes its last part
// (locators pierce open shadow roots), one with other parts is left out; a navigation inside a
// frame is refused.
func TestFramesAndShadowPaths(t *testing.T) {
	rec := `{"title":"pay","steps":[
		{"type":"navigate","url":"http://app.test/billing"},
		{"type":"change","selectors":[["aria/Card number[role=\"textbox\"]"],["#card-number"]],"value":"4242","frame":[0]},
		{"type":"click","selectors":[["pierce/#pay"],["xpath///button"]],"frame":[1,0]},
		{"type":"click","selectors":[["member-table","tr:nth-of-type(2) button.edit"],["aria/x","aria/y"]]}]}`
	test, _, err := Convert([]byte(rec))
	if err != nil {
		t.Fatal(err)
	}
	if got := test.Steps[1].Locator.String(); got != `frame=0 >> role=textbox[name="Card number"]` {
		t.Errorf("fill in frame 0: locator %s", got)
	}
	if len(test.Steps[1].Alternatives) != 1 || test.Steps[1].Alternatives[0].String() != "frame=0 >> css=#card-number" {
		t.Errorf("fill in frame 0: alternatives %v", test.Steps[1].Alternatives)
	}
	if got := test.Steps[2].Locator.String(); got != "frame=1 >> frame=0 >> css=#pay" {
		t.Errorf("click in a nested frame: %s", got)
	}
	if got := test.Steps[3].Locator.String(); got != "css=tr:nth-of-type(2) button.edit" || len(test.Steps[3].Alternatives) != 0 {
		t.Errorf("shadow path: %s, alternatives %v", got, test.Steps[3].Alternatives)
	}
	// The converted test reads back through the test format with its frames.
	again, err := gardener.DecodeSteps([]byte(mustJSON(t, test.Steps)))
	if err != nil || again[2].Locator != test.Steps[2].Locator {
		t.Errorf("round trip: %v, %v", err, again)
	}
	_, _, err = Convert([]byte(`{"steps":[{"type":"navigate","url":"http://app.test/"},{"type":"navigate","url":"http://app.test/f","frame":[0]}]}`))
	var refused *RefusedError
	if !errors.As(err, &refused) || refused.Refusals[0].Step != 2 || !strings.Contains(refused.Refusals[0].Reason, "iframe") {
		t.Errorf("a navigation in a frame: %v", err)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
