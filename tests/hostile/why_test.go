package hostile

import (
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/ladder"
)

// TestRedAtNoCheckProvesNothing: a climb whose proof went red at a navigation or an action that
// did not finish in time (a replay on a loaded machine) is no rule stopping the case; red at a
// check, the regression seen, is, and so is an action of the attack that finds no element. The
// step is looked up in the candidate, after the attack's ops.
func TestRedAtNoCheckProvesNothing(t *testing.T) {
	base := loginLands()
	gotoDash := gardener.Step{Kind: gardener.Goto, URL: "/login?next=/dashboard"}
	insert := []gardener.Op{{Kind: gardener.OpInsert, Index: 4, Step: &gotoDash}}
	red := func(ops []gardener.Op, step, msg string) ladder.Result {
		return ladder.Result{Outcome: ladder.Triaged, Rungs: []ladder.RungReport{{Rung: gardener.StrategySuggestFix,
			Attempts: []gardener.Attempt{{Rung: gardener.StrategySuggestFix, Ops: ops, Outcome: "red at step " + step + ": " + msg}}}}}
	}
	cases := []struct {
		name string
		res  ladder.Result
		weak string // a word the reason must hold; "" for a rule
		rule string
	}{
		{"the wait for the dashboard failed: the regression seen", red(nil, "5", "url is /login, not /dashboard"), "", "red proof at wait url"},
		{"the goto timed out", red(nil, "1", "navigation to /login did not finish in time"), "goto", ""},
		{"the inserted goto timed out", red(insert, "5", "/login?next=/dashboard did not finish loading in time"), "goto", ""},
		{"a click that did not finish", red(nil, "4", `step 4 (click role=button[name="Login"]): sending the mouse event did not finish in time`), "click", ""},
		{"the attack's click finds nothing", red(insert, "4", "no element matches css=#login-btn after 1.5s"), "", "red proof at click"},
		{"the wait after the inserted goto failed", red(insert, "6", "url is /login"), "", "red proof at wait url"},
		{"a step the candidate does not have", red(nil, "9", "?"), "does not have", ""},
		{"refused by the floor", ladder.Result{Outcome: ladder.Refused}, "", "floor"},
	}
	for _, c := range cases {
		weak := weakRed(base, c.res)
		if (c.weak == "") != (weak == "") || !strings.Contains(weak, c.weak) {
			t.Errorf("%s: weak red %q, want one saying %q", c.name, weak, c.weak)
		}
		if c.rule != "" {
			if got := rule(base, c.res); got != c.rule {
				t.Errorf("%s: rule %q, want %q", c.name, got, c.rule)
			}
		}
	}
}
