package main

import "testing"

// TestPullSaysHowManyFilesItCommitted: pull --branch says how many test files it committed in
// the words docs/first-hour.md shows ("committed 1 test file on branch gardener/repairs"), the
// number once, and that a pull with nothing new committed nothing.
func TestPullSaysHowManyFilesItCommitted(t *testing.T) {
	for _, c := range []struct {
		commits []string
		want    string
	}{
		{[]string{"f1fcaf7e7ee8", ""}, "committed 1 test file on branch gardener/repairs"},
		{[]string{"f1fcaf7e7ee8", "97153cc12c06"}, "committed 2 test files on branch gardener/repairs"},
		{[]string{""}, "nothing to commit: no test file changed, so branch gardener/repairs has no new commit"},
	} {
		rep := syncReport{Branch: "gardener/repairs"}
		for _, commit := range c.commits {
			rep.Tests = append(rep.Tests, synced{Commit: commit})
		}
		if got := committedLine(rep); got != c.want {
			t.Errorf("%d commits: %q, want %q", len(c.commits), got, c.want)
		}
	}
}
