package driftgen

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// invoiceTest is a saved test of a small invoicing app (not the demo shop) with its green run:
// fill a client, pick terms, save, check the total and a row of the list.
func invoiceTest(t *testing.T) (gardener.Test, gardener.RunResult) {
	t.Helper()
	steps, err := gardener.DecodeSteps([]byte(`[{"kind":"goto","url":"/invoices/new"},
		{"kind":"fill","locator":"#client","value":"Acme"},
		{"kind":"select","locator":"label=Payment terms","value":"Net 30"},
		{"kind":"click","locator":"css=form .actions button.primary"},
		{"kind":"assert","assert":"text","locator":"#total","condition":"equals","expected":"$120.00"},
		{"kind":"assertVisible","locator":"text=INV-7"}]`))
	if err != nil {
		t.Fatal(err)
	}
	fp := func(id, tag, xpath string, text ...string) *gardener.Fingerprint {
		return &gardener.Fingerprint{ID: id, Tag: tag, XPath: xpath, VisibleText: text}
	}
	page := "http://app.test/invoices/new"
	green := gardener.RunResult{Passed: true, FailedIndex: -1, Steps: []gardener.StepRecord{
		{Path: "1", Kind: gardener.Goto, URLBefore: "about:blank", Passed: true, Requests: []gardener.Request{{Method: "GET", URL: page, Status: 200}, {Method: "GET", URL: "http://app.test/app.js", Status: 200}}},
		{Path: "2", Kind: gardener.Fill, URLBefore: page, Element: fp("client", "INPUT", "/html[1]/body[1]/form[1]/input[1]"), Passed: true},
		{Path: "3", Kind: gardener.Select, URLBefore: page, Element: fp("terms", "SELECT", "/html[1]/body[1]/form[1]/select[1]"), Passed: true},
		{Path: "4", Kind: gardener.Click, URLBefore: page, Element: fp("", "BUTTON", "/html[1]/body[1]/form[1]/div[1]/button[1]", "Save"), Passed: true,
			Requests: []gardener.Request{{Method: "POST", URL: "http://app.test/api/invoices", Status: 201}, {Method: "POST", URL: "http://app.test/__record", Status: 204}}},
		{Path: "5", Kind: gardener.Assert, URLBefore: page, Element: fp("total", "SPAN", "/html[1]/body[1]/p[1]/span[1]", "$120.00"), Passed: true},
		{Path: "6", Kind: gardener.AssertVisible, URLBefore: page, Element: fp("", "TD", "/html[1]/body[1]/table[1]/tbody[1]/tr[2]/td[1]", "INV-7"), Passed: true},
	}}
	return gardener.Test{ID: "invoice", Steps: steps}, green
}

// TestGenerateCoversTheKindsThatFitEachStep: each step gets the kinds that can break how it
// finds or checks its element, and the same seed gives the same cases.
func TestGenerateCoversTheKindsThatFitEachStep(t *testing.T) {
	tt, green := invoiceTest(t)
	ms := Generate(tt, green, 7)
	got := map[string]bool{}
	for _, m := range ms {
		got[m.Name()] = true
		if m.Class != ClassOf(m.Kind) {
			t.Errorf("%s: class %s", m.Name(), m.Class)
		}
	}
	for _, want := range []string{
		"overlay/invoice@2", "rename-id/invoice@2", "decoy-before/invoice@2",
		"synonym/invoice@3", "move-menu/invoice@3",
		"rename-class/invoice@4", "class-hash/invoice@4", "live-count/invoice@4", "live-price/invoice@4", "wrap/invoice@4", "reorder/invoice@4", "move-toolbar/invoice@4",
		"required-select/invoice@4", "required-radio/invoice@4", "required-checkbox/invoice@4", "required-date/invoice@4",
		"dead-button/invoice@4", "http-500/invoice@4:POST /api/invoices", "http-500/invoice@1:GET /invoices/new",
		"wrong-number/invoice@5", "missing/invoice@5", "row-gone/invoice@6", "missing/invoice@6",
	} {
		if !got[want] {
			t.Errorf("no case %s among %v", want, names(ms))
		}
	}
	for _, never := range []string{"rename-id/invoice@4", "row-gone/invoice@5", "dead-button/invoice@2", "http-500/invoice@1:GET /app.js", "http-500/invoice@4:POST /__record", "synonym/invoice@2", "list-order/invoice@4", "row-icons/invoice@4", "live-count/invoice@2"} {
		if got[never] {
			t.Errorf("case %s does not fit its step", never)
		}
	}
	again := Generate(tt, green, 7)
	if !reflect.DeepEqual(stripInserts(ms), stripInserts(again)) {
		t.Error("the same seed generated different cases")
	}
	other := Generate(tt, green, 8)
	if reflect.DeepEqual(stripInserts(ms), stripInserts(other)) {
		t.Error("another seed generated exactly the same parameters")
	}
	for _, m := range ms {
		if m.Kind == WrongNumber && (m.Params["from"] != "120.00" || m.Params["to"] == m.Params["from"]) {
			t.Errorf("wrong-number changes %v to %v", m.Params["from"], m.Params["to"])
		}
	}
}

