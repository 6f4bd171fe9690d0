package demoapp

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func readRecord(t *testing.T, c *client) recordJSON {
	t.Helper()
	status, _, body := c.get("/__record")
	if status != http.StatusOK {
		t.Fatalf("GET /__record = %d %s", status, body)
	}
	var r recordJSON
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatalf("GET /__record is not JSON: %v\n%s", err, body)
	}
	return r
}

func TestRecord(t *testing.T) {
	app := New()
	c := newClient(t, app)
	batch := `[{"type":"fill","key":"login-username","value":"d","page":"/login"},
		{"type":"fill","key":"login-username","value":"demo","page":"/login"},
		{"type":"check","key":"login-remember","value":"true","page":"/login"},
		{"type":"click","key":"login-submit","page":"/login"}]`
	if status, _, body := c.do(http.MethodPost, "/__record", "text/plain;charset=UTF-8", batch); status != http.StatusNoContent {
		t.Fatalf("POST /__record = %d %s", status, body)
	}
	c.postForm("/login", url.Values{"username": {demoUser}, "password": {demoPassword}})
	c.get("/assets/app.js") // assets are not part of what a test does: not recorded

	got := readRecord(t, c)
	want := []Event{
		{Seq: 1, Type: EventFill, Key: "login-username", Value: "demo", Page: "/login", Variant: BaselineName},
		{Seq: 2, Type: EventCheck, Key: "login-remember", Value: "true", Page: "/login", Variant: BaselineName},
		{Seq: 3, Type: EventClick, Key: "login-submit", Page: "/login", Variant: BaselineName},
		{Seq: 4, Type: EventRequest, Method: "POST", Path: "/login", Status: http.StatusSeeOther,
			Fields: map[string]string{"username": demoUser, "password": demoPassword}, Variant: BaselineName},
		{Seq: 5, Type: EventRequest, Method: "GET", Path: "/dashboard", Status: http.StatusOK, Variant: BaselineName},
	}
	if len(got.Events) != len(want) {
		t.Fatalf("record has %d events, want %d:\n%+v", len(got.Events), len(want), got.Events)
	}
	for i := range want {
		g, _ := json.Marshal(got.Events[i])
		w, _ := json.Marshal(want[i])
		if string(g) != string(w) {
			t.Errorf("event %d = %s\nwant      %s", i, g, w)
		}
	}

	c.postJSON("/api/cart", `{"productId":1,"qty":2}`)
	last := app.Events()[len(app.Events())-1]
	if last.Path != "/api/cart" || last.Status != http.StatusOK || last.Fields["productId"] != "1" || last.Fields["qty"] != "2" {
		t.Errorf("a JSON post is recorded as %+v, want its path, status and fields", last)
	}

	if status, _, _ := c.do(http.MethodPost, "/__record/reset", "", ""); status != http.StatusNoContent {
		t.Fatalf("POST /__record/reset = %d", status)
	}
	if r := readRecord(t, c); len(r.Events) != 0 {
		t.Errorf("after reset the record has %d events", len(r.Events))
	}
}

func TestRecordRefusesBadBatches(t *testing.T) {
	cases := map[string]string{
		"not JSON":        `{`,
		"not an array":    `{"type":"click","key":"x"}`,
		"unknown type":    `[{"type":"hover","key":"x"}]`,
		"no key":          `[{"type":"click"}]`,
		"too large":       `[` + strings.Repeat(" ", maxBody) + `]`,
		"partly accepted": `[{"type":"click","key":"ok"},{"type":"bogus","key":"x"}]`,
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			app := New()
			c := newClient(t, app)
			status, _, msg := c.do(http.MethodPost, "/__record", "application/json", body)
			if status != http.StatusBadRequest || !strings.HasPrefix(msg, "record: ") {
				t.Errorf("POST /__record %s = %d %q, want 400 saying what is wrong", name, status, msg)
			}
			if n := len(app.Events()); n != 0 {
				t.Errorf("a refused batch left %d events in the record", n)
			}
		})
	}
}

func TestAppsKeepTheirOwnRecordAndData(t *testing.T) {
	a, b := New(), New()
	ca, cb := newClient(t, a), newClient(t, b)
	ca.login()
	ca.postJSON("/api/products", `{"name":"Only in A","sku":"A-1","price":"1","category":"tools","description":"","featured":false}`)
	if _, _, body := cb.get("/products"); strings.Contains(body, "Only in A") {
		t.Error("a product created in one App shows in another")
	}
	if len(b.Events()) != 1 {
		t.Errorf("App b recorded %d events, want only its own GET /products", len(b.Events()))
	}
	if err := b.SetVariant(vButtonText); err != nil {
		t.Fatal(err)
	}
	if a.Variant() != BaselineName {
		t.Error("switching one App's variant switched another's")
	}
	a.Reset()
	if _, _, body := ca.get("/products"); strings.Contains(body, "Only in A") {
		t.Error("Reset kept a created product")
	}
}

