package driftgen

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// Row counts one kind's cases by verdict.
type Row struct {
	Kind   Kind
	Counts map[Verdict]int
}

// Cases is how many of the kind's cases the table counts: those that broke the test and, for
// drift, that the generator's own repair showed repairable.
func (r Row) Cases() int {
	return r.Counts[RepairedIntended] + r.Counts[StagedIntended] + r.Counts[Triaged] + r.Counts[Wrong] + r.Counts[FalseHeal] + r.Counts[Flaky]
}

// Table groups results by kind, in Kinds order, with a total row per class.
func Table(results []CaseResult) []Row {
	by := map[Kind]map[Verdict]int{}
	for _, r := range results {
		if by[r.Mutation.Kind] == nil {
			by[r.Mutation.Kind] = map[Verdict]int{}
		}
		by[r.Mutation.Kind][r.Verdict]++
	}
	var rows []Row
	for _, class := range []Class{Drift, Regression} {
		total := Row{Kind: Kind("all " + string(class)), Counts: map[Verdict]int{}}
		for _, k := range Kinds() {
			if ClassOf(k) != class || by[k] == nil {
				continue
			}
			rows = append(rows, Row{Kind: k, Counts: by[k]})
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

// Print writes the table: per kind, the cases counted and what became of them, then the cases
// left out and why.
func Print(w io.Writer, rows []Row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kind\tcases\trepaired (intended)\tstaged (intended)\ttriaged\twrong\tfalse heals\tflaky\t\tstill green\tnot applied\tunrepairable\t")
	for _, r := range rows {
		c := r.Counts
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\t%d\t%d\t%d\t\n", r.Kind, r.Cases(), c[RepairedIntended], c[StagedIntended], c[Triaged], c[Wrong], c[FalseHeal], c[Flaky], c[StillGreen], c[NotApplied], c[Unrepairable])
	}
	tw.Flush()
}
