package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Stdio is the transport of `gardener mcp` over stdin and stdout: one JSON-RPC message a line
// each way, as MCP's stdio transport says, with two guards the SDK's own transport lacks.
//
// A line that is not a message does not end the session. The SDK's transport ends it, with
// every call in flight, on the first line it cannot read; here each line is read first (see
// vet): one that is not JSON is answered -32700 (parse error, id null), one that is JSON but
// not a request, a notification or an answer is answered -32600 (invalid request, with its id
// when it has one), and neither reaches the server. A batch (a JSON array) is answered -32600
// unless the protocol version the session agreed allows batches (before 2025-06-18) and every
// message in it is valid; a blank line is ignored.
//
// End of input waits for the answers: a client that writes its requests and closes its input
// (a script piping JSON-RPC lines) still gets every answer, since the session ends at end of
// input only once nothing read is left unanswered.
func Stdio(ctx context.Context, in io.Reader, out io.Writer) mcp.Transport {
	c := newStdioCalls()
	return &mcp.IOTransport{Reader: c.reader(ctx, in, out), Writer: c.writer(out)}
}

// maxLine bounds one line read: a longer one is answered -32600 and skipped, not buffered.
const maxLine = 16 << 20

// stdioCalls tracks the requests read until their answers are written, and the protocol
// version the session agreed (which decides whether a batch is taken).
type stdioCalls struct {
	mu      sync.Mutex
	pending map[string]bool
	settled *sync.Cond
	// version is the protocol version the server answered initialize with.
	version string
	// writeMu keeps the guard's answers and the server's messages whole lines apart.
	writeMu sync.Mutex
}

func newStdioCalls() *stdioCalls {
	c := &stdioCalls{pending: map[string]bool{}}
	c.settled = sync.NewCond(&c.mu)
	return c
}

// reader passes in's valid lines on, noting each request's id, and answers the others on out
// (see Stdio); at end of input it waits until every noted request is answered (or ctx ends)
// and then reports the end.
func (c *stdioCalls) reader(ctx context.Context, in io.Reader, out io.Writer) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReaderSize(in, 64<<10)
		for {
			line, tooLong, err := readLine(br)
			if tooLong {
				c.answer(out, rpcError(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: a message is at most %d bytes", maxLine)))
			} else if len(bytes.TrimSpace(line)) > 0 {
				ids, reply := c.vet(line)
				if reply != nil {
					c.answer(out, reply)
				} else {
					c.mu.Lock()
					for _, id := range ids {
						c.pending[id] = true
					}
					c.mu.Unlock()
					if _, werr := pw.Write(append(bytes.TrimSpace(line), '\n')); werr != nil {
						return
					}
				}
			}
			if err != nil {
				c.wait(ctx)
				pw.CloseWithError(err)
				return
			}
		}
	}()
	stop := context.AfterFunc(ctx, func() {
		c.mu.Lock()
		c.settled.Broadcast()
		c.mu.Unlock()
	})
	return readCloser{pr, func() error { stop(); return pr.Close() }}
}

// readLine reads one line without its end; a line past maxLine is read to its end and dropped.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		part, err := br.ReadSlice('\n')
		if len(line)+len(part) > maxLine {
			tooLong = true
		} else {
			line = append(line, part...)
		}
		if err != bufio.ErrBufferFull {
			if tooLong {
				line = nil
			}
			return bytes.TrimRight(line, "\r\n"), tooLong, err
		}
	}
}

// answer writes one message of the guard's own as a line.
func (c *stdioCalls) answer(out io.Writer, msg []byte) {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, _ = out.Write(append(msg, '\n'))
}

