package eventbus_test

import (
	"testing"

	"github.com/driftgardener/gardener/pkg/local/eventbus"
)

// FuzzPattern: any pattern either compiles or says why, and matching never panics.
func FuzzPattern(f *testing.F) {
	f.Add([]byte(`{"source":["driftgardener.platform"],"detail":{"trigger":["schedule","worker"],"control":[false,{"exists":false}],"probe":[false,{"exists":false}]}}`), []byte(runFailed))
	f.Add([]byte(`{"detail":{"steps":{"kind":["assert"],"ok":[false]},"durationMs":[1234.0],"note":[null],"absent":{"x":[{"exists":false}]}}}`), []byte(`{"detail":{"steps":[{"kind":"assert","ok":false}],"durationMs":1234,"note":null}}`))
	f.Add([]byte(`{"detail":{"x":[{"anything-but":"a"}]}}`), []byte(`{"detail":{"x":"b"}}`))
	f.Fuzz(func(t *testing.T, pattern, event []byte) {
		p, err := eventbus.CompilePattern(pattern)
		if err != nil {
			return
		}
		p.Matches(event)
	})
}
