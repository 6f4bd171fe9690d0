package browser

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// shadowFramePage is a page with a form component rendering into an open shadow root (a label,
// a placeholder, a test id, a role), a toast component whose status region is in its shadow
// root, and a same-origin iframe with a form of its own.
const shadowFramePage = `<!doctype html><html><head><title>Shadow and frame</title></head><body>
<h1>Account</h1>
<x-form></x-form>
<x-toast></x-toast>
<p id="paid">unpaid</p>
<iframe id="pay" title="Payment" src="/frame" style="width:400px;height:220px;margin-left:30px"></iframe>
<script>
customElements.define("x-toast", class extends HTMLElement {
  connectedCallback() { this.attachShadow({mode: "open"}).innerHTML = '<div role="status"></div>'; }
  show(t) { this.shadowRoot.firstChild.textContent = t; }
});
customElements.define("x-form", class extends HTMLElement {
  connectedCallback() {
    const r = this.attachShadow({mode: "open"});
    r.innerHTML = '<form><label for="nick">Nickname</label><input id="nick" placeholder="Your nickname">' +
      '<div class="footer"><button type="submit" data-testid="save-nick" class="primary">Save nickname</button></div></form>';
    r.querySelector("form").addEventListener("submit", (e) => {
      e.preventDefault();
      document.querySelector("x-toast").show("Saved " + r.querySelector("#nick").value);
    });
  }
});
addEventListener("message", (e) => { if (e.data === "paid") document.getElementById("paid").textContent = "paid"; });
</script></body></html>`

const framePage = `<!doctype html><html><body>
<label for="card">Card number</label><input id="card">
<button id="go" onclick="document.getElementById('out').textContent='ok '+document.getElementById('card').value;parent.postMessage('paid','*')">Pay now</button>
<p id="out"></p></body></html>`

func shadowFrameSite(t testing.TB) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, shadowFramePage) })
	mux.HandleFunc("/frame", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, framePage) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestShadowRootsAndFrames: every locator form reaches into open shadow roots, a frame path
// reaches into a same-origin iframe for actions and checks, a toast in a shadow root is seen,
// the elements acted on are recorded with their frame path and their box in page coordinates,
// and the snapshot lists shadow and frame elements, whose locators and paths resolve again.
func TestShadowRootsAndFrames(t *testing.T) {
	t.Parallel()
	r := needBrowser(t)
	base := shadowFrameSite(t)
	st := steps(t, `[{"kind":"goto","url":"/"},
		{"kind":"fill","locator":"label=Nickname","value":"ada"},
		{"kind":"assert","assert":"value","locator":"placeholder=Your nickname","condition":"equals","expected":"ada"},
		{"kind":"assertVisible","locator":"css=form > .footer > button.primary"},
		{"kind":"assertVisible","locator":"text=Save nickname"},
		{"kind":"click","locator":"testid=save-nick"},
		{"kind":"assertToast","text":"Saved ada"},
		{"kind":"fill","locator":"frame=#pay >> label=Card number","value":"4242"},
		{"kind":"click","locator":"frame=iframe[title=\"Payment\"] >> role=button[name=\"Pay now\"]"},
		{"kind":"assert","assert":"text","locator":"frame=0 >> #out","condition":"equals","expected":"ok 4242"},
		{"kind":"assert","assert":"text","locator":"#paid","condition":"equals","expected":"paid"}]`)
	end := map[int][]gardener.Locator{len(st): nil}
	rep := replayOK(t, r, base, st, gardener.ReplayOptions{Views: end})
	if !rep.Result.Passed {
		t.Fatalf("step %s: %s", rep.Result.FailedStep, rep.Result.Message)
	}
	fill := rep.Result.Steps[7].Element
	if fill == nil || fill.Frame != "#pay" || fill.ID != "card" || fill.Location.X < 30 {
		t.Errorf("the fill in the frame recorded %+v; want the card field with frame #pay at x ≥ 30", fill)
	}
	if nick := rep.Result.Steps[1].Element; nick == nil || nick.Frame != "" || !strings.Contains(nick.XPath, "/#shadow-root/") {
		t.Errorf("the fill in the shadow root recorded %+v", nick)
	}
	snap := rep.Views[len(st)].Snapshot
	if snap == nil {
		t.Fatal("no snapshot at the end")
	}
	var inFrame, inShadow *gardener.Fingerprint
	for i, c := range snap.Candidates {
		switch {
		case c.ID == "go":
			inFrame = &snap.Candidates[i]
		case c.TestID == "save-nick":
			inShadow = &snap.Candidates[i]
		}
	}
	if inFrame == nil || inFrame.Frame != "#pay" || inShadow == nil {
		t.Fatalf("the snapshot lacks the frame's button (%+v) or the shadow root's (%+v)", inFrame, inShadow)
	}
	// What the snapshot says about them finds them again: the frame path and the xpath through
	// the shadow root.
	again := steps(t, fmt.Sprintf(`[{"kind":"goto","url":"/"},
		{"kind":"assertVisible","locator":%q,"text":"Save nickname"},
		{"kind":"assertVisible","locator":%q,"text":"Pay now"}]`, "xpath="+inShadow.XPath, "frame="+inFrame.Frame+" >> xpath="+inFrame.IdxPath))
	if rep := replayOK(t, r, base, again, gardener.ReplayOptions{}); !rep.Result.Passed {
		t.Errorf("the snapshot's paths do not resolve: step %s: %s", rep.Result.FailedStep, rep.Result.Message)
	}
	// A frame path that names no iframe fails as a locator that finds nothing.
	missing := steps(t, `[{"kind":"goto","url":"/"},{"kind":"click","locator":"frame=#nope >> #go","timeoutMs":300}]`)
	if rep := replayOK(t, r, base, missing, gardener.ReplayOptions{}); rep.Result.Passed || rep.Result.ErrorKind != gardener.ErrElementNotFound {
		t.Errorf("a missing frame: %s %s", rep.Result.ErrorKind, rep.Result.Message)
	}
}
