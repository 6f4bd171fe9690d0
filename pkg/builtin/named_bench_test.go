package builtin

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
	"github.com/driftgardener/gardener/pkg/similo"
)

// benchLine is one website of the locate engine's development benchmark (see pkg/similo).
type benchLine struct {
	App        string                 `json:"app"`
	Targets    []gardener.Fingerprint `json:"targets"`
	Candidates []gardener.Fingerprint `json:"candidates"`
	Expected   []int                  `json:"expected"`
}

func loadBench(t *testing.T, name string) []benchLine {
	t.Helper()
	dir := os.Getenv("SIMILO_BENCH_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "bench")
	}
	f, err := os.Open(filepath.Join(dir, name))
	if os.IsNotExist(err) {
		t.Skipf("benchmark data %s not found; set SIMILO_BENCH_DIR to the directory holding it", filepath.Join(dir, name))
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []benchLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var l benchLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// wordsTally counts what one way of finding an element from its locator alone did.
type wordsTally struct{ cases, right, wrong, ambiguous, none, picked, removed int }

func (w wordsTally) String() string {
	pct := func(n, of int) float64 {
		if of == 0 {
			return 0
		}
		return 100 * float64(n) / float64(of)
	}
	return fmt.Sprintf("element there: %3d cases, right %5.1f%%, wrong %4.1f%%, two or more %5.1f%%, none %5.1f%% | element gone: %3d cases, picked %4.1f%%",
		w.cases, pct(w.right, w.cases), pct(w.wrong, w.cases), pct(w.ambiguous, w.cases), pct(w.none, w.cases), w.removed, pct(w.picked, w.removed))
}

// TestLocatorWordsBench measures finding an element from its locator alone — what a repair
// with no green run has — on the locate engine's development benchmark: 18 real websites
// captured years apart. Each target an action could use is written as a test would write
// it (css=#id when its id is not generated, text=… for a control with words), and counted
// only where that locator no longer finds the element's id or text on the new page (the
// cases a repair is asked about). The locator's words (namedBy) are compared with the
// locate engine given the target the locator describes (targetOf with no recording); on
// the copy of the pages with the element removed any choice is a false repair. The benchmark
// records no labels, roles or accessible names, so the words meet only ids, names, alt texts
// and visible text here: a lower bound on what they find on a live page. Run by make bench
// (and by make test when the data is beside the repository: under a second).
func TestLocatorWordsBench(t *testing.T) {
	dev, removed := loadBench(t, "similo-dev.jsonl"), loadBench(t, "similo-dev-removed.jsonl")
	forms := []string{"css=#id", "text="}
	rule, engine := map[string]*wordsTally{}, map[string]*wordsTally{}
	for _, f := range forms {
		rule[f], engine[f] = &wordsTally{}, &wordsTally{}
	}
	for _, set := range []struct {
		lines []benchLine
		gone  bool
	}{{dev, false}, {removed, true}} {
		for _, l := range set.lines {
			page := similo.NewPage(l.Candidates)
			for i, tg := range l.Targets {
				kind := benchKind(tg)
				if kind == "" {
					continue
				}
				for _, form := range forms {
					loc, ok := benchLocator(form, tg, l.Candidates)
					if !ok {
						continue
					}
					s := gardener.Step{Kind: kind, Locator: loc}
					target, _ := targetOf(s, nil)
					m := (similo.Engine{}).LocateOn(page, target)
					n := namedBy(l.Candidates, s)
					for _, c := range []struct {
						w      *wordsTally
						chosen int
						many   bool
					}{{rule[form], n.unique(), len(n.matches) > 1}, {engine[form], m.Index, false}} {
						switch {
						case set.gone:
							c.w.removed++
							if c.chosen >= 0 {
								c.w.picked++
							}
						case c.chosen >= 0:
							c.w.cases++
							if c.chosen == l.Expected[i] {
								c.w.right++
							} else {
								c.w.wrong++
							}
						case c.many:
							c.w.cases++
							c.w.ambiguous++
						default:
							c.w.cases++
							c.w.none++
						}
					}
				}
			}
		}
	}
	for _, f := range forms {
		t.Logf("%-8s the locator's words: %v", f, *rule[f])
		t.Logf("%-8s locate engine:       %v", f, *engine[f])
		// Where the element is still there, a choice of another element is a wrong repair the
		// green gate may not catch: the rule must make none.
		if rule[f].wrong > 0 {
			t.Errorf("%s: the locator's words chose the wrong element in %d of %d cases", f, rule[f].wrong, rule[f].cases)
		}
	}
}

// benchKind is the step an element of the benchmark takes: a fill for a text field, a click
// for a control; "" for anything else.
func benchKind(fp gardener.Fingerprint) gardener.StepKind {
	switch tag := strings.ToUpper(fp.Tag); {
	case (tag == "INPUT" || tag == "TEXTAREA") && !fp.IsButton:
		return gardener.Fill
	case fp.IsButton || tag == "A" || tag == "BUTTON":
		return gardener.Click
	}
	return ""
}

// benchLocator writes target tg as a test of the given form would, when it can and when that
// locator no longer finds the element on the new page (no candidate keeps the id, or the
// whole text).
func benchLocator(form string, tg gardener.Fingerprint, cands []gardener.Fingerprint) (gardener.Locator, bool) {
	switch form {
	case "css=#id":
		if tg.ID == "" || similo.Generated(tg.ID) || strings.ContainsAny(tg.ID, " \"'") {
			return gardener.Locator{}, false
		}
		for _, c := range cands {
			if c.ID == tg.ID {
				return gardener.Locator{}, false
			}
		}
		return gardener.Locator{Kind: gardener.ByCSS, Value: "#" + tg.ID}, true
	case "text=":
		text := strings.Join(tg.VisibleText, " ")
		if benchKind(tg) != gardener.Click || !hasWords(text) {
			return gardener.Locator{}, false
		}
		for _, c := range cands {
			if strings.EqualFold(strings.Join(c.VisibleText, " "), text) {
				return gardener.Locator{}, false
			}
		}
		return gardener.Locator{Kind: gardener.ByText, Value: text}, true
	}
	return gardener.Locator{}, false
}
