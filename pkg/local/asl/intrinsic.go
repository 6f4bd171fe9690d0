package asl

import (
	"crypto/md5"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	mrand "math/rand/v2"
	"strconv"
	"strings"
)

// intrinsic is a compiled intrinsic function call such as States.Format('{}', $.name).
type intrinsic struct {
	src  string
	name string
	args []iarg
}

type iarg struct {
	lit     any      // a literal string, number, boolean or null
	isLit   bool     // lit is set (nil is a valid literal)
	fmtText []string // for a string literal: its text split at unescaped {} placeholders
	path    *path
	call    *intrinsic
}

// arity is the accepted argument count of each supported function (max -1: unbounded).
var arity = map[string][2]int{
	"States.Format":         {1, -1},
	"States.StringToJson":   {1, 1},
	"States.JsonToString":   {1, 1},
	"States.Array":          {0, -1},
	"States.ArrayPartition": {2, 2},
	"States.ArrayContains":  {2, 2},
	"States.ArrayRange":     {3, 3},
	"States.ArrayGetItem":   {2, 2},
	"States.ArrayLength":    {1, 1},
	"States.ArrayUnique":    {1, 1},
	"States.Base64Encode":   {1, 1},
	"States.Base64Decode":   {1, 1},
	"States.Hash":           {2, 2},
	"States.JsonMerge":      {3, 3},
	"States.MathRandom":     {2, 3},
	"States.MathAdd":        {2, 2},
	"States.StringSplit":    {2, 2},
	"States.UUID":           {0, 0},
}

// parseIntrinsic compiles an intrinsic function expression.
func parseIntrinsic(src string) (*intrinsic, error) {
	p := &iparser{src: src}
	call, err := p.call()
	if err != nil {
		return nil, fmt.Errorf("intrinsic %q: %w", src, err)
	}
	p.space()
	if p.pos != len(p.src) {
		return nil, fmt.Errorf("intrinsic %q: unexpected %q after the call", src, p.src[p.pos:])
	}
	return call, nil
}

type iparser struct {
	src string
	pos int
}

func (p *iparser) space() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t') {
		p.pos++
	}
}

func (p *iparser) call() (*intrinsic, error) {
	p.space()
	start := p.pos
	open := strings.IndexByte(p.src[p.pos:], '(')
	if open < 0 {
		return nil, fmt.Errorf("missing ( after the function name")
	}
	name := strings.TrimSpace(p.src[p.pos : p.pos+open])
	ar, ok := arity[name]
	if !ok {
		return nil, fmt.Errorf("unknown intrinsic function %q", name)
	}
	p.pos += open + 1
	c := &intrinsic{name: name}
	p.space()
	if p.pos < len(p.src) && p.src[p.pos] == ')' {
		p.pos++
	} else {
		for {
			a, err := p.arg()
			if err != nil {
				return nil, err
			}
			c.args = append(c.args, a)
			p.space()
			if p.pos >= len(p.src) {
				return nil, fmt.Errorf("missing ) closing %s", name)
			}
			if p.src[p.pos] == ')' {
				p.pos++
				break
			}
			if p.src[p.pos] != ',' {
				return nil, fmt.Errorf("expected , or ) at %q", p.src[p.pos:])
			}
			p.pos++
		}
	}
	if len(c.args) < ar[0] || (ar[1] >= 0 && len(c.args) > ar[1]) {
		return nil, fmt.Errorf("%s takes %s arguments, got %d", name, arityText(ar), len(c.args))
	}
	c.src = p.src[start:p.pos]
	return c, nil
}

func arityText(a [2]int) string {
	switch {
	case a[1] < 0:
		return fmt.Sprintf("at least %d", a[0])
	case a[0] == a[1]:
		return strconv.Itoa(a[0])
	}
	return fmt.Sprintf("%d to %d", a[0], a[1])
}

func (p *iparser) arg() (iarg, error) {
	p.space()
	if p.pos >= len(p.src) {
		return iarg{}, fmt.Errorf("missing argument")
	}
	rest := p.src[p.pos:]
	switch {
	case rest[0] == '\'':
		return p.stringLit()
	case strings.HasPrefix(rest, "States."):
		c, err := p.call()
		return iarg{call: c}, err
	case rest[0] == '$':
		end := p.pos
		quote := byte(0)
		for end < len(p.src) {
			ch := p.src[end]
			if quote != 0 {
				if ch == quote {
					quote = 0
				}
			} else if ch == '\'' || ch == '"' {
				quote = ch
			} else if ch == ',' || ch == ')' || ch == ' ' {
				break
			}
			end++
		}
		pth, err := parsePath(p.src[p.pos:end], true)
		if err != nil {
			return iarg{}, err
		}
		p.pos = end
		return iarg{path: pth}, nil
	}
	end := p.pos
	for end < len(p.src) && !strings.ContainsRune(",) ", rune(p.src[end])) {
		end++
	}
	word := p.src[p.pos:end]
	p.pos = end
	switch word {
	case "true":
		return iarg{lit: true, isLit: true}, nil
	case "false":
		return iarg{lit: false, isLit: true}, nil
	case "null":
		return iarg{lit: nil, isLit: true}, nil
	}
	if _, err := strconv.ParseFloat(word, 64); err == nil {
		return iarg{lit: json.Number(word), isLit: true}, nil
	}
	return iarg{}, fmt.Errorf("unrecognised argument %q (strings take single quotes)", word)
}

