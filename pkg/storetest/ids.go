package storetest

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// idCases prove that a driver's keys cannot collide across projects whatever the ids: the
// doors refuse ids outside the id rule, but the store must not lean on that, since a key that
// two different ids share leaks one project's records into another's listings.
var idCases = []testCase{
	{name: "ids/random pairs never share a record", run: func(t *testing.T, f *fixture) {
		rng := rand.New(rand.NewPCG(31, 2026))
		for i := range idPairs {
			a, b := idPair(rng)
			checkIDPair(t, f, i, a, b)
		}
	}},
}

// idPairs is how many pairs a store is given: each pair is a dozen writes and reads.
const idPairs = 24

// idSeparators are what a driver may join or frame key parts with, or mark records by: the
// embedded store's \x00 (and its escape, \x01), DynamoDB's '#' and its chunk marker, and the
// escapes a driver may use.
var idSeparators = []string{"\x00", "\x01", "\x01\x01", "\x01\x02", "#", "#CHUNK#", "%", "%23", "%25", "/", "~", "\x00\x00", "#GREEN", "#PROPOSALS"}

// idPair is two different ids, valid UTF-8 (DynamoDB's strings are) and at most a few hundred
// bytes: mostly one the other with a separator and more after it, the pairs a joined key
// confuses; else two random strings over an alphabet of separators and letters.
func idPair(rng *rand.Rand) (string, string) {
	word := func() string {
		alphabet := []string{"a", "b", "é", "λ", "\x00", "\x01", "#", "%", "~", " ", "\n", "23", "CHUNK"}
		var sb strings.Builder
		for range 1 + rng.IntN(8) {
			sb.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return sb.String()
	}
	for {
		a := word()
		var b string
		switch rng.IntN(3) {
		case 0:
			b = a + idSeparators[rng.IntN(len(idSeparators))] + word()
		case 1:
			b = a + idSeparators[rng.IntN(len(idSeparators))]
		default:
			b = word()
		}
		if rng.IntN(2) == 0 {
			a, b = b, a
		}
		if a != b && utf8.ValidString(a) && utf8.ValidString(b) {
			return a, b
		}
	}
}

// checkIDPair writes, for project a with test a and project b with test b, a model call, an
// at-risk mark, an app change and an execution's event, and reads each back: every listing of a
// holds a's records only, exactly.
func checkIDPair(t *testing.T, f *fixture, i int, a, b string) {
	t.Helper()
	// Distinct per pair, so that the pairs of one store do not meet either.
	a, b = fmt.Sprintf("%d-%s", i, a), fmt.Sprintf("%d-%s", i, b)
	at := epoch.Add(time.Duration(i) * time.Minute)
	for _, id := range []string{a, b} {
		if err := f.store.AddModelCall(f.ctx, gardener.ModelCall{TestID: id, Ask: "locator", Model: "builtin", Outcome: id, At: at}); err != nil {
			t.Fatalf("pair %q %q: model call of %q: %v", a, b, id, err)
		}
		if err := f.store.MarkAtRisk(f.ctx, id, []string{id}, at); err != nil {
			t.Fatalf("pair %q %q: at risk %q: %v", a, b, id, err)
		}
		if err := f.store.PutAppChange(f.ctx, gardener.AppChange{ID: id, ProjectID: id, URL: "/", Kind: "changed", Detail: id, At: at}); err != nil {
			t.Fatalf("pair %q %q: app change %q: %v", a, b, id, err)
		}
		if _, err := f.store.AppendEvent(f.ctx, id, gardener.LadderEvent{At: at, Stage: gardener.EventStaged, TestID: id, Message: id}); err != nil {
			t.Fatalf("pair %q %q: event of %q: %v", a, b, id, err)
		}
	}
	for _, id := range []string{a, b} {
		calls, err := f.store.ModelCalls(f.ctx, id)
		if err != nil || len(calls) != 1 || calls[0].TestID != id {
			t.Errorf("pair %q %q: model calls of %q: %d calls %+v, %v; want its one", a, b, id, len(calls), calls, err)
		}
		risk, err := f.store.AtRisk(f.ctx, id)
		if err != nil || len(risk) != 1 || risk[0].TestID != id || risk[0].ProjectID != id {
			t.Errorf("pair %q %q: at risk in %q: %+v, %v; want its one test", a, b, id, risk, err)
		}
		changes, err := f.store.AppChanges(f.ctx, id, epoch)
		if err != nil || len(changes) != 1 || changes[0].ID != id {
			t.Errorf("pair %q %q: app changes of %q: %+v, %v; want its one", a, b, id, changes, err)
		}
		events, err := f.store.Events(f.ctx, id, 0, 0)
		if err != nil || len(events) != 1 || events[0].Message != id || events[0].Seq != 1 {
			t.Errorf("pair %q %q: events of %q: %+v, %v; want its one, numbered 1", a, b, id, events, err)
		}
	}
	if err := f.store.ClearAtRisk(f.ctx, a, a); err != nil {
		t.Fatal(err)
	}
	if risk, err := f.store.AtRisk(f.ctx, b); err != nil || len(risk) != 1 {
		t.Errorf("pair %q %q: clearing %q at risk changed %q's: %+v, %v", a, b, a, b, risk, err)
	}
}
