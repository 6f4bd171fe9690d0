package console

import (
	"fmt"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// TestFlashShowsOnlyIDs: the notice after an approval names tests by the ids in its address,
// which anyone can write; words that are no id, and more ids than one approval can carry a heal
// to, are not shown.
func TestFlashShowsOnlyIDs(t *testing.T) {
	q := url.Values{"done": {"propagated"}, "written": {"checkout", "Your account is locked, call 555", "<b>x</b>"}, "left": {"cart-total"}}
	for i := 0; i < 2*gardener.MaxPropagated; i++ {
		q.Add("staged", fmt.Sprintf("t%d", i))
	}
	got := flash(httptest.NewRequest("GET", "/console/tests/x?"+q.Encode(), nil))
	for _, want := range []string{"Carried to and written: checkout.", "Left as they are: cart-total.", fmt.Sprintf("t%d.", gardener.MaxPropagated-1)} {
		if !strings.Contains(got, want) {
			t.Errorf("notice %q lacks %q", got, want)
		}
	}
	for _, bad := range []string{"locked", "<b>", fmt.Sprintf("t%d", gardener.MaxPropagated)} {
		if strings.Contains(got, bad) {
			t.Errorf("notice %q shows %q", got, bad)
		}
	}
}
