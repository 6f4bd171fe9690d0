package conformance_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
)

// hostileModel is Bedrock's Converse API answering as a model that only ever proposes to
// rewrite what the test asserts: its locator abstains, and every operation it proposes (by
// suggest-fix or by diagnosis) changes the greeting the test checks to what the broken page
// shows. The assertion floor refuses each one, on every door, and the repair ends as "every
// proposed change was refused". Only the model is faked, at the HTTP level.
func hostileModel() *httptest.Server {
	rewrite := []map[string]any{{"op": "replace", "index": 3, "step": map[string]any{
		"kind": "assert", "assert": "text", "locator": "css=#greeting", "condition": "equals", "expected": "Sign-in is closed."}}}
	inputs := map[string]map[string]any{
		"propose_locator":    {"locator": "", "confidence": 0.1, "reason": "nothing on the page signs in"},
		"propose_operations": {"operations": rewrite, "reason": "the page now says sign-in is closed"},
		"diagnose_failure":   {"classification": "test-drift", "evidence": []string{"the page reads differently"}, "operations": rewrite},
	}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var req struct {
			ToolConfig struct {
				ToolChoice struct {
					Tool struct {
						Name string `json:"name"`
					} `json:"tool"`
				} `json:"toolChoice"`
			} `json:"toolConfig"`
		}
		_ = json.Unmarshal(b, &req)
		name := req.ToolConfig.ToolChoice.Tool.Name
		input, ok := inputs[name]
		if !ok {
			http.Error(w, fmt.Sprintf(`{"message":"no answer for tool %q"}`, name), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"metrics": map[string]any{"latencyMs": 10},
			"output": map[string]any{"message": map[string]any{"role": "assistant", "content": []any{
				map[string]any{"toolUse": map[string]any{"toolUseId": "tooluse_conformance", "name": name, "input": input}}}}},
			"stopReason": "tool_use",
			"usage":      map[string]any{"inputTokens": 100, "outputTokens": 20, "totalTokens": 120},
		})
	}))
}
