// The drift generator's page runtime: injected first into every HTML document the app serves,
// the documents of its same-origin iframes included. It marks the elements a saved test's green
// run used (by the XPath that run recorded, on the page it was on; a path through open shadow
// roots reads as the runner writes it, "…/host[1]/#shadow-root/div[1]/button[1]"), applies one
// mutation to the marked target on every load and every re-render (inside shadow roots too: it
// watches every root the page attaches), and reports what the page did to marked elements to
// the generator's server, so a repair can be checked against the element the mutation changed
// rather than against what the repair claims. Nothing it adds to the DOM names the generator.
(function () {
  "use strict";
  if (window.__dgRuntime) return;
  window.__dgRuntime = true;
  var C = /*CONFIG*/ null;
  if (!C) return;
  var inFrame = window !== window.top;
  var keyOf = new WeakMap(); // element -> the key of the test step(s) that used it
  var marked = {};           // key -> the element marked for it in this document
  var sig = {};              // key -> the tag and text of the first element marked for it
  var ours = new WeakSet();  // elements the generator created (decoys, wrappers, overlays)
  var done = new WeakSet();  // targets already mutated
  var reported = false;
  var overlaid = false;      // the overlay was added to this document
  var seq = 0;
  var M = C.mutation || { kind: "" };

  function post(path, body) {
    // Synchronous, so a hit is on the server before the click it reports navigates away. A
    // GET, the report in its query: the runner records what a page sends, and a repair's trust
    // rules compare the writes a step sends with its green run's (recorded before any element
    // was marked); the lab's own reports must not read as the app's writes.
    try {
      var x = new XMLHttpRequest();
      x.open("GET", path + "?r=" + encodeURIComponent(JSON.stringify(body)), false);
      x.send();
    } catch (e) { /* the page is unloading: nothing to report to */ }
  }

  // xpathOf writes the path the runner records: inside a shadow root it is the host's path,
  // then "/#shadow-root", then the path within the root.
  function xpathOf(el) {
    var parts = [];
    for (var n = el; n && n.nodeType === 1; n = n.parentElement) {
      var i = 1;
      for (var s = n.previousElementSibling; s; s = s.previousElementSibling) if (s.tagName === n.tagName) i++;
      parts.unshift(n.tagName.toLowerCase() + "[" + i + "]");
    }
    var root = el.getRootNode();
    var inner = "/" + parts.join("/");
    return root && root.host ? xpathOf(root.host) + "/#shadow-root" + inner : inner;
  }

  // resolve reads such a path back: each part after a "/#shadow-root" goes on in the shadow
  // root of the element the part before it found, from the root's child elements (an XPath
  // takes no shadow root as its context).
  function resolve(xp) {
    var el = null;
    var segs = xp.split("/#shadow-root");
    for (var i = 0; i < segs.length; i++) {
      if (i === 0) {
        el = first(segs[0], document);
      } else {
        if (!el || !el.shadowRoot) return null;
        var m = /^\/([A-Za-z][\w-]*)\[(\d+)\](.*)$/.exec(segs[i]);
        if (!m) return null;
        var kids = [].slice.call(el.shadowRoot.children).filter(function (k) { return k.tagName.toLowerCase() === m[1].toLowerCase(); });
        el = kids[Number(m[2]) - 1] || null;
        if (el && m[3]) el = first("." + m[3], el);
      }
      if (!el) return null;
    }
    return el;
  }

  function first(xp, ctx) {
    try {
      var n = document.evaluate(xp, ctx, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
      return n && n.nodeType === 1 ? n : null;
    } catch (e) {
      return null;
    }
  }

  // pagePath is the route a target was used on: a same-origin frame's targets were recorded
  // with the route of the page around the frame.
  function pagePath() {
    if (!inFrame) return location.pathname;
    try {
      return window.top.location.pathname;
    } catch (e) {
      return location.pathname;
    }
  }

  function onPage(t) {
    return !!t.frame === inFrame && (t.page === "*" || t.page === pagePath());
  }

  // mark gives every target on this page its element, once per element: a target whose element
  // is still in the document keeps it, so a mutation that shifts positions (a reorder, a decoy
  // before it) never hands the key to the element now at the old position.
  function mark() {
    for (var i = 0; i < C.targets.length; i++) {
      var t = C.targets[i];
      if (!onPage(t)) continue;
      var cur = marked[t.key];
      if (cur && cur.isConnected) continue;
      var el = resolve(t.xpath);
      if (!el || ours.has(el) || keyOf.has(el)) continue;
      // A re-rendered element takes the key only when it is the same element again: after a
      // removal the old position holds a neighbour.
      var s = el.tagName + "\u0000" + (el.textContent || "").trim();
      if (cur && sig[t.key] !== s) continue;
      sig[t.key] = s;
      keyOf.set(el, t.key);
      marked[t.key] = el;
    }
  }

  function keyed(ev) {
    var path = ev.composedPath ? ev.composedPath() : [ev.target];
    for (var i = 0; i < path.length; i++) {
      var n = path[i];
      if (n && n.nodeType === 1 && keyOf.has(n)) return keyOf.get(n);
    }
    return "";
  }

  function inOurs(ev) {
    var path = ev.composedPath ? ev.composedPath() : [ev.target];
    for (var i = 0; i < path.length; i++) if (path[i] && path[i].nodeType === 1 && ours.has(path[i])) return true;
    return false;
  }

  // listen reports uses of marked elements seen from the window and from every shadow root: a
  // change event does not leave the root it happened in. An event is reported once.
  var heard = new WeakSet();
  function listen(target) {
    ["click", "input", "change", "keydown"].forEach(function (type) {
      target.addEventListener(type, function (ev) {
        if (heard.has(ev)) return;
        heard.add(ev);
        var k = keyed(ev);
        if (k) post(C.hitURL, { key: k, type: type, at: performance.timeOrigin + performance.now(), seq: seq++ });
      }, true);
    });
  }
  listen(window);

  // A decoy and a dead button do nothing: their clicks never reach the app's handlers.
  window.addEventListener("click", function (ev) {
    var dead = M.kind === "dead-button" && keyed(ev) === M.key;
    if (dead || ((M.kind === "decoy-before" || M.kind === "row-icons") && inOurs(ev))) {
      ev.stopImmediatePropagation();
      ev.preventDefault();
    }
  }, true);

  function report(el) {
    if (reported) return;
    reported = true;
    post(C.appliedURL, { key: M.key, xpath: el ? xpathOf(el) : "" });
  }

  function make(html) {
    var d = document.createElement("div");
    d.innerHTML = html;
    var el = d.firstElementChild;
    ours.add(el);
    el.querySelectorAll("*").forEach(function (n) { ours.add(n); });
    return el;
  }

  function replaceWords(el, pairs) {
    var w = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    var nodes = [];
    while (w.nextNode()) nodes.push(w.currentNode);
    var changed = false;
    nodes.forEach(function (n) {
      var v = swap(n.nodeValue, pairs);
      if (v !== n.nodeValue) { n.nodeValue = v; changed = true; }
    });
    ["aria-label", "title", "placeholder", "value"].forEach(function (a) {
      if (!el.hasAttribute(a) || (a === "value" && !(el.tagName === "INPUT" && /^(submit|button|reset)$/.test(el.type)))) return;
      var v = swap(el.getAttribute(a), pairs);
      if (v !== el.getAttribute(a)) { el.setAttribute(a, v); changed = true; }
    });
    return changed;
  }

  function swap(s, pairs) {
    for (var i = 0; i < pairs.length; i++) {
      var from = pairs[i][0], to = pairs[i][1];
      var re = new RegExp("\\b" + from.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + "\\b", "gi");
      s = s.replace(re, function (m) {
        if (m === m.toUpperCase() && m !== m.toLowerCase()) return to.toUpperCase();
        if (m[0] === m[0].toUpperCase()) return to[0].toUpperCase() + to.slice(1);
        return to;
      });
    }
    return s;
  }

  // formOf makes sure a control moved out of its form still belongs to it.
  function keepForm(el) {
    var f = el.form || (el.closest && el.closest("form"));
    if (!f || !/^(BUTTON|INPUT|SELECT|TEXTAREA)$/.test(el.tagName)) return;
    if (!f.id) f.id = M.p.formId;
    el.setAttribute("form", f.id);
  }

  // liveText puts suffix after the element's words (its last text, its aria-label): the count or
  // price a live name carries. (The generator draws no live name for an input.)
  function liveText(el, suffix) {
    var w = document.createTreeWalker(el, NodeFilter.SHOW_TEXT), last = null;
    while (w.nextNode()) if (w.currentNode.nodeValue.trim()) last = w.currentNode;
    if (!last) return false;
    last.nodeValue = last.nodeValue.replace(/\s+$/, "") + suffix;
    if (el.hasAttribute("aria-label")) el.setAttribute("aria-label", el.getAttribute("aria-label").trim() + suffix);
    return true;
  }

  // hash5 is a build's hash of a class name: five characters, a digit among them, different for
  // every generation, as CSS modules write them ("btn_a81f3").
  function hash5(s) {
    var h = 2166136261;
    for (var i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619) >>> 0; }
    var x = ("00000" + h.toString(16)).slice(-5);
    return x[0] + String(h % 10) + x.slice(2);
  }

  // rowLabel is what names a row: its first cell's words that do not hold the control, or the
  // row's first words.
  function rowLabel(r, b) {
    var cells = [].slice.call(r.children);
    for (var i = 0; i < cells.length; i++) {
      if (cells[i].contains(b)) continue;
      var t = (cells[i].textContent || "").trim().replace(/\s+/g, " ");
      if (t) return t.slice(0, 40);
    }
    var all = (r.textContent || "").replace(b.textContent || "", " ").trim().replace(/\s+/g, " ");
    return all.split(" ").slice(0, 3).join(" ");
  }

  var skipParents = /^(BODY|HTML|FORM|LABEL|BUTTON|A|TABLE|TBODY|THEAD|TR|TD|TH|UL|OL|SELECT|FIELDSET|DETAILS|SUMMARY|NAV|MAIN|HEADER|FOOTER|DIALOG)$/;

  // mutate applies the drift or regression to the target; false when it cannot apply here.
  function mutate(el) {
    var p = M.p || {};
    switch (M.kind) {
      case "rename-id": {
        if (!el.id) return false;
        var old = el.id;
        el.getRootNode().querySelectorAll('label[for="' + CSS.escape(old) + '"]').forEach(function (l) { l.htmlFor = p.id; });
        el.id = p.id;
        return true;
      }
      case "rename-class": {
        var n = el, any = false;
        for (var d = 0; n && d < 4 && n !== document.body; d++, n = n.parentElement) {
          var cls = [].slice.call(n.classList);
          cls.forEach(function (c) { n.classList.replace(c, p.prefix + c); any = true; });
        }
        return any;
      }
      case "rename-testid": {
        var host = el.hasAttribute("data-testid") ? el : el.closest("[data-testid]");
        if (!host) return false;
        host.setAttribute("data-testid", p.testid);
        return true;
      }
      case "wrap": {
        var w = make("<" + p.tag + ' class="' + p.cls + '"></' + p.tag + ">");
        var what = el.closest("label") && !el.closest("label").contains(el.form) ? el.closest("label") : el;
        what.parentNode.insertBefore(w, what);
        w.appendChild(what);
        return true;
      }
      case "unwrap": {
        var par = el.parentElement;
        if (!par || skipParents.test(par.tagName)) return false;
        while (par.firstChild) par.parentNode.insertBefore(par.firstChild, par);
        par.remove();
        return true;
      }
      case "reorder": {
        var parent = el.parentElement;
        if (!parent || parent.children.length < 2) return false;
        var moving = el;
        if (parent.tagName === "LABEL") { moving = parent; parent = parent.parentElement; }
        if (!parent || parent.children.length < 2) return false;
        if (moving === parent.lastElementChild) parent.insertBefore(moving, parent.firstElementChild);
        else parent.appendChild(moving);
        return true;
      }
      case "synonym": {
        var ch = replaceWords(el, p.pairs);
        if (el.labels) for (var i = 0; i < el.labels.length; i++) ch = replaceWords(el.labels[i], p.pairs) || ch;
        return ch;
      }
      case "move-toolbar":
      case "move-menu": {
        var item = el.closest("label") && !el.closest("label").contains(el.form) ? el.closest("label") : el;
        keepForm(el);
        var box;
        if (M.kind === "move-toolbar") {
          box = make('<div role="toolbar" aria-label="' + p.label + '" class="toolbar"></div>');
          // A toolbar at the top of the page, or of the component the element is drawn in: a
          // control moved out of its shadow root would lose the component's handlers.
          var root = el.getRootNode();
          var main = root.host ? root : document.querySelector("main") || document.body;
          main.insertBefore(box, main.firstChild);
          box.appendChild(item);
        } else if (p.style === "popup") {
          // A menu button: aria-haspopup, aria-expanded, and a role=menu shown only when open.
          box = make('<div class="menu"><button type="button" id="' + p.summaryId + '" aria-haspopup="menu" aria-expanded="false">' + p.label +
            '</button><div role="menu" class="menu-items" hidden style="display:none"></div></div>');
          item.parentNode.insertBefore(box, item);
          var toggle = box.firstElementChild, list = box.lastElementChild;
          list.appendChild(item);
          toggle.addEventListener("click", function () {
            var open = list.hidden;
            list.hidden = !open;
            list.style.display = open ? "" : "none";
            toggle.setAttribute("aria-expanded", String(open));
          });
        } else {
          box = make('<details class="menu"><summary id="' + p.summaryId + '">' + p.label + '</summary><div role="menu" class="menu-items"></div></details>');
          item.parentNode.insertBefore(box, item);
          box.lastElementChild.appendChild(item);
        }
        return true;
      }
      case "icon": {
        // The control's words go from its text into its accessible name, perhaps with more.
        var name = (el.getAttribute("aria-label") || el.textContent || "").trim();
        if (!name) return false;
        if (el.tagName === "INPUT") name = el.getAttribute("aria-label") || el.value || "";
        if (!name.trim()) return false;
        el.setAttribute("aria-label", name.trim() + p.more);
        if (el.tagName === "INPUT") el.value = p.glyph; else el.textContent = p.glyph;
        return true;
      }
      case "required": {
        var form = el.form || el.closest("form");
        if (!form || form.noValidate) return false;
        var field = make(p.html);
        var before = el.form === form && form.contains(el) ? (el.closest(".field, .form-row, p") || el) : null;
        if (before && before.parentNode && form.contains(before)) before.parentNode.insertBefore(field, before);
        else form.appendChild(field);
        return true;
      }
      case "overlay": {
        if (document.getElementById(p.boxId)) return true;
        var o = make(p.html);
        document.body.appendChild(o);
        o.querySelector("button").addEventListener("click", function () { o.remove(); });
        return true;
      }
      case "decoy-before": {
        var clone = el.cloneNode(true);
        [clone].concat([].slice.call(clone.querySelectorAll("*"))).forEach(function (n) {
          ["id", "name", "for", "data-testid", "href", "form"].forEach(function (a) { n.removeAttribute(a); });
          ours.add(n);
        });
        if (/^(INPUT|TEXTAREA)$/.test(clone.tagName)) {
          clone.setAttribute("placeholder", p.text);
          clone.setAttribute("aria-label", p.text);
          if (clone.type === "submit" || clone.type === "button") clone.value = p.text;
        } else if (clone.tagName !== "SELECT") {
          clone.textContent = p.text;
          clone.removeAttribute("aria-label");
        }
        if (clone.tagName === "BUTTON") clone.type = "button";
        el.parentNode.insertBefore(clone, el);
        return true;
      }
      case "live-count":
      case "live-price": {
        var g = C.gen || 0;
        var suffix = M.kind === "live-count" ? " (" + (p.n + g * p.step) + ")" : " \u00b7 $" + ((p.cents + g * p.step) / 100).toFixed(2);
        if (!liveText(el, suffix)) return false;
        // The release that made the name live renamed the element's own handles (for a
        // structural locator only: see the generator).
        if (!p.prefix) return true;
        if (el.id) {
          el.getRootNode().querySelectorAll('label[for="' + CSS.escape(el.id) + '"]').forEach(function (l) { l.htmlFor = p.id; });
          el.id = p.id;
        }
        [].slice.call(el.classList).forEach(function (c) { el.classList.replace(c, p.prefix + c); });
        return true;
      }
      case "class-hash": {
        var hn = el, hashed = false;
        for (var hd = 0; hn && hd < 4 && hn !== document.body; hd++, hn = hn.parentElement) {
          [].slice.call(hn.classList).forEach(function (c) { hn.classList.replace(c, c + "_" + hash5(c + p.salt + ":" + (C.gen || 0))); hashed = true; });
        }
        return hashed;
      }
      case "list-order": {
        var lrow = el.closest("tr, li, [role=row]");
        if (!lrow || !lrow.parentElement) return false;
        var lpar = lrow.parentElement;
        var lrows = [].slice.call(lpar.children).filter(function (r) { return r.tagName === lrow.tagName; });
        if (lrows.length < 2) return false;
        // Generation 0 moves every row one place down (the last first), the next two, and so on.
        var k = (1 + (C.gen || 0)) % lrows.length;
        lrows.slice(lrows.length - k).forEach(function (r) { lpar.insertBefore(r, lrows[0]); });
        return true;
      }
      case "row-icons": {
        var irow = el.closest("tr, li, [role=row]");
        var old = (el.textContent || "").trim();
        if (!irow || !irow.parentElement || !old || el.tagName === "INPUT") return false;
        [].slice.call(irow.parentElement.children).forEach(function (r) {
          [].slice.call(r.querySelectorAll(el.tagName)).forEach(function (b) {
            if (ours.has(b) || (b.textContent || "").trim() !== old) return;
            var label = rowLabel(r, b);
            var other = b.cloneNode(false);
            ["id", "name", "for", "data-testid", "href", "form"].forEach(function (a) { other.removeAttribute(a); });
            if (other.tagName === "BUTTON") other.type = "button";
            other.setAttribute("aria-label", p.other + " " + label);
            other.textContent = "\ud83d\udc41";
            ours.add(other);
            b.setAttribute("aria-label", old + " " + label);
            b.textContent = p.glyph;
            b.parentNode.insertBefore(other, b);
          });
        });
        return true;
      }
      case "wrong-number":
        return replaceText(el, p.from, p.to);
      case "missing":
        el.remove();
        return true;
      case "row-gone": {
        var row = el.closest("tr, li, [role=row]");
        if (!row || !row.parentElement || row.parentElement.children.length < 2) return false;
        row.remove();
        return true;
      }
      case "dead-button":
        return true; // the click listener above does the work
    }
    return false;
  }

  function replaceText(el, from, to) {
    var w = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    var any = false;
    while (w.nextNode()) {
      var n = w.currentNode;
      if (n.nodeValue.indexOf(from) >= 0) { n.nodeValue = n.nodeValue.split(from).join(to); any = true; }
    }
    if ("value" in el && typeof el.value === "string" && el.value.indexOf(from) >= 0) { el.value = el.value.split(from).join(to); any = true; }
    return any;
  }

  function apply() {
    if (!M.kind || M.kind === "http-500") return;
    if (M.kind === "overlay") {
      // Every page, every load: the choice is never remembered. Once a load: a page that
      // re-renders after the overlay was dismissed (a client-rendered app does on every route)
      // does not bring it back until the next load.
      if (!inFrame && document.body && !overlaid) {
        overlaid = true;
        if (mutate(null)) report(null);
      }
      return;
    }
    var el = marked[M.key];
    if (!el || !el.isConnected) return;
    if (M.kind === "wrong-number") {
      // Re-rendered text (a total recomputed by the page) is changed again each time.
      if (replaceText(el, M.p.from, M.p.to)) report(el);
      return;
    }
    if (done.has(el)) return;
    done.add(el);
    if (mutate(el)) report(el.isConnected ? el : null);
  }

  var scheduled = false;
  // pass marks what is there and mutates it, but mutates nothing while the document is still
  // being parsed: the page's own scripts take hold of their elements first, as the new version
  // of an app whose ids or markup changed would with its own code changed to match.
  function pass() {
    scheduled = false;
    if (!document.body) return;
    mark();
    if (document.readyState !== "loading") apply();
  }
  function schedule() {
    if (scheduled) return;
    scheduled = true;
    Promise.resolve().then(pass);
  }
  var watching = { childList: true, subtree: true, characterData: true };
  var observer = new MutationObserver(schedule);
  observer.observe(document, watching);
  // Components render into shadow roots, where the document's observer sees nothing: every
  // root the page attaches is watched and listened to as the document is. The runtime runs
  // before the page's own scripts, so it sees every root attached.
  var attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (init) {
    var root = attach.call(this, init);
    observer.observe(root, watching);
    listen(root);
    schedule();
    return root;
  };
  document.addEventListener("DOMContentLoaded", pass);
  window.addEventListener("popstate", schedule);
})();
