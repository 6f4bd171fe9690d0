package browser

import (
	"encoding/json"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

func TestSmoke(t *testing.T) {
	r := needBrowser(t)
	srv := fixture(t)
	rep := replayOK(t, r, srv.URL, steps(t, `[
	 {"kind":"goto","url":"/login.html"},
	 {"kind":"fill","locator":"label=Email","value":"a@b.c"},
	 {"kind":"fill","locator":"placeholder=Your password","value":"x"},
	 {"kind":"click","locator":"role=button[name=\"Sign in\"]"},
	 {"kind":"wait","for":"url","url":"/dashboard"},
	 {"kind":"assert","assert":"text","locator":"testid=total","condition":"equals","expected":"42.50"},
	 {"kind":"click","locator":"#save"},
	 {"kind":"assertToast","text":"Order saved"}
	]`), gardener.ReplayOptions{})
	b, _ := json.MarshalIndent(rep.Result, "", " ")
	t.Logf("%s", b)
}
