package handler_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/driftgardener/gardener/pkg/handler"
)

// echo answers with what it was given, so an answer names the invocation it is of.
func echo(_ context.Context, in map[string]string) (map[string]string, error) { return in, nil }

// TestJSONHandlerAnswersAreTheirOwn: an invocation's answer stays what it answered after other
// invocations of the same handler, one after another (aws-lambda-go's handler hands its buffer
// back before returning its bytes, so the next invocation wrote over the last's answer) and at
// once (as the local stack's Map invokes a function).
func TestJSONHandlerAnswersAreTheirOwn(t *testing.T) {
	ctx := context.Background()
	h := handler.JSONHandler(echo)
	first, err := h.Invoke(ctx, []byte(`{"item":"first"}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Invoke(ctx, []byte(`{"item":"other"}`)); err != nil {
		t.Fatal(err)
	}
	if got := string(first); got != `{"item":"first"}` {
		t.Fatalf("the first answer reads %q after a second invocation", got)
	}

	const n = 64
	answers := make([][]byte, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			out, err := h.Invoke(ctx, fmt.Appendf(nil, `{"item":"%03d"}`, i))
			if err != nil {
				t.Error(err)
			}
			answers[i] = out
		})
	}
	wg.Wait()
	for i, out := range answers {
		if want := fmt.Sprintf(`{"item":"%03d"}`, i); string(out) != want {
			t.Errorf("invocation %d answered %q, want %q", i, out, want)
		}
	}
}
