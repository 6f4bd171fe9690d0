package driftgen

import (
	"net/http"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/tests/spaapp"
	"github.com/driftgardener/gardener/tests/testkit"
)

// crewdeskEnv points the generator at Crewdesk, the single-page app whose components render into
// open shadow roots and whose payment form is in a same-origin iframe: a fresh app per case.
func crewdeskEnv() *Env {
	return appEnv(func() http.Handler { return spaapp.New().Handler() }, spaapp.Project)
}

func crewdeskTest(t testing.TB, id string) gardener.Test {
	t.Helper()
	return testkit.SavedTest(t, spaapp.Tests, "Crewdesk", id)
}

// TestCrewdeskSampleOfGeneratedCases runs a small fixed sample on Crewdesk end to end: a class
// renamed on the member form's save button, inside the member-form component's shadow root, is
// repaired onto the same button, and the card number field's id renamed inside the payment
// iframe is repaired onto the same field; the save button's classes given a hash that changes
// with every build (CSS modules) are repaired by a locator that still finds the button when the
// next build serves other hashes (the second load). The ground truth of both comes from the runtime
// marking and mutating elements inside the shadow root and the frame. (The shop's sample has
// the regressions: a triage costs the whole ladder, too slow for two apps in make test.)
func TestCrewdeskSampleOfGeneratedCases(t *testing.T) {
	t.Parallel()
	want := map[string]Verdict{
		"rename-class/member-edit@6": RepairedIntended,
		"rename-id/billing-pay@3":    RepairedIntended,
		"class-hash/member-edit@6":   RepairedIntended,
	}
	runSample(t, crewdeskEnv(), want, []string{"member-edit", "billing-pay"}, crewdeskTest, func(t *testing.T, b *Baseline) {
		if b.Test.ID == "member-edit" && !shadowTarget(b.Targets) {
			t.Errorf("no target of %s is inside a shadow root: %+v", b.Test.ID, b.Targets)
		}
		if b.Test.ID == "billing-pay" && !frameTarget(b.Targets) {
			t.Errorf("no target of %s is inside the payment frame: %+v", b.Test.ID, b.Targets)
		}
	}, func(t *testing.T, m Mutation, res CaseResult) {
		if !res.SecondLoad || !res.Survived {
			t.Errorf("%s: the repair was not shown green on a second load with another build's class hashes (replayed %v): %s", m.Name(), res.SecondLoad, res.Note)
		}
	})
}

// TestCrewdeskDriftTable is the generated drift table on Crewdesk, as TestGeneratedDriftTable
// is on the shop. Only with -driftgen.table (make bench runs it):
//
//	go test -count=1 -timeout 90m -run '^TestCrewdeskDriftTable$' -v ./tests/driftgen/ -args -driftgen.table -driftgen.per-kind 20
func TestCrewdeskDriftTable(t *testing.T) {
	if !*tableFlag {
		t.Skip("the generated drift table runs only with -driftgen.table (make bench)")
	}
	tests, err := spaapp.Tests()
	if err != nil {
		t.Fatal(err)
	}
	runTable(t, crewdeskEnv(), tests, "Crewdesk")
}

func shadowTarget(ts []Target) bool {
	for _, t := range ts {
		if strings.Contains(t.XPath, "/#shadow-root/") {
			return true
		}
	}
	return false
}

func frameTarget(ts []Target) bool {
	for _, t := range ts {
		if t.Frame {
			return true
		}
	}
	return false
}

// TestOneCrewdeskCase runs the case -driftgen.case names on Crewdesk with the ladder's events in
// the log.
//
//	go test -count=1 -run '^TestOneCrewdeskCase$' -v ./tests/driftgen/ -args -driftgen.case 'move-menu/member-delete@2'
func TestOneCrewdeskCase(t *testing.T) {
	if *caseFlag == "" {
		t.Skip("no -driftgen.case given")
	}
	runOne(t, crewdeskEnv(), crewdeskTest)
}
