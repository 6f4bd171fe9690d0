// Package recordings holds recordings written for the gardener's two laboratory apps, in the
// formats teams keep — Chrome DevTools Recorder recordings (recorder/APP/*.json) and Selenium IDE
// projects (side/APP/*.side) — and the ones an import must refuse (refused/). The test here
// imports each, holds what it imports to the test format, and replays it in Chromium on its
// app, all in one browser.
package recordings

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/driftgardener/gardener/pkg/browser"
	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/recorder"
	"github.com/driftgardener/gardener/tests/demoapp"
	"github.com/driftgardener/gardener/tests/spaapp"
	"github.com/driftgardener/gardener/tests/testkit"
)

var runner *browser.Runner

func TestMain(m *testing.M) {
	testkit.Main(m, testkit.Chromium{Package: "tests/recordings", Shared: &runner, Parallel: 4})
}

// apps are the laboratory apps, by the folder their recordings are in.
var apps = []string{"demoapp", "spaapp"}

// formats are the recording formats, by their folder.
var formats = map[string]recorder.Format{"recorder": recorder.ChromeRecorder, "side": recorder.SeleniumIDE}

// The Recorder's step types and the Selenium IDE commands the corpus covers on each app, and the
// controls its value steps reach there: what a recording of a form is made of.
var (
	recorderTypes = []string{"setViewport", "navigate", "click", "doubleClick", "change", "keyDown", "keyUp", "hover", "scroll", "waitForElement", "assertedEvents"}
	sideCommands  = []string{"open", "setWindowSize", "click", "doubleClick", "type", "sendKeys", "select", "check", "uncheck", "mouseOver", "assertText", "verifyText", "assertTitle", "assertValue", "assertElementPresent", "assertElementNotPresent", "waitForElementVisible", "pause"}
	sideTargets   = []string{"id=", "name=", "css=", "xpath=", "linkText=", "partialLinkText="}
	controls      = []string{"text", "textarea", "select", "checkbox", "radio", "contenteditable"}
)

// coverage is what the replays of one app and format did.
type coverage struct {
	mu       sync.Mutex
	used     map[string]bool // Recorder step types or Selenium IDE commands and target forms
	controls map[string]bool // the controls value steps reached (the set steps' alone for the Recorder)
}

func (c *coverage) add(what map[string]bool, keys ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range keys {
		what[k] = true
	}
}

// TestCorpus imports every recording of the corpus and replays each of its tests green on its
// app, one Chromium shared by all, four replays at a time; together the recordings of each app
// cover every Recorder step type the import keeps, the common Selenium IDE commands and target
// forms, and every control type a value step meets (text field, text area, select, checkbox,
// radio button, editable element). Each imported test also reads back the same through the test
// format. Cost: 14–17 s for the package on two cores shared with other work (load average 9–12),
// nearly all of it the replays; TestAlternativesRescueADriftedLocator runs beside it.
func TestCorpus(t *testing.T) {
	t.Parallel()
	sites := map[string]string{}
	for _, a := range apps {
		var srv *httptest.Server
		if a == "demoapp" {
			srv = httptest.NewServer(demoapp.New().Handler())
		} else {
			srv = httptest.NewServer(spaapp.New().Handler())
		}
		t.Cleanup(srv.Close)
		sites[a] = srv.URL
	}
	cov := map[string]*coverage{}
	t.Run("replay", func(t *testing.T) {
		for dir, format := range formats {
			for _, app := range apps {
				c := &coverage{used: map[string]bool{}, controls: map[string]bool{}}
				cov[dir+"/"+app] = c
				files, err := filepath.Glob(filepath.Join(dir, app, "*"))
				if err != nil || len(files) == 0 {
					t.Fatalf("no recordings in %s/%s: %v", dir, app, err)
				}
				for _, f := range files {
					data, err := os.ReadFile(f)
					if err != nil {
						t.Fatal(err)
					}
					imp, err := recorder.Import(data, f)
					if err != nil {
						t.Errorf("%s does not import: %v", f, err)
						continue
					}
					if imp.Format != format {
						t.Errorf("%s imported as a %s, want a %s", f, imp.Format, format)
					}
					c.add(c.used, sourceUses(t, format, data)...)
					for _, test := range imp.Tests {
						test.ID, test.ProjectID = strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))+"-"+strings.ReplaceAll(strings.ToLower(test.Name), " ", "-"), app
						roundTrip(t, f, test)
						t.Run(filepath.Base(f)+"/"+test.Name, func(t *testing.T) {
							t.Parallel()
							replayGreen(t, test, sites[app], c, format)
						})
					}
				}
			}
		}
	})
	for key, c := range cov {
		dir, _, _ := strings.Cut(key, "/")
		want := recorderTypes
		if dir == "side" {
			want = append(slices.Clone(sideCommands), sideTargets...)
		}
		for _, w := range want {
			if !c.used[w] {
				t.Errorf("no recording in %s uses %s", key, w)
			}
		}
		for _, w := range controls {
			if !c.controls[w] {
				t.Errorf("no recording in %s reaches a %s with a value step", key, w)
			}
		}
	}
}

