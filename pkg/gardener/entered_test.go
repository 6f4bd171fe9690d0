package gardener_test

import (
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// TestStillEnters: a pick is judged by the option's value the form sends, never by its label;
// a value typed that is now picked as the option bearing it moved to another control.
func TestStillEnters(t *testing.T) {
	sel := &gardener.Fingerprint{Tag: "SELECT", ID: "dept"}
	pick := func(v ...string) gardener.StepRecord {
		return gardener.StepRecord{Kind: gardener.Select, Element: sel, Values: v}
	}
	setPick := func(v ...string) gardener.StepRecord {
		return gardener.StepRecord{Kind: gardener.Set, Element: sel, Values: v}
	}
	fill := func(v string) gardener.StepRecord {
		return gardener.StepRecord{Kind: gardener.Fill, Element: &gardener.Fingerprint{Tag: "INPUT"}, Values: []string{v}}
	}
	for _, c := range []struct {
		name     string
		was, now gardener.StepRecord
		want     bool
	}{
		{"the same option relabelled", pick("cardiology", "Cardiology"), pick("cardiology", "Heart (Cardiology)"), true},
		{"a set that picks it", pick("cardiology", "Cardiology"), setPick("cardiology", "Heart (Cardiology)"), true},
		{"another option", pick("cardiology", "Cardiology"), pick("dermatology", "Dermatology"), false},
		{"another option bearing the old value as its label", pick("a"), pick("b", "a"), false},
		{"a text field that became a dropdown", fill("Cardiology"), pick("cardiology", "Cardiology"), true},
		{"a dropdown that became a text field of its value", pick("cardiology", "Cardiology"), fill("cardiology"), true},
		{"a dropdown that became a text field of its label", pick("cardiology", "Cardiology"), fill("Cardiology"), false},
		{"another value typed", fill("Ada"), fill("Grace"), false},
	} {
		entered := c.was.Entered()
		if len(entered) != 1 {
			t.Fatalf("%s: the recorded step entered %d values, want 1 (the option's value alone)", c.name, len(entered))
		}
		if got := gardener.StillEnters(entered[0], c.was, c.now); got != c.want {
			t.Errorf("%s: still enters %v, want %v", c.name, got, c.want)
		}
	}
}
