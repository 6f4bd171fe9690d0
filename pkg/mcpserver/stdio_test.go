package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
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

// TestStdinEndsAfterABatchAnswered: in a session of a version that still has batches
// (2025-03-26), a batch's requests are answered in one array; end of input then ends the
// session rather than waiting for those requests forever.
func TestStdinEndsAfterABatchAnswered(t *testing.T) {
	calls := newStdioCalls()
	w := calls.writer(io.Discard)
	if _, err := w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26"}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	in := `[{"jsonrpc":"2.0","id":8,"method":"ping"},{"jsonrpc":"2.0","id":"nine","method":"ping"}]` + "\n"
	r := calls.reader(context.Background(), strings.NewReader(in), io.Discard)
	defer r.Close()
	br := bufio.NewReader(r)
	if line, err := br.ReadString('\n'); err != nil || !strings.HasPrefix(line, "[") {
		t.Fatalf("the batch was not passed on: %q %v", line, err)
	}
	ended := make(chan error, 1)
	go func() { _, err := br.ReadString('\n'); ended <- err }()
	if _, err := w.Write([]byte(`[{"jsonrpc":"2.0","id":8,"result":{}},{"jsonrpc":"2.0","id":"nine","result":{}}]` + "\n")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-ended:
		if err != io.EOF {
			t.Fatalf("the input ended with %v, want EOF", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the input did not end once the batch was answered")
	}
}

// TestBatchAnswersAsJSONRPCSays: from protocol version 2025-06-18 MCP has no batches, and a
// batch is one -32600 with id null; before it, an empty batch is one -32600 with id null and an
// invalid one is refused whole with an array answering each request in it (JSON-RPC 2.0's
// answer to [1,2,3] is three errors).
func TestBatchAnswersAsJSONRPCSays(t *testing.T) {
	type answer struct {
		ID    json.RawMessage    `json:"id"`
		Error struct{ Code int } `json:"error"`
	}
	vet := func(version, line string) (ids []string, reply []byte) {
		c := newStdioCalls()
		c.version = version
		return c.vet([]byte(line))
	}
	one := func(version, line string) {
		t.Helper()
		_, reply := vet(version, line)
		var a answer
		if err := json.Unmarshal(reply, &a); err != nil || string(a.ID) != "null" || a.Error.Code != -32600 {
			t.Errorf("%s in a %s session: %s; want one -32600 with id null", line, version, reply)
		}
	}
	one("2025-06-18", `[{"jsonrpc":"2.0","id":8,"method":"ping"}]`)
	one("2025-06-18", `[]`)
	one("2025-03-26", `[]`)
	_, reply := vet("2025-03-26", `[1,2,3]`)
	var as []answer
	if err := json.Unmarshal(reply, &as); err != nil || len(as) != 3 {
		t.Fatalf("[1,2,3] in a 2025-03-26 session: %s; want an array of three answers", reply)
	}
	for _, a := range as {
		if string(a.ID) != "null" || a.Error.Code != -32600 {
			t.Errorf("[1,2,3]: answer %+v; want -32600 with id null", a)
		}
	}
	_, reply = vet("2025-03-26", `[{"jsonrpc":"2.0","id":8,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},2]`)
	if err := json.Unmarshal(reply, &as); err != nil || len(as) != 2 || string(as[0].ID) != "8" || string(as[1].ID) != "null" {
		t.Errorf("a batch with one invalid message: %s; want an array answering request 8 (not run) and the invalid one, the notification none", reply)
	}
	if ids, reply := vet("2025-03-26", `[{"jsonrpc":"2.0","id":8,"method":"ping"}]`); reply != nil || len(ids) != 1 {
		t.Errorf("a valid batch in a 2025-03-26 session: refused %s; want it passed on", reply)
	}
}
