package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"
)

// stdioCalls tracks the requests an MCP client sent over stdin until their answers are written,
// so that a client that writes its requests and closes its input (a script piping JSON-RPC
// lines) still gets every answer: the session ends at end of input only once nothing read is
// left unanswered. Without it, end of input closes the session and abandons the calls in flight.
type stdioCalls struct {
	mu      sync.Mutex
	pending map[string]bool
	settled *sync.Cond
}

func newStdioCalls() *stdioCalls {
	c := &stdioCalls{pending: map[string]bool{}}
	c.settled = sync.NewCond(&c.mu)
	return c
}

// message is the part of a JSON-RPC message the tracking reads: a request has an id and a
// method, an answer an id and no method, a notification no id.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// reader passes in's lines on, noting each request's id; at end of input it waits until every
// noted request is answered (or ctx ends) and then reports the end.
func (c *stdioCalls) reader(ctx context.Context, in io.Reader) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReader(in)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				var m message
				if json.Unmarshal(line, &m) == nil && len(m.ID) > 0 && m.Method != "" {
					c.mu.Lock()
					c.pending[string(m.ID)] = true
					c.mu.Unlock()
				}
				if _, werr := pw.Write(line); werr != nil {
					return
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

func (c *stdioCalls) wait(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.pending) > 0 && ctx.Err() == nil {
		c.settled.Wait()
	}
}

// writer passes each message on to out and settles the request an answer answers.
func (c *stdioCalls) writer(out io.Writer) io.WriteCloser {
	return nopWriteCloser{writerFunc(func(p []byte) (int, error) {
		n, err := out.Write(p)
		for _, line := range bytes.Split(p, []byte("\n")) {
			var m message
			if json.Unmarshal(line, &m) == nil && len(m.ID) > 0 && m.Method == "" {
				c.mu.Lock()
				delete(c.pending, string(m.ID))
				c.settled.Broadcast()
				c.mu.Unlock()
			}
		}
		return n, err
	})}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

type readCloser struct {
	io.Reader
	close func() error
}

func (r readCloser) Close() error { return r.close() }