// stringLit reads a single-quoted literal; \' \{ \} and \\ escape, and an unescaped {} is a
// States.Format placeholder.
func (p *iparser) stringLit() (iarg, error) {
	p.pos++ // opening quote
	var text strings.Builder
	var parts []string
	for p.pos < len(p.src) {
		ch := p.src[p.pos]
		switch {
		case ch == '\\' && p.pos+1 < len(p.src):
			text.WriteByte(p.src[p.pos+1])
			p.pos += 2
			continue
		case ch == '\'':
			p.pos++
			parts = append(parts, text.String())
			whole := strings.Join(parts, "{}")
			return iarg{lit: whole, isLit: true, fmtText: parts}, nil
		case ch == '{' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '}':
			parts = append(parts, text.String())
			text.Reset()
			p.pos += 2
			continue
		}
		text.WriteByte(ch)
		p.pos++
	}
	return iarg{}, fmt.Errorf("unterminated string literal")
}

// eval runs the call against the state's input and context object.
func (c *intrinsic) eval(input, ctxObj any) (any, error) {
	args := make([]any, len(c.args))
	for i, a := range c.args {
		switch {
		case a.isLit:
			args[i] = a.lit
		case a.path != nil:
			v, ok := a.path.eval(input, ctxObj)
			if !ok {
				return nil, c.fail("argument %d: path %s does not exist in the input", i+1, a.path.src)
			}
			args[i] = v
		default:
			v, err := a.call.eval(input, ctxObj)
			if err != nil {
				return nil, err
			}
			args[i] = v
		}
	}
	return c.apply(args)
}

func (c *intrinsic) fail(format string, args ...any) *Failure {
	return fail(ErrIntrinsicFailure, "%s: %s", c.src, fmt.Sprintf(format, args...))
}