// vet reads one line. A valid message or batch answers the ids of the requests in it (to wait
// for at end of input) and no reply; any other answers the error reply to write instead.
func (c *stdioCalls) vet(line []byte) (ids []string, reply []byte) {
	if !json.Valid(line) {
		return nil, rpcError(nil, jsonrpc.CodeParseError, "Parse error: the line is not JSON")
	}
	trimmed := bytes.TrimSpace(line)
	if trimmed[0] != '[' {
		id, err := vetMessage(trimmed)
		if err != nil {
			return nil, rpcError(err.id, jsonrpc.CodeInvalidRequest, "Invalid Request: "+err.reason)
		}
		if id != nil {
			ids = append(ids, idKey(id))
		}
		return ids, nil
	}
	c.mu.Lock()
	version := c.version
	c.mu.Unlock()
	if version == "" || version >= "2025-06-18" {
		shown := version
		if shown == "" {
			shown = "none agreed yet: initialize is never batched"
		}
		return nil, rpcError(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: JSON-RPC batches are not part of MCP from protocol version 2025-06-18 (this session's: "+shown+"); send one message a line")
	}
	var batch []json.RawMessage
	_ = json.Unmarshal(trimmed, &batch)
	if len(batch) == 0 {
		return nil, rpcError(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: an empty batch")
	}
	seen := map[string]bool{}
	for i, raw := range batch {
		id, err := vetMessage(raw)
		if err != nil {
			return nil, rpcError(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: batch message %d: %s", i+1, err.reason))
		}
		if id != nil {
			k := idKey(id)
			if seen[k] || c.isPending(k) {
				return nil, rpcError(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: batch message %d: id %s is already in use", i+1, id))
			}
			seen[k] = true
			ids = append(ids, k)
		}
	}
	return ids, nil
}

// idKey is an id as the tracking keys it: the server answers 1.0 as 1 and "\u0078" as "x".
func idKey(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	switch v := v.(type) {
	case float64:
		return fmt.Sprintf("n:%d", int64(v))
	case string:
		return "s:" + v
	}
	return string(raw)
}

func (c *stdioCalls) isPending(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pending[id]
}

// invalid is why a message is not a JSON-RPC 2.0 request, notification or answer, and its id
// when it had a usable one.
type invalid struct {
	id     json.RawMessage
	reason string
}

// vetMessage checks one JSON value is a JSON-RPC 2.0 message the server can take: an object,
// "jsonrpc" exactly "2.0", an id (when given) a string or a whole number, and either a method
// (a non-empty string, with params an object or an array when given) or, for an answer to the
// server's own request, an id with a result or an error. It answers the id of a request, nil
// for a notification or an answer.
func vetMessage(raw []byte) (json.RawMessage, *invalid) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, &invalid{reason: "a message is a JSON object"}
	}
	var id json.RawMessage
	if rawID, ok := m["id"]; ok {
		var s string
		var n float64
		switch {
		case string(bytes.TrimSpace(rawID)) == "null":
			// MCP: a request's id must not be null; json.Unmarshal would take null as "".
			return nil, &invalid{reason: "an id is a string or a whole number, not null"}
		case json.Unmarshal(rawID, &s) == nil:
			id = rawID
		case json.Unmarshal(rawID, &n) == nil && n == math.Trunc(n) && math.Abs(n) < 1<<53:
			id = rawID
		default:
			return nil, &invalid{reason: "an id is a string or a whole number"}
		}
	}
	var version string
	if json.Unmarshal(m["jsonrpc"], &version) != nil || version != "2.0" {
		return nil, &invalid{id, `"jsonrpc" must be "2.0"`}
	}
	rawMethod, hasMethod := m["method"]
	if !hasMethod {
		_, hasResult := m["result"]
		_, hasError := m["error"]
		if id == nil || hasResult == hasError {
			return nil, &invalid{id, `no "method": a request names one (an answer has an id and a result or an error)`}
		}
		if _, err := jsonrpc.DecodeMessage(raw); err != nil {
			return nil, &invalid{id, err.Error()}
		}
		return nil, nil
	}
	var method string
	if json.Unmarshal(rawMethod, &method) != nil || method == "" {
		return nil, &invalid{id, `"method" is a non-empty string`}
	}
	if params, ok := m["params"]; ok {
		if p := bytes.TrimSpace(params); len(p) == 0 || p[0] != '{' && p[0] != '[' {
			return nil, &invalid{id, `"params" is an object`}
		}
	}
	if _, err := jsonrpc.DecodeMessage(raw); err != nil {
		return nil, &invalid{id, err.Error()}
	}
	return id, nil
}

// rpcError is a JSON-RPC error answer; id nil is null.
func rpcError(id json.RawMessage, code int, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	type wireError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   wireError       `json:"error"`
	}{"2.0", id, wireError{code, message}})
	return b
}

func (c *stdioCalls) wait(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.pending) > 0 && ctx.Err() == nil {
		c.settled.Wait()
	}
}

// message is the part of a server's message the tracking reads: an answer has an id and no
// method; the answer to initialize carries the protocol version agreed.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result struct {
		ProtocolVersion string `json:"protocolVersion"`
	} `json:"result"`
}

// writer passes each of the server's messages on to out and settles the request an answer
// answers.
func (c *stdioCalls) writer(out io.Writer) io.WriteCloser {
	return nopWriteCloser{writerFunc(func(p []byte) (int, error) {
		c.writeMu.Lock()
		n, err := out.Write(p)
		c.writeMu.Unlock()
		for _, line := range bytes.Split(p, []byte("\n")) {
			var m message
			if json.Unmarshal(line, &m) == nil && len(m.ID) > 0 && m.Method == "" {
				c.mu.Lock()
				if m.Result.ProtocolVersion != "" {
					c.version = m.Result.ProtocolVersion
				}
				delete(c.pending, idKey(m.ID))
				c.settled.Broadcast()
				c.mu.Unlock()
			}
		}
		return n, err
	})}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

type readCloser struct {
	io.Reader
	close func() error
}

func (r readCloser) Close() error { return r.close() }
