package browser

import (
	"fmt"
	"strings"
)

// keyDef is one key as the DevTools Input domain wants it.
type keyDef struct {
	key     string
	code    string
	keyCode int64
	text    string
}

// Modifier bits of Input.dispatchKeyEvent.
const (
	modAlt   = 1
	modCtrl  = 2
	modMeta  = 4
	modShift = 8
)

var namedKeys = map[string]keyDef{
	"enter":      {"Enter", "Enter", 13, "\r"},
	"tab":        {"Tab", "Tab", 9, ""},
	"escape":     {"Escape", "Escape", 27, ""},
	"esc":        {"Escape", "Escape", 27, ""},
	"backspace":  {"Backspace", "Backspace", 8, ""},
	"delete":     {"Delete", "Delete", 46, ""},
	"arrowup":    {"ArrowUp", "ArrowUp", 38, ""},
	"arrowdown":  {"ArrowDown", "ArrowDown", 40, ""},
	"arrowleft":  {"ArrowLeft", "ArrowLeft", 37, ""},
	"arrowright": {"ArrowRight", "ArrowRight", 39, ""},
	"home":       {"Home", "Home", 36, ""},
	"end":        {"End", "End", 35, ""},
	"pageup":     {"PageUp", "PageUp", 33, ""},
	"pagedown":   {"PageDown", "PageDown", 34, ""},
	"space":      {" ", "Space", 32, " "},
}

var modifierKeys = map[string]keyDef{
	"alt":     {"Alt", "AltLeft", 18, ""},
	"control": {"Control", "ControlLeft", 17, ""},
	"ctrl":    {"Control", "ControlLeft", 17, ""},
	"meta":    {"Meta", "MetaLeft", 91, ""},
	"shift":   {"Shift", "ShiftLeft", 16, ""},
}

// parseKeys reads "Enter", "a" or "Control+Shift+K" into the key and the modifiers held.
func parseKeys(spec string) (keyDef, []keyDef, error) {
	parts := strings.Split(spec, "+")
	if spec == "+" {
		parts = []string{"+"}
	}
	var mods []keyDef
	for _, p := range parts[:len(parts)-1] {
		m, ok := modifierKeys[strings.ToLower(strings.TrimSpace(p))]
		if !ok {
			return keyDef{}, nil, fmt.Errorf("key %q: %q is not a modifier (Alt, Control, Meta, Shift)", spec, p)
		}
		mods = append(mods, m)
	}
	last := parts[len(parts)-1]
	if k, ok := namedKeys[strings.ToLower(last)]; ok {
		return k, mods, nil
	}
	if m, ok := modifierKeys[strings.ToLower(last)]; ok {
		return m, mods, nil
	}
	r := []rune(last)
	if len(r) != 1 {
		return keyDef{}, nil, fmt.Errorf("key %q: %q is not a key name (Enter, Tab, Escape, Backspace, Delete, arrows, Home, End, PageUp, PageDown, Space) or a single character", spec, last)
	}
	c := r[0]
	k := keyDef{key: last, text: last}
	switch {
	case c >= 'a' && c <= 'z':
		k.code, k.keyCode = "Key"+strings.ToUpper(last), int64(c-'a'+'A')
	case c >= 'A' && c <= 'Z':
		k.code, k.keyCode = "Key"+last, int64(c)
	case c >= '0' && c <= '9':
		k.code, k.keyCode = "Digit"+last, int64(c)
	}
	return k, mods, nil
}

func modifierBits(mods []keyDef) int64 {
	var bits int64
	for _, m := range mods {
		switch m.key {
		case "Alt":
			bits |= modAlt
		case "Control":
			bits |= modCtrl
		case "Meta":
			bits |= modMeta
		case "Shift":
			bits |= modShift
		}
	}
	return bits
}
