package asl_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/driftgardener/gardener/pkg/local/asl"
)

// FuzzParseAndRun feeds arbitrary definitions and inputs: bad input must come back as an
// error or a failed execution, never a panic; a looping definition ends at the history limit.
func FuzzParseAndRun(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.asl.json")
	for _, file := range files {
		def, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(def, []byte(`{"a":1,"items":[1,2],"tests":[{"id":"x"}],"project":"p"}`))
	}
	f.Add([]byte(`{"StartAt":"P","States":{"P":{"Type":"Pass","Parameters":{"x.$":"States.ArrayPartition($.a, 2)"},"End":true}}}`), []byte(`{"a":[1,2,3]}`))
	echo := asl.Invoker(func(_ context.Context, in json.RawMessage) (json.RawMessage, error) { return in, nil })
	f.Fuzz(func(t *testing.T, def, input []byte) {
		m, err := asl.Parse(def, asl.Config{
			Resolve: func(string) (asl.Invoker, error) { return echo, nil },
			Sleep:   (&recorder{}).sleep,
		})
		if err != nil {
			return
		}
		if _, err := m.Run(context.Background(), "fuzz", input); err != nil && json.Valid(input) && len(input) > 0 {
			t.Errorf("valid input %s refused: %v", input, err)
		}
	})
}

func TestLoopEndsAtHistoryLimit(t *testing.T) {
	ex := run(t, `{"StartAt":"A","States":{"A":{"Type":"Pass","Next":"B"},"B":{"Type":"Pass","Next":"A"}}}`, `{}`, asl.Config{})
	if ex.Status != asl.StatusFailed || ex.Failure.Name != asl.ErrRuntime || len(ex.History) < asl.MaxHistory {
		t.Errorf("status %s failure %+v after %d events", ex.Status, ex.Failure, len(ex.History))
	}
}
