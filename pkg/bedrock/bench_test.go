package bedrock

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// bigFailure is a failure on a realistic page: 300 candidate elements and 30,000 characters of
// visible text, more than the default limits send.
func bigFailure(b *testing.B) gardener.Failure {
	f := failure(b, strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing. ", 600))
	f.Snapshot = nil
	for i := range 300 {
		f.Snapshot = append(f.Snapshot, gardener.Fingerprint{
			Tag: "a", ID: fmt.Sprintf("item-%d", i), ClassList: []string{"nav", "item"}, Href: fmt.Sprintf("/items/%d", i),
			XPath: fmt.Sprintf("/html/body/nav/ul/li[%d]/a", i+1), Role: "link", AccessibleName: fmt.Sprintf("Item %d", i),
			VisibleText: []string{fmt.Sprintf("Item %d", i)}, NeighborText: []string{"Catalogue"},
			Location: gardener.Rect{X: 10, Y: float64(20 * i), Width: 120, Height: 18},
		})
	}
	return f
}

// BenchmarkUserMessage measures building the user message of an operations ask, and reports
// its size, the bulk of the input tokens.
func BenchmarkUserMessage(b *testing.B) {
	m, err := New(testClient("http://127.0.0.1:1"), testModelID)
	if err != nil {
		b.Fatal(err)
	}
	f := bigFailure(b)
	path, fail := failingStep(f)
	var size int
	for b.Loop() {
		msg, err := userMessage("The test failed at step "+path+".", section{tagTest, f.Test}, section{tagFailure, fail},
			section{tagLastGreen, lastGreenOf(f.LastGreen, everyStep)}, section{tagPage, m.pageOf(f)})
		if err != nil {
			b.Fatal(err)
		}
		size = len(msg)
	}
	b.ReportMetric(float64(size), "message-bytes")
	b.ReportMetric(float64(len(systemPrompt(askOperations))), "system-bytes")
}

// BenchmarkSuggestOps measures one whole ask against the local Converse server: the prompt,
// SigV4 signing, HTTP, decoding and the strict validation of the answer.
func BenchmarkSuggestOps(b *testing.B) {
	fake := newFake(&testing.T{}, "operations_good")
	b.Cleanup(fake.srv.Close)
	m, err := New(fake.client(), testModelID)
	if err != nil {
		b.Fatal(err)
	}
	ask := gardener.OpsAsk{Failure: bigFailure(b)}
	for b.Loop() {
		if _, err := m.SuggestOps(context.Background(), ask); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSchemas measures building the four tool schemas, done once per Model.
func BenchmarkSchemas(b *testing.B) {
	for b.Loop() {
		if _, err := buildTools(); err != nil {
			b.Fatal(err)
		}
	}
}