func stripInserts(ms []Mutation) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = fmt.Sprint(m.Name(), m.Key, m.Params)
	}
	return out
}

// TestSampleIsSeededAndCapped: at most n per kind, the same draw for the same seed.
func TestSampleIsSeededAndCapped(t *testing.T) {
	var ms []Mutation
	for i := 0; i < 30; i++ {
		ms = append(ms, Mutation{Kind: RenameID, Test: "t", Step: fmt.Sprint(i)}, Mutation{Kind: Missing, Test: "t", Step: fmt.Sprint(i)})
	}
	a, b := Sample(ms, 5, 3), Sample(ms, 5, 3)
	if len(a) != 10 || !reflect.DeepEqual(a, b) {
		t.Fatalf("sample of 5 per kind: got %d cases, same draw %v", len(a), reflect.DeepEqual(a, b))
	}
	if a[0].Kind != RenameID || a[9].Kind != Missing {
		t.Errorf("the sample is not in kind order: %v", names(a))
	}
}

// TestSiteInjectsTheRuntimeAndFailsTheRequest: HTML documents get the runtime first in their
// head (not in a <header>), other responses pass unchanged, the mutation's request answers
// 500, and the runtime's reports are answered by the site, never by the app.
func TestSiteInjectsTheRuntimeAndFailsTheRequest(t *testing.T) {
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, `<!doctype html><html><header>h</header><head><title>x</title></head><body>hi</body></html>`)
		case "/api/x":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"ok":true}`)
		default:
			t.Errorf("the app was asked for %s", r.URL.Path)
		}
	})
	site := NewSite(app, []Target{{Key: "2", Page: "/", XPath: "/html[1]/body[1]"}})
	srv := httptest.NewServer(site)
	defer srv.Close()
	body := get(t, srv.URL+"/")
	if i, j := strings.Index(body, "<head><script>"), strings.Index(body, "<header>h</header>"); i < 0 || j > i {
		t.Errorf("the runtime is not the head's first element:\n%.300s", body)
	}
	if !strings.Contains(body, `"xpath":"/html[1]/body[1]"`) || strings.Contains(body, "/*CONFIG*/") {
		t.Errorf("the runtime has no configuration:\n%.300s", body)
	}
	if got := get(t, srv.URL+"/api/x"); got != `{"ok":true}` {
		t.Errorf("a JSON response was changed: %q", got)
	}
	site.Set(&Mutation{Kind: HTTP500, Method: "GET", Path: "/api/x"})
	resp, err := http.Get(srv.URL + "/api/x")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 500 {
		t.Errorf("the mutated request answered %d", resp.StatusCode)
	}
	if ok, _ := site.Applied(); !ok {
		t.Error("a 500 answered is the mutation applied")
	}
	for _, hit := range []string{`{"key":"2","type":"click","at":2,"seq":1}`, `{"key":"3","type":"input","at":1,"seq":0}`} {
		resp, err := http.Get(srv.URL + hitPath + "?r=" + url.QueryEscape(hit))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if got := keys(site.TakeHits()); !reflect.DeepEqual(got, []string{"3", "2"}) {
		t.Errorf("hits in time order: got %v", got)
	}
	resp, err = http.Get(srv.URL + hitPath + "?r=" + url.QueryEscape(`{"key":`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a malformed report answered %d", resp.StatusCode)
	}
}

func get(t *testing.T, u string) string {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReferenceRepairsTheDrift: the generator's own fix points the steps that used the mutated
// element at its new place and inserts what the drift needs before the right step.
func TestReferenceRepairsTheDrift(t *testing.T) {
	tt, green := invoiceTest(t)
	var menu, req Mutation
	for _, m := range Generate(tt, green, 1) {
		switch m.Name() {
		case "move-menu/invoice@3":
			menu = m
		case "required-date/invoice@4":
			req = m
		}
	}
	ref, ok := Reference(tt, green, menu, "/html[1]/body[1]/form[1]/details[1]/div[1]/select[1]")
	if !ok || len(ref.Steps) != 7 || ref.Steps[2].Kind != gardener.Click || ref.Steps[3].Locator.String() != "xpath=/html[1]/body[1]/form[1]/details[1]/div[1]/select[1]" {
		t.Errorf("menu reference: %v", ref.Steps)
	}
	ref, ok = Reference(tt, green, req, "/html[1]/body[1]/form[1]/div[1]/button[1]")
	if !ok || len(ref.Steps) != 7 || ref.Steps[3].Kind != gardener.Fill || ref.Steps[4].Locator != tt.Steps[3].Locator {
		t.Errorf("required-date reference: %v", ref.Steps)
	}
	if _, ok := Reference(tt, green, Mutation{Kind: Missing, Class: Regression}, ""); ok {
		t.Error("a regression has a reference repair")
	}
}

// TestReferenceOpensAMenuOnEachNewPage: a control moved into a menu is used three times, twice
// on one page and once after the page is loaded again; the reference opens the menu before
// the first use and again on the new page, never twice on one page (that would close it).
func TestReferenceOpensAMenuOnEachNewPage(t *testing.T) {
	steps, err := gardener.DecodeSteps([]byte(`[{"kind":"goto","url":"/a"},
		{"kind":"select","locator":"#terms","value":"Net 30"},
		{"kind":"select","locator":"#terms","value":"Net 60"},
		{"kind":"goto","url":"/a"},
		{"kind":"select","locator":"#terms","value":"Net 30"}]`))
	if err != nil {
		t.Fatal(err)
	}
	page := "http://app.test/a"
	el := &gardener.Fingerprint{ID: "terms", Tag: "SELECT", XPath: "/html[1]/body[1]/form[1]/select[1]"}
	green := gardener.RunResult{Passed: true, FailedIndex: -1, Steps: []gardener.StepRecord{
		{Path: "1", Kind: gardener.Goto, URLBefore: "about:blank", URLAfter: page, Passed: true},
		{Path: "2", Kind: gardener.Select, URLBefore: page, URLAfter: page, Element: el, Passed: true},
		{Path: "3", Kind: gardener.Select, URLBefore: page, URLAfter: page, Element: el, Passed: true},
		{Path: "4", Kind: gardener.Goto, URLBefore: page, URLAfter: page, Passed: true},
		{Path: "5", Kind: gardener.Select, URLBefore: page, URLAfter: page, Element: el, Passed: true},
	}}
	tt := gardener.Test{ID: "terms", Steps: steps}
	var menu Mutation
	for _, m := range Generate(tt, green, 1) {
		if m.Kind == MoveMenu && m.Step == "2" {
			menu = m
		}
	}
	if menu.Insert == nil {
		t.Fatalf("no move-menu case for step 2 in %v", names(Generate(tt, green, 1)))
	}
	ref, ok := Reference(tt, green, menu, "/html[1]/body[1]/form[1]/details[1]/div[1]/select[1]")
	var kinds []string
	for _, s := range ref.Steps {
		kinds = append(kinds, string(s.Kind))
	}
	if want := "goto click select select goto click select"; !ok || strings.Join(kinds, " ") != want {
		t.Errorf("menu reference: %s, want %s", strings.Join(kinds, " "), want)
	}
}
