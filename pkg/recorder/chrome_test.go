package recorder

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// corpus is the recordings written for the laboratory apps; tests/recordings replays them.
const corpus = "../../tests/recordings"

func read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(corpus, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func locs(ls []gardener.Locator) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.String())
	}
	return out
}

// TestSelectorsRanked: the role and name wins over CSS and XPath whatever the Recorder's order,
// with the name alone as its first alternative; a CSS test id becomes a testid locator, pierce/
// duplicates of CSS collapse, and the rest are kept as alternatives in the Recorder's order.
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
	if got, want := locs(click.Alternatives), []string{`role=*[name="Buy now"]`, "text=Buy now", "css=#buy", "xpath=//button[1]"}; !slices.Equal(got, want) {
		t.Errorf("alternatives %v, want %v", got, want)
	}
	if got := test.Steps[2].Locator.String(); got != "testid=qty" || test.Steps[2].Value != "2" {
		t.Errorf("change: %s", test.Steps[2])
	}
	if test.Steps[0].URL != "/a" || test.Steps[3].URL != "https://elsewhere.test/b" {
		t.Errorf("navigations %q and %q: the first origin's URL is a path, another origin's stays whole", test.Steps[0].URL, test.Steps[3].URL)
	}
}

// TestChangeIsSet: a recorded change becomes a set step, whatever control it was (the
// recording does not say): the element decides at replay whether it is typed into, picked from
// or checked. Its value is the recorded one.
func TestChangeIsSet(t *testing.T) {
	rec := `{"steps":[{"type":"navigate","url":"http://app.test/"},
		{"type":"change","selectors":[["aria/Delivery[role=\"combobox\"]"],["#delivery"]],"value":"express"},
		{"type":"change","selectors":[["#terms"]],"value":"on"},
		{"type":"change","selectors":[["#bio"]],"value":"two\nlines"}]}`
	test, _, err := Convert([]byte(rec))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"express", "on", "two\nlines"} {
		s := test.Steps[i+1]
		if s.Kind != gardener.Set || s.Value != want {
			t.Errorf("change %d became %s", i+1, s)
		}
		if strings.Contains(s.Redacted(), want) {
			t.Errorf("change %d reads %q for people: its value shows", i+1, s.Redacted())
		}
	}
}

// TestAriaSelectors: an aria/ selector is an accessible name: with a role the Recorder computed,
// a role locator and the name alone after it; with none (or one of the browser's own, which the
// page's markup never says), the name alone; ARIA 1.3's image is img; an empty name has no form.
func TestAriaSelectors(t *testing.T) {
	cases := []struct {
		sel  string
		want []string
	}{
		{`aria/Search products`, []string{`role=*[name="Search products"]`}},
		{`aria/Sign in[role="button"]`, []string{`role=button[name="Sign in"]`, `role=*[name="Sign in"]`}},
		{`aria/Welcome, Ada[role="StaticText"]`, []string{`role=*[name="Welcome, Ada"]`}},
		{`aria/Card[role="generic"]`, []string{`role=*[name="Card"]`}},
		{`aria/Logo[role="image"]`, []string{`role=img[name="Logo"]`, `role=*[name="Logo"]`}},
		{`aria/Say "hi"[role="button"]`, []string{`role=button[name="Say \"hi\""]`, `role=*[name="Say \"hi\""]`}},
	}
	for _, c := range cases {
		raw, _ := json.Marshal(c.sel)
		rec := `{"steps":[{"type":"click","selectors":[[` + string(raw) + `],["#fallback"]]}]}`
		test, _, err := Convert([]byte(rec))
		if err != nil {
			t.Errorf("%s: %v", c.sel, err)
			continue
		}
		got := append([]string{test.Steps[0].Locator.String()}, locs(test.Steps[0].Alternatives)...)
		if want := append(slices.Clone(c.want), "css=#fallback"); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", c.sel, got, want)
		}
	}
	_, _, err := Convert([]byte(`{"steps":[{"type":"click","selectors":[["aria/"],["aria/[role=\"button\"]"]]}]}`))
	var refused *RefusedError
	if !errors.As(err, &refused) || !strings.Contains(refused.Refusals[0].Reason, "empty accessible name") {
		t.Errorf("empty accessible names: %v", err)
	}
}

// TestViewportKept: the recording's viewport is the test's; the same size again is no change, a
// mobile device or a second size is refused, a scale factor is noted, a size out of bounds is
// refused naming the bounds.
func TestViewportKept(t *testing.T) {
	vp := func(w, h int, extra string) string {
		b, _ := json.Marshal(map[string]any{"type": "setViewport", "width": w, "height": h})
		if extra != "" {
			b = append(b[:len(b)-1], []byte(","+extra+"}")...)
		}
		return string(b)
	}
	nav := `{"type":"navigate","url":"http://app.test/"}`
	test, notes, err := Convert([]byte(`{"steps":[` + vp(390, 844, `"deviceScaleFactor":3`) + `,` + nav + `,` + vp(390, 844, "") + `]}`))
	if err != nil || test.Viewport != (gardener.Viewport{Width: 390, Height: 844}) {
		t.Fatalf("viewport %v, %v", test.Viewport, err)
	}
	if len(notes) != 1 || notes[0].Step != 1 || !strings.Contains(notes[0].Text, "scale factor 3") {
		t.Errorf("notes %v", notes)
	}
	for _, c := range []struct {
		rec, why string
		step     int
	}{
		{`{"steps":[` + vp(390, 844, `"isMobile":true`) + `,` + nav + `]}`, "mobile device", 1},
		{`{"steps":[` + vp(1024, 768, "") + `,` + nav + `,` + vp(800, 600, "") + `]}`, "changes the viewport to 800x600 after step 1 set 1024x768", 3},
		{`{"steps":[` + vp(20, 768, "") + `,` + nav + `]}`, "viewport width 20 is out of bounds (100 to 4096", 1},
	} {
		_, _, err := Convert([]byte(c.rec))
		var refused *RefusedError
		if !errors.As(err, &refused) || refused.Refusals[0].Step != c.step || !strings.Contains(refused.Refusals[0].Reason, c.why) {
			t.Errorf("%s: %v, want step %d refused for %q", c.rec, err, c.step, c.why)
		}
	}
}

