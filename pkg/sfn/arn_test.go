package sfn

import "testing"

func TestExecutionARN(t *testing.T) {
	cases := []struct {
		machine, want string
	}{
		{"arn:aws:states:us-east-1:123456789012:stateMachine:repair", "arn:aws:states:us-east-1:123456789012:execution:repair:manual-1"},
		{"arn:aws:states:us-east-1:123456789012:stateMachine:repair:3", "arn:aws:states:us-east-1:123456789012:execution:repair:manual-1"},
		{"arn:aws:states:us-east-1:123456789012:stateMachine:repair:live", "arn:aws:states:us-east-1:123456789012:execution:repair:manual-1"},
		{"arn:aws-cn:states:cn-north-1:123456789012:stateMachine:repair", "arn:aws-cn:states:cn-north-1:123456789012:execution:repair:manual-1"},
		{"arn:aws:states:us-east-1:123456789012:activity:repair", ""},
		{"arn:aws:lambda:us-east-1:123456789012:function:repair", ""},
		{"arn:aws:states:us-east-1:123456789012:stateMachine:", ""},
		{"repair", ""},
	}
	for _, c := range cases {
		got, ok := executionARN(c.machine, "manual-1")
		if got != c.want || ok != (c.want != "") {
			t.Errorf("executionARN(%q) = %q, %v; want %q", c.machine, got, ok, c.want)
		}
	}
}

func TestSameJSON(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{`{"a":1}`, `{ "a" : 1 }`, true},
		{`{"a":1}`, `{"a":2}`, false},
		{`{"a":1,"b":2}`, `{"b":2,"a":1}`, false}, // order counts: Start encodes one value one way
		{`not json`, `not json`, true},
		{`not json`, `{}`, false},
	}
	for _, c := range cases {
		if got := sameJSON([]byte(c.a), []byte(c.b)); got != c.want {
			t.Errorf("sameJSON(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