func (c *intrinsic) apply(args []any) (any, error) {
	switch c.name {
	case "States.Format":
		var parts []string
		if c.args[0].isLit {
			parts = c.args[0].fmtText
		} else {
			s, ok := args[0].(string)
			if !ok {
				return nil, c.fail("the template is a %s, not a string", typeName(args[0]))
			}
			parts = strings.Split(s, "{}")
		}
		if len(parts)-1 != len(args)-1 {
			return nil, c.fail("the template has %d placeholders but %d values were given", len(parts)-1, len(args)-1)
		}
		var b strings.Builder
		for i, part := range parts {
			b.WriteString(part)
			if i+1 < len(parts) {
				switch v := args[i+1].(type) {
				case string:
					b.WriteString(v)
				case json.Number, bool, nil:
					b.Write(mustEncode(v))
				default:
					return nil, c.fail("value %d is a %s; only strings, numbers, booleans and null format", i+1, typeName(v))
				}
			}
		}
		return b.String(), nil
	case "States.StringToJson":
		s, ok := args[0].(string)
		if !ok {
			return nil, c.fail("the argument is a %s, not a string", typeName(args[0]))
		}
		v, err := decodeValue([]byte(s))
		if err != nil {
			return nil, c.fail("not JSON: %v", err)
		}
		return v, nil
	case "States.JsonToString":
		return string(mustEncode(args[0])), nil
	case "States.Array":
		return append([]any{}, args...), nil
	case "States.ArrayPartition":
		a, err := c.array(args[0])
		if err != nil {
			return nil, err
		}
		size, err := c.integer(args[1])
		if err != nil {
			return nil, err
		}
		if size <= 0 {
			return nil, c.fail("chunk size %d must be positive", size)
		}
		out := []any{}
		for i := 0; i < len(a); i += size {
			out = append(out, append([]any{}, a[i:min(i+size, len(a))]...))
		}
		return out, nil
	case "States.ArrayContains":
		a, err := c.array(args[0])
		if err != nil {
			return nil, err
		}
		for _, v := range a {
			if deepEqual(v, args[1]) {
				return true, nil
			}
		}
		return false, nil
	case "States.ArrayRange":
		var n [3]int
		for i := range n {
			v, err := c.integer(args[i])
			if err != nil {
				return nil, err
			}
			n[i] = v
		}
		if n[2] == 0 {
			return nil, c.fail("step must not be 0")
		}
		out := []any{}
		for v := n[0]; (n[2] > 0 && v <= n[1]) || (n[2] < 0 && v >= n[1]); v += n[2] {
			if len(out) == 1000 {
				return nil, c.fail("the range has more than 1000 items")
			}
			out = append(out, json.Number(strconv.Itoa(v)))
		}
		return out, nil
	case "States.ArrayGetItem":
		a, err := c.array(args[0])
		if err != nil {
			return nil, err
		}
		i, err := c.integer(args[1])
		if err != nil {
			return nil, err
		}
		if i < 0 || i >= len(a) {
			return nil, c.fail("index %d is outside an array of %d", i, len(a))
		}
		return a[i], nil
	case "States.ArrayLength":
		a, err := c.array(args[0])
		if err != nil {
			return nil, err
		}
		return json.Number(strconv.Itoa(len(a))), nil
	case "States.ArrayUnique":
		a, err := c.array(args[0])
		if err != nil {
			return nil, err
		}
		out := []any{}
	next:
		for _, v := range a {
			for _, seen := range out {
				if deepEqual(v, seen) {
					continue next
				}
			}
			out = append(out, v)
		}
		return out, nil
	case "States.Base64Encode":
		s, ok := args[0].(string)
		if !ok {
			return nil, c.fail("the argument is a %s, not a string", typeName(args[0]))
		}
		return base64.StdEncoding.EncodeToString([]byte(s)), nil
	case "States.Base64Decode":
		s, ok := args[0].(string)
		if !ok {
			return nil, c.fail("the argument is a %s, not a string", typeName(args[0]))
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, c.fail("not base64: %v", err)
		}
		return string(b), nil
	case "States.Hash":
		s, ok := args[0].(string)
		if !ok {
			s = string(mustEncode(args[0]))
		}
		alg, _ := args[1].(string)
		var h hash.Hash
		switch alg {
		case "MD5":
			h = md5.New()
		case "SHA-1":
			h = sha1.New()
		case "SHA-256":
			h = sha256.New()
		case "SHA-384":
			h = sha512.New384()
		case "SHA-512":
			h = sha512.New()
		default:
			return nil, c.fail("unknown hash algorithm %v (want MD5, SHA-1, SHA-256, SHA-384 or SHA-512)", args[1])
		}
		h.Write([]byte(s))
		return hex.EncodeToString(h.Sum(nil)), nil
	case "States.JsonMerge":
		a, ok1 := args[0].(map[string]any)
		b, ok2 := args[1].(map[string]any)
		if !ok1 || !ok2 {
			return nil, c.fail("both values must be objects, got %s and %s", typeName(args[0]), typeName(args[1]))
		}
		if deep, _ := args[2].(bool); deep {
			return nil, c.fail("deep merge is not supported by Step Functions; pass false")
		}
		out := make(map[string]any, len(a)+len(b))
		for k, v := range a {
			out[k] = v
		}
		for k, v := range b {
			out[k] = v
		}
		return out, nil
	case "States.MathRandom":
		lo, err := c.integer(args[0])
		if err != nil {
			return nil, err
		}
		hi, err := c.integer(args[1])
		if err != nil {
			return nil, err
		}
		if hi <= lo {
			return nil, c.fail("end %d must be above start %d", hi, lo)
		}
		var r int
		if len(args) == 3 {
			seed, err := c.integer(args[2])
			if err != nil {
				return nil, err
			}
			r = lo + mrand.New(mrand.NewPCG(uint64(seed), 0)).IntN(hi-lo)
		} else {
			r = lo + mrand.IntN(hi-lo)
		}
		return json.Number(strconv.Itoa(r)), nil
	case "States.MathAdd":
		a, err := c.integer(args[0])
		if err != nil {
			return nil, err
		}
		b, err := c.integer(args[1])
		if err != nil {
			return nil, err
		}
		return json.Number(strconv.Itoa(a + b)), nil
	case "States.StringSplit":
		s, ok1 := args[0].(string)
		sep, ok2 := args[1].(string)
		if !ok1 || !ok2 {
			return nil, c.fail("both arguments must be strings, got %s and %s", typeName(args[0]), typeName(args[1]))
		}
		out := []any{}
		for _, f := range strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(sep, r) }) {
			out = append(out, f)
		}
		return out, nil
	case "States.UUID":
		return newUUID(), nil
	}
	return nil, c.fail("not implemented")
}

func (c *intrinsic) array(v any) ([]any, error) {
	a, ok := v.([]any)
	if !ok {
		return nil, c.fail("expected an array, got a %s", typeName(v))
	}
	return a, nil
}

func (c *intrinsic) integer(v any) (int, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, c.fail("expected an integer, got a %s", typeName(v))
	}
	i, err := strconv.Atoi(n.String())
	if err != nil {
		f, ferr := n.Float64()
		if ferr != nil || f != float64(int(f)) {
			return 0, c.fail("expected an integer, got %s", n)
		}
		i = int(f)
	}
	return i, nil
}

// newUUID returns a random version 4 UUID.
func newUUID() string {
	var b [16]byte
	rand.Read(b[:]) // documented never to fail
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