// TestDoubleClick: a doubleClick is a click of two clicks; another button than the primary is
// refused as for a click.
func TestDoubleClick(t *testing.T) {
	test, _, err := Convert([]byte(`{"steps":[{"type":"doubleClick","selectors":[["#tile"]],"offsetX":3,"offsetY":4}]}`))
	if err != nil || test.Steps[0].Kind != gardener.Click || test.Steps[0].Clicks != 2 {
		t.Fatalf("%v, %v", test.Steps, err)
	}
	_, _, err = Convert([]byte(`{"steps":[{"type":"doubleClick","selectors":[["#tile"]],"button":"auxiliary"}]}`))
	var refused *RefusedError
	if !errors.As(err, &refused) {
		t.Errorf("a double click of the middle button: %v", err)
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

// TestRefusals: every step without an equivalent in refused/steps.json is refused at once, with
// its number and why — a JavaScript expression among them — and nothing is converted.
func TestRefusals(t *testing.T) {
	test, _, err := Convert(read(t, "refused/steps.json"))
	var refused *RefusedError
	if !errors.As(err, &refused) {
		t.Fatalf("refused/steps.json converted: %v", err)
	}
	if len(test.Steps) != 0 {
		t.Errorf("a refused recording converted to %d steps", len(test.Steps))
	}
	why := map[int]string{}
	var steps []int
	for _, r := range refused.Refusals {
		steps = append(steps, r.Step)
		why[r.Step] = r.Reason
		if r.Reason == "" {
			t.Errorf("step %d refused without a reason", r.Step)
		}
	}
	if want := []int{2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15, 16}; !slices.Equal(steps, want) {
		t.Errorf("refused steps %v, want %v", steps, want)
	}
	for step, want := range map[int]string{2: "JavaScript expression", 7: "mobile device", 9: "changes the viewport", 10: "another tab", 11: "attributes or properties", 16: "never released"} {
		if !strings.Contains(why[step], want) {
			t.Errorf("step %d refused for %q, want it to say %q", step, why[step], want)
		}
	}
	if !strings.Contains(err.Error(), "step 2 (waitForExpression): ") {
		t.Errorf("the error does not name the step and its type:\n%v", err)
	}
	for _, bad := range []string{``, `[]`, `{"steps":[]}`, `{"steps":[{"type":"setViewport","width":1000,"height":700}]}`} {
		if _, _, err := Convert([]byte(bad)); err == nil {
			t.Errorf("%q converted", bad)
		}
	}
}

// TestFramesAndShadowPaths: a step in an iframe keeps its frame path on every locator, nested
// frames included; a selector path through shadow roots becomes its last part (every locator
// form but XPath pierces open shadow roots), ranked as what it is, a CSS one after CSS of the
// document; a path ending in XPath is left out; a navigation inside a frame is refused.
func TestFramesAndShadowPaths(t *testing.T) {
	rec := `{"title":"pay","steps":[
		{"type":"navigate","url":"http://app.test/billing"},
		{"type":"change","selectors":[["aria/Card number[role=\"textbox\"]"],["#card-number"]],"value":"4242","frame":[0]},
		{"type":"click","selectors":[["pierce/#pay"],["xpath///button"]],"frame":[1,0]},
		{"type":"click","selectors":[["member-table","tr:nth-of-type(2) button.edit"],["xpath///table"],["member-table","xpath///button"]]},
		{"type":"click","selectors":[["member-table","tr:nth-of-type(2) button.edit"],["member-table","aria/Edit Alan[role=\"button\"]"],["td.x"]]}]}`
	test, _, err := Convert([]byte(rec))
	if err != nil {
		t.Fatal(err)
	}
	if got := test.Steps[1].Locator.String(); got != `frame=0 >> role=textbox[name="Card number"]` {
		t.Errorf("a set in frame 0: locator %s", got)
	}
	if got, want := locs(test.Steps[1].Alternatives), []string{`frame=0 >> role=*[name="Card number"]`, "frame=0 >> css=#card-number"}; !slices.Equal(got, want) {
		t.Errorf("a set in frame 0: alternatives %v", got)
	}
	if got := test.Steps[2].Locator.String(); got != "frame=1 >> frame=0 >> css=#pay" {
		t.Errorf("a click in a nested frame: %s", got)
	}
	if got := append([]string{test.Steps[3].Locator.String()}, locs(test.Steps[3].Alternatives)...); !slices.Equal(got, []string{"css=tr:nth-of-type(2) button.edit", "xpath=//table"}) {
		t.Errorf("a CSS path: %v", got)
	}
	if got := append([]string{test.Steps[4].Locator.String()}, locs(test.Steps[4].Alternatives)...); !slices.Equal(got, []string{`role=button[name="Edit Alan"]`, `role=*[name="Edit Alan"]`, "css=td.x", "css=tr:nth-of-type(2) button.edit"}) {
		t.Errorf("an accessible-name path: %v", got)
	}
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
