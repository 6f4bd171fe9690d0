package mcpserver

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// TestStdinEndsAfterTheLastAnswer: a client that writes its requests and closes its input gets
// every answer — end of input reaches the server only once each request read is answered, and a
// notification or an answer to the server's own request holds nothing up.
func TestStdinEndsAfterTheLastAnswer(t *testing.T) {
	calls := newStdioCalls()
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":"x","result":{}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_test"}}` + "\n"
	var out strings.Builder
	r := calls.reader(context.Background(), strings.NewReader(in), &out)
	defer r.Close()
	w := calls.writer(&out)
	br := bufio.NewReader(r)
	for range 4 {
		if _, err := br.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
	}
	ended := make(chan error, 1)
	go func() { _, err := br.ReadString('\n'); ended <- err }()
	write := func(s string) {
		if _, err := w.Write([]byte(s + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	write(`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`)
	select {
	case err := <-ended:
		t.Fatalf("the input ended (%v) with request 2 unanswered", err)
	case <-time.After(100 * time.Millisecond):
	}
	write(`{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`)
	select {
	case err := <-ended:
		if err != io.EOF {
			t.Fatalf("the input ended with %v, want EOF", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the input did not end once every request was answered")
	}
	if !strings.Contains(out.String(), `"id":2`) {
		t.Errorf("the answers were not passed on: %s", out.String())
	}

	// A session ended by its context does not wait for answers that will never come.
	ctx, cancel := context.WithCancel(context.Background())
	calls = newStdioCalls()
	r = calls.reader(ctx, strings.NewReader(`{"jsonrpc":"2.0","id":3,"method":"tools/call"}`+"\n"), io.Discard)
	defer r.Close()
	br = bufio.NewReader(r)
	if _, err := br.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	go func() { _, err := br.ReadString('\n'); ended <- err }()
	cancel()
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("a cancelled session still waits for its unanswered request")
	}
}
