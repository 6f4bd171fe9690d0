package browser

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/chromedp/chromedp/kb"
)

// namedKeys are the key names a press step may give, lower-cased, as chromedp's key runes.
var namedKeys = map[string]string{
	"enter":      kb.Enter,
	"tab":        kb.Tab,
	"escape":     kb.Escape,
	"esc":        kb.Escape,
	"backspace":  kb.Backspace,
	"delete":     kb.Delete,
	"arrowup":    kb.ArrowUp,
	"arrowdown":  kb.ArrowDown,
	"arrowleft":  kb.ArrowLeft,
	"arrowright": kb.ArrowRight,
	"home":       kb.Home,
	"end":        kb.End,
	"pageup":     kb.PageUp,
	"pagedown":   kb.PageDown,
	"space":      " ",
}

// modifier is a key held while another is pressed: its own key and its bit in an input
// event's Modifiers.
type modifier struct {
	key *kb.Key
	bit kb.Modifier
}

var modifierKeys = map[string]modifier{
	"alt":     {modifierKey(kb.Alt, 18), kb.ModifierAlt},
	"control": {modifierKey(kb.Control, 17), kb.ModifierCtrl},
	"ctrl":    {modifierKey(kb.Control, 17), kb.ModifierCtrl},
	"meta":    {modifierKey(kb.Meta, 91), kb.ModifierMeta},
	"shift":   {modifierKey(kb.Shift, 16), kb.ModifierShift},
}

// modifierKey is chromedp's left-hand modifier key with the key code a page reads from a real
// keyboard: kb gives the code of the left-hand key (VK_LCONTROL, 162), browsers report the
// code of the key whichever side it is on (VK_CONTROL, 17).
func modifierKey(s string, code int64) *kb.Key {
	k := *kbKey(s)
	k.Windows, k.Native = code, code
	return &k
}

// kbKey is chromedp's description of the key that types s, a single rune; nil when it has none.
func kbKey(s string) *kb.Key {
	r, _ := utf8.DecodeRuneInString(s)
	return kb.Keys[r]
}

// parseKeys reads "Enter", "a" or "Control+Shift+K" into the key and the modifiers held.
func parseKeys(spec string) (*kb.Key, []modifier, error) {
	parts := strings.Split(spec, "+")
	if spec == "+" {
		parts = []string{"+"}
	}
	var mods []modifier
	for _, p := range parts[:len(parts)-1] {
		m, ok := modifierKeys[strings.ToLower(strings.TrimSpace(p))]
		if !ok {
			return nil, nil, fmt.Errorf("key %q: %q is not a modifier (Alt, Control, Meta, Shift)", spec, p)
		}
		mods = append(mods, m)
	}
	last := parts[len(parts)-1]
	if k, ok := namedKeys[strings.ToLower(last)]; ok {
		return kbKey(k), mods, nil
	}
	if m, ok := modifierKeys[strings.ToLower(last)]; ok {
		return m.key, mods, nil
	}
	if utf8.RuneCountInString(last) != 1 {
		return nil, nil, fmt.Errorf("key %q: %q is not a key name (Enter, Tab, Escape, Backspace, Delete, arrows, Home, End, PageUp, PageDown, Space) or a single character", spec, last)
	}
	if k := kbKey(last); k != nil {
		return k, mods, nil
	}
	// A character no US keyboard has: typed as its text alone, as an input method would.
	return &kb.Key{Key: last, Text: last, Unmodified: last, Print: true}, mods, nil
}

func modifierBits(mods []modifier) int64 {
	var bits kb.Modifier
	for _, m := range mods {
		bits |= m.bit
	}
	return bits.Int64()
}
