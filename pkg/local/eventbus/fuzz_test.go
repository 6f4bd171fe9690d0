package eventbus_test

import (
	"testing"

	"github.com/driftgardener/gardener/pkg/local/eventbus"
)

// FuzzPattern: any pattern either compiles or says why, and matching never panics.
func FuzzPattern(f *testing.F) {
	f.Add([]byte(`{"detail":{"trigger":[{"wildcard":"s*e"}],"$or":[{"a":[1]},{"b":[{"numeric":[">",0,"<",5]}]}]}}`), []byte(runFailed))
	f.Add([]byte(`{"detail":{"x":[{"anything-but":{"prefix":"a"}}],"ip":[{"cidr":"10.0.0.0/8"}]}}`), []byte(`{"detail":{"x":["b"],"ip":"10.1.1.1"}}`))
	f.Fuzz(func(t *testing.T, pattern, event []byte) {
		p, err := eventbus.CompilePattern(pattern)
		if err != nil {
			return
		}
		p.Matches(event)
	})
}
