package driftgen

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// Row counts one kind's cases by verdict, with how many of the kind were generated.
type Row struct {
	Kind      Kind
	Generated int
	Counts    map[Verdict]int
	// AppBugs counts the cases whose diagnosis said app bug.
	AppBugs int
	// Holds counts the staged cases by the rule that held them ("" when none was named).
	Holds map[gardener.HoldRule]int
	// SecondLoads counts the repairs replayed on a second load with other live data, and
	// Survived those green there with the intended elements.
	SecondLoads, Survived int
}

// Drawn is how many of the kind's cases were run.
func (r Row) Drawn() int {
	n := 0
	for _, c := range r.Counts {
		n += c
	}
	return n
}

// Cases is how many of the kind's cases the table counts: those that broke the test and, for
// drift, that the generator's own repair showed repairable.
func (r Row) Cases() int {
	return r.Counts[RepairedIntended] + r.Counts[StagedIntended] + r.Counts[Triaged] + r.Counts[CannotTell] + r.Counts[Refused] + r.Counts[Wrong] + r.Counts[FalseHeal] + r.Counts[Flaky] + r.Counts[Fragile]
}

// Table groups results by kind, in Kinds order, with a total row per class; generated are all
// the cases the draw was made from.
func Table(results []CaseResult, generated []Mutation) []Row {
	gen := map[Kind]int{}
	for _, m := range generated {
		gen[m.Kind]++
	}
	by := map[Kind]map[Verdict]int{}
	bugs := map[Kind]int{}
	holds := map[Kind]map[gardener.HoldRule]int{}
	second := map[Kind][2]int{}
	for _, r := range results {
		k := r.Mutation.Kind
		if by[k] == nil {
			by[k] = map[Verdict]int{}
		}
		by[k][r.Verdict]++
		if r.AppBug {
			bugs[k]++
		}
		if r.Verdict == StagedIntended || r.Hold != "" {
			if holds[k] == nil {
				holds[k] = map[gardener.HoldRule]int{}
			}
			holds[k][r.Hold]++
		}
		if r.SecondLoad {
			n := second[k]
			n[0]++
			if r.Survived {
				n[1]++
			}
			second[k] = n
		}
	}
	var rows []Row
	for _, class := range []Class{Drift, Regression} {
		total := Row{Kind: Kind("all " + string(class)), Counts: map[Verdict]int{}, Holds: map[gardener.HoldRule]int{}}
		for _, k := range Kinds() {
			if ClassOf(k) != class || (by[k] == nil && gen[k] == 0) {
				continue
			}
			row := Row{Kind: k, Generated: gen[k], Counts: by[k], AppBugs: bugs[k], Holds: holds[k], SecondLoads: second[k][0], Survived: second[k][1]}
			if row.Counts == nil {
				row.Counts = map[Verdict]int{}
			}
			rows = append(rows, row)
			total.Generated += gen[k]
			total.AppBugs += bugs[k]
			total.SecondLoads += second[k][0]
			total.Survived += second[k][1]
			for h, n := range holds[k] {
				total.Holds[h] += n
			}
			for v, n := range by[k] {
				total.Counts[v] += n
			}
		}
		rows = append(rows, total)
	}
	return rows
}

// FalseHeals counts regressions written green across results.
func FalseHeals(results []CaseResult) int {
	n := 0
	for _, r := range results {
		if r.Verdict == FalseHeal {
			n++
		}
	}
	return n
}

// Print writes the table in two parts. Drift, per kind: the cases counted (they broke the test
// and the generator's own repair of them is green) and what became of them, then the cases
// left out and why. Regressions, per kind: the cases counted (they broke the test) and whether
// the ladder wrote nothing (triaged, cannot tell for want of a green run, or every change
// refused by the assertion floor) or wrote a repair (a false heal). In both, "app bug" counts
// the counted cases whose diagnosis said app bug, whatever the outcome made of it.
func Print(w io.Writer, rows []Row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "drift kind\tgenerated\tdrawn\tcounted\trepaired (intended)\tstaged (intended)\ttriaged\tcannot tell\twrong\tfragile\tflaky\tapp bug\tsurvives a second load\t\tstill green\tnot applicable\tunrepairable by reference fix\t")
	for _, r := range rows {
		if ClassOf(r.Kind) != Drift || r.Kind == Kind("all "+string(Regression)) {
			continue
		}
		c := r.Counts
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d/%d\t\t%d\t%d\t%d\t\n", r.Kind, r.Generated, r.Drawn(), r.Cases(), c[RepairedIntended], c[StagedIntended], c[Triaged]+c[Refused], c[CannotTell], c[Wrong], c[Fragile], c[Flaky], r.AppBugs, r.Survived, r.SecondLoads, c[StillGreen], c[NotApplied], c[Unrepairable])
	}
	fmt.Fprintln(tw, "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t")
	fmt.Fprintln(tw, "regression kind\tgenerated\tdrawn\tcounted\ttriaged\tcannot tell\trefused\tfalse heals\tapp bug\t\tstill green\tnot applicable\t\t\t\t\t\t")
	for _, r := range rows {
		if ClassOf(r.Kind) != Regression && r.Kind != Kind("all "+string(Regression)) {
			continue
		}
		c := r.Counts
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\t%d\t%d\t\t\t\t\t\t\n", r.Kind, r.Generated, r.Drawn(), r.Cases(), c[Triaged], c[CannotTell], c[Refused], c[FalseHeal], r.AppBugs, c[StillGreen], c[NotApplied])
	}
	tw.Flush()
	fmt.Fprintln(w, "\nwhy staged drift was held (per kind, the rule of DESIGN invariants 9, 10 and 13 its row names; fragile staged cases included):")
	for _, r := range rows {
		if ClassOf(r.Kind) != Drift || r.Kind == Kind("all "+string(Regression)) || len(r.Holds) == 0 {
			continue
		}
		var parts []string
		for h, n := range r.Holds {
			name := string(h)
			if name == "" {
				name = "NO RULE NAMED"
			}
			parts = append(parts, fmt.Sprintf("%s ×%d", name, n))
		}
		slices.Sort(parts)
		fmt.Fprintf(w, "  %s: %s\n", r.Kind, strings.Join(parts, ", "))
	}
}

// Applied is how many of the counted drift were repaired in apply mode with the intended
// elements and green on a second load, and how many were counted: the headline share's parts.
func Applied(rows []Row) (applied, counted int) {
	for _, r := range rows {
		if r.Kind == Kind("all "+string(Drift)) {
			return r.Counts[RepairedIntended], r.Cases()
		}
	}
	return 0, 0
}
