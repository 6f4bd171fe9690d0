package browser

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// deptPage is a booking form whose department select offers the options given as value, label.
func deptPage(opts ...[2]string) string {
	s := `<!doctype html><html><body><form><label for="dept">Department</label><select id="dept" name="dept">`
	for _, o := range opts {
		s += fmt.Sprintf(`<option value=%q>%s</option>`, o[0], o[1])
	}
	return s + `</select></form></body></html>`
}

// TestPickRecordsTheOptionsValue: a select step records the option it picked by the value the
// form sends, then its label where that differs, whether the step named it by its label or by
// its value. Judged by gardener.StillEnters, the same option picked by its value under a new
// label is what the recorded step picked, and another option is not.
func TestPickRecordsTheOptionsValue(t *testing.T) {
	t.Parallel()
	r := needBrowser(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/was", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, deptPage([2]string{"cardiology", "Cardiology"}, [2]string{"dermatology", "Dermatology"}))
	})
	mux.HandleFunc("/now", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, deptPage([2]string{"cardiology", "Heart (Cardiology)"}, [2]string{"dermatology", "Skin (Dermatology)"}))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	pick := func(page, value string) gardener.StepRecord {
		t.Helper()
		st := steps(t, fmt.Sprintf(`[{"kind":"goto","url":%q},{"kind":"select","locator":"#dept","value":%q,"timeoutMs":3000}]`, page, value))
		res := replayOK(t, r, srv.URL, st, gardener.ReplayOptions{}).Result
		if !res.Passed {
			t.Fatalf("picking on %s failed at step %s: %s", page, res.FailedStep, res.Message)
		}
		return res.Steps[1]
	}
	was := pick("/was", "Cardiology")
	if fmt.Sprint(was.Values) != "[cardiology Cardiology]" || !was.Picked() {
		t.Fatalf("the pick by label recorded %q (picked %v), want the option's value, then its label", was.Values, was.Picked())
	}
	same, other := pick("/now", "cardiology"), pick("/now", "dermatology")
	if fmt.Sprint(same.Values) != "[cardiology Heart (Cardiology)]" {
		t.Errorf("the pick by value recorded %q", same.Values)
	}
	v := was.Entered()[0]
	if !gardener.StillEnters(v, was, same) {
		t.Errorf("the same option under a new label is taken for another choice")
	}
	if gardener.StillEnters(v, was, other) {
		t.Errorf("another option is taken for the recorded choice")
	}
}