func TestAdminEndpoints(t *testing.T) {
	app := New()
	c := newClient(t, app)
	if status, _, body := c.do(http.MethodPost, "/__variant?name="+vButtonText, "", ""); status != http.StatusOK || !strings.Contains(body, vButtonText) {
		t.Fatalf("POST /__variant = %d %s", status, body)
	}
	if _, _, body := c.get("/login"); !strings.Contains(body, ">Sign in</button>") {
		t.Error("the switched variant is not served on the next request")
	}
	// Several variants as a person types them in a URL: "+" (a space once the query is decoded),
	// an escaped "+" or commas all name the same combination.
	for _, q := range []string{"id-renamed+moved-button", "id-renamed%2Bmoved-button", "id-renamed,moved-button", "id-renamed%20moved-button"} {
		if status, _, body := c.do(http.MethodPost, "/__variant?name="+q, "", ""); status != http.StatusOK || !strings.Contains(body, `"name":"id-renamed+moved-button"`) {
			t.Errorf("POST /__variant?name=%s = %d %s, want the combination id-renamed+moved-button", q, status, body)
		}
	}
	c.do(http.MethodPost, "/__variant?name="+vButtonText, "", "")
	status, _, body := c.do(http.MethodPost, "/__variant?name=bogus", "", "")
	if status != http.StatusBadRequest || !strings.Contains(body, `"known":["baseline"`) {
		t.Errorf("POST /__variant?name=bogus = %d %s, want 400 with the known variants", status, body)
	}
	if _, _, body := c.get("/__variant"); !strings.Contains(body, `"name":"`+vButtonText+`"`) {
		t.Errorf("GET /__variant = %s", body)
	}
	var vs []Variant
	_, _, body = c.get("/__variants")
	if err := json.Unmarshal([]byte(body), &vs); err != nil || len(vs) != len(Variants()) {
		t.Errorf("GET /__variants = %d variants (%v), want %d", len(vs), err, len(Variants()))
	}
	if n := len(app.Events()); n != 1 {
		t.Errorf("the record has %d events; admin requests must not be recorded, only GET /login", n)
	}
}

// TestSwitchUnderLoad switches variants while pages are served; run with -race. Every page is
// wholly one variant: the login button and its label never mix two.
func TestSwitchUnderLoad(t *testing.T) {
	app := New()
	c := newClient(t, app)
	names := []string{BaselineName, vButtonText, vLabelRenamed, vIDRenamed}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 200 {
			if err := app.SetVariant(names[i%len(names)]); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 25 {
				_, _, body := c.get("/login")
				sign := strings.Contains(body, ">Sign in</button>")
				email := strings.Contains(body, ">Email or username</label>")
				current := strings.Contains(body, `id="current-password"`)
				n := 0
				for _, b := range []bool{sign, email, current} {
					if b {
						n++
					}
				}
				if n > 1 {
					t.Errorf("one page mixes variants: sign in %v, email label %v, current-password %v", sign, email, current)
				}
			}
		}()
	}
	wg.Wait()
	for _, e := range app.Events() {
		if e.Variant == "" {
			t.Errorf("event %d has no variant", e.Seq)
		}
	}
}

// TestRecordOrdersByTheTimeThingsHappened: a beacon that arrives late (after the navigation its
// click caused, say) takes its place by the page's clock; a fill that repeats the element's last
// recorded value adds nothing.
func TestRecordOrdersByTheTimeThingsHappened(t *testing.T) {
	app := New()
	c := newClient(t, app)
	for _, batch := range []string{
		`[{"type":"fill","key":"price","value":"32.00","page":"/p","at":1000},{"type":"fill","key":"category","value":"indoor","page":"/p","at":2000}]`,
		`[{"type":"click","key":"save","page":"/p","at":4000}]`,
		`[{"type":"fill","key":"price","value":"32.00","page":"/p","at":3000}]`,
		`[{"type":"click","key":"featured","page":"/p","at":2500}]`,
	} {
		if status, _, body := c.do(http.MethodPost, "/__record", "text/plain", batch); status != http.StatusNoContent {
			t.Fatalf("POST /__record = %d %s", status, body)
		}
	}
	var got []string
	for _, e := range app.Events() {
		got = append(got, strconv.Itoa(e.Seq)+":"+e.Type+":"+e.Key)
	}
	want := []string{"1:fill:price", "2:fill:category", "3:click:featured", "4:click:save"}
	if !slices.Equal(got, want) {
		t.Errorf("record = %v, want %v", got, want)
	}
}