// sourceUses lists the Recorder step types (assertedEvents counting as one) or the Selenium IDE
// commands and target forms a recording holds.
func sourceUses(t *testing.T, format recorder.Format, data []byte) []string {
	var out []string
	if format == recorder.ChromeRecorder {
		var rec recorder.Recording
		if err := json.Unmarshal(data, &rec); err != nil {
			t.Fatal(err)
		}
		for _, s := range rec.Steps {
			out = append(out, s.Type)
			if len(s.AssertedEvents) > 0 {
				out = append(out, "assertedEvents")
			}
		}
		return out
	}
	var p recorder.Project
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	for _, st := range p.Tests {
		for _, c := range st.Commands {
			out = append(out, c.Command)
			for _, form := range sideTargets {
				if strings.HasPrefix(c.Target, form) {
					out = append(out, form)
				}
			}
		}
	}
	return out
}

// roundTrip holds an imported test to the test format: it encodes, reads back strictly and
// equal, and so does the file import writes.
func roundTrip(t *testing.T, file string, test gardener.Test) {
	t.Helper()
	enc, err := json.Marshal(test)
	if err != nil {
		t.Fatal(err)
	}
	back, err := gardener.DecodeTest(enc)
	if err != nil || back.Viewport != test.Viewport || !slices.EqualFunc(back.Steps, test.Steps, gardener.Step.Equal) {
		t.Errorf("%s: %s does not read back the same through the test format: %v\n%s", file, test.Name, err, enc)
	}
	formatted, err := gardener.FormatTest(test)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := gardener.DecodeTest(formatted); err != nil || !slices.EqualFunc(again.Steps, test.Steps, gardener.Step.Equal) {
		t.Errorf("%s: %s as a file does not read back the same: %v", file, test.Name, err)
	}
}

// replayGreen replays the test on its app and records what its steps reached.
func replayGreen(t *testing.T, test gardener.Test, base string, c *coverage, format recorder.Format) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, err := runner.Replay(ctx, test, gardener.ReplayOptions{BaseURL: base})
	if err != nil {
		t.Fatal(err)
	}
	res := rep.Result
	if !res.Passed {
		t.Fatalf("replays red at step %s (%s): %s", res.FailedStep, res.ErrorKind, res.Message)
	}
	for i, rec := range res.Steps {
		st := test.Steps[i]
		if !st.Enters() && st.Kind != gardener.Check && st.Kind != gardener.Uncheck {
			continue
		}
		if format == recorder.ChromeRecorder && st.Kind != gardener.Set {
			continue
		}
		if rec.Element == nil {
			t.Errorf("step %s (%s) recorded no element", rec.Path, st.Redacted())
			continue
		}
		c.add(c.controls, control(*rec.Element))
	}
}

// control names the kind of control a fingerprint is.
func control(fp gardener.Fingerprint) string {
	switch strings.ToLower(fp.Tag) {
	case "select":
		return "select"
	case "textarea":
		return "textarea"
	case "input":
		switch strings.ToLower(fp.Type) {
		case "checkbox", "radio":
			return strings.ToLower(fp.Type)
		}
		return "text"
	}
	if fp.Role == "textbox" {
		return "contenteditable"
	}
	return fp.Tag
}

// TestAlternativesRescueADriftedLocator: when a step's locator matches nothing, the replay uses
// the first recorded alternative that matches one element, and says so; without the
// alternatives the same drifted step fails. Cost: about 3 s, beside TestCorpus.
func TestAlternativesRescueADriftedLocator(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(demoapp.New().Handler())
	defer srv.Close()
	data, err := os.ReadFile("recorder/demoapp/login.json")
	if err != nil {
		t.Fatal(err)
	}
	test, _, err := recorder.Convert(data)
	if err != nil {
		t.Fatal(err)
	}
	test.ID, test.ProjectID = "login", "demo"
	i := slices.IndexFunc(test.Steps, func(s gardener.Step) bool { return s.Kind == gardener.Set && s.Value == "demo123" })
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
