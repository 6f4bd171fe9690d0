// The gardener's in-page runtime: locators, actionability, fingerprints, the DOM snapshot and the
// observers for toasts and modals. It is installed in every document of a replay before the
// page's own scripts run, and its entry points return plain JSON so the Go side reads them by
// value. One fingerprint function serves both the step records and the snapshot, so what a green
// run recorded and what a later snapshot lists are always comparable.
(() => {
  if (window.__dg) return;

  const norm = (s) => (s == null ? "" : String(s)).replace(/\s+/g, " ").trim();
  const lower = (s) => norm(s).toLowerCase();
  const words = (s, max) => {
    const w = norm(s).split(" ").filter(Boolean);
    return max && w.length > max ? w.slice(0, max) : w;
  };

  // --- visibility and state -----------------------------------------------------------------

  function isVisible(el) {
    if (!el || !el.isConnected || el.nodeType !== 1) return false;
    if (el.checkVisibility && !el.checkVisibility({ visibilityProperty: true })) return false;
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) {
      // display: contents boxes have no rect of their own; their children decide.
      if (getComputedStyle(el).display === "contents") {
        for (const c of el.children) if (isVisible(c)) return true;
      }
      return false;
    }
    return getComputedStyle(el).visibility === "visible";
  }

  function isDisabled(el) {
    if (el.getAttribute("aria-disabled") === "true") return true;
    if ("disabled" in el && el.disabled) return true;
    const fs = el.closest("fieldset[disabled]");
    if (fs) {
      // Controls inside the fieldset's first legend stay enabled, per HTML.
      const legend = fs.querySelector(":scope > legend");
      if (!legend || !legend.contains(el)) return true;
    }
    return false;
  }

  const textInputTypes = new Set(["", "text", "search", "email", "tel", "url", "password", "number"]);
  // Input types whose value insertText cannot produce; their value is set directly.
  const directInputTypes = new Set(["date", "datetime-local", "month", "week", "time", "color", "range"]);

  function editKind(el) {
    if (el.isContentEditable) return "text";
    const tag = el.tagName;
    if (tag === "TEXTAREA") return el.readOnly ? "" : "text";
    if (tag === "INPUT") {
      if (el.readOnly) return "";
      const t = (el.getAttribute("type") || "").toLowerCase();
      if (textInputTypes.has(t)) return "text";
      if (directInputTypes.has(t)) return "direct";
    }
    return "";
  }

  // --- roles and accessible names -----------------------------------------------------------

  const inputRoles = {
    button: "button", submit: "button", reset: "button", image: "button",
    checkbox: "checkbox", radio: "radio", range: "slider", number: "spinbutton",
    search: "searchbox", email: "textbox", tel: "textbox", text: "textbox", url: "textbox",
    password: "textbox", "": "textbox",
  };

  function implicitRole(el) {
    const tag = el.tagName.toLowerCase();
    switch (tag) {
      case "a": case "area": return el.hasAttribute("href") ? "link" : "";
      case "button": return "button";
      case "input": {
        const t = (el.getAttribute("type") || "").toLowerCase();
        if (t === "hidden") return "";
        if (el.hasAttribute("list") && ["", "text", "search", "email", "tel", "url"].includes(t)) return "combobox";
        return inputRoles[t] || "textbox";
      }
      case "select": return el.multiple || el.size > 1 ? "listbox" : "combobox";
      case "textarea": return "textbox";
      case "h1": case "h2": case "h3": case "h4": case "h5": case "h6": return "heading";
      case "img": return el.getAttribute("alt") === "" ? "presentation" : "img";
      case "nav": return "navigation";
      case "main": return "main";
      case "aside": return "complementary";
      case "header": return el.closest("article,aside,main,nav,section") ? "" : "banner";
      case "footer": return el.closest("article,aside,main,nav,section") ? "" : "contentinfo";
      case "form": return "form";
      case "section": return el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby") ? "region" : "";
      case "ul": case "ol": case "menu": return "list";
      case "li": return "listitem";
      case "table": return "table";
      case "tr": return "row";
      case "td": return "cell";
      case "th": return el.getAttribute("scope") === "row" ? "rowheader" : "columnheader";
      case "thead": case "tbody": case "tfoot": return "rowgroup";
      case "dialog": return "dialog";
      case "option": return "option";
      case "progress": return "progressbar";
      case "meter": return "meter";
      case "hr": return "separator";
      case "article": return "article";
      case "output": return "status";
      case "details": return "group";
      case "fieldset": return "group";
      case "summary": return "button";
      case "figure": return "figure";
      case "p": return "paragraph";
      case "dd": return "definition";
      case "dt": return "term";
    }
    return "";
  }

  function roleOf(el) {
    const explicit = (el.getAttribute("role") || "").trim().split(/\s+/)[0];
    if (explicit && explicit !== "none" && explicit !== "presentation") return explicit;
    if (explicit) return "presentation";
    return implicitRole(el);
  }

  // Roles whose name comes from their content when nothing else names them (ARIA 1.2).
  const nameFromContent = new Set(["button", "link", "heading", "cell", "columnheader", "rowheader",
    "option", "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "checkbox", "radio", "switch",
    "treeitem", "tooltip", "row", "gridcell", "listitem", "legend", "caption", "term", "definition"]);

  const skipTags = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "META", "LINK", "TITLE"]);

  function hiddenForName(el) {
    if (el.getAttribute("aria-hidden") === "true") return true;
    if (el.hidden) return true;
    const st = getComputedStyle(el);
    return st.display === "none" || st.visibility === "hidden";
  }

  // textFrom computes a subtree's text as accessible-name computation step 2F does: embedded
  // controls give their value, images their alt, named children their name.
  function textFrom(node, visited, includeHidden) {
    if (node.nodeType === 3) return node.nodeValue;
    if (node.nodeType !== 1 || skipTags.has(node.tagName)) return "";
    if (visited.has(node)) return "";
    visited.add(node);
    if (!includeHidden && hiddenForName(node)) return "";
    const label = node.getAttribute("aria-label");
    if (label && label.trim()) return " " + label + " ";
    const tag = node.tagName;
    if (tag === "IMG" || (tag === "INPUT" && node.type === "image")) return " " + (node.getAttribute("alt") || "") + " ";
    if (tag === "INPUT") {
      const t = node.type;
      if (t === "button" || t === "submit" || t === "reset") return " " + (node.value || "") + " ";
      if (t === "checkbox" || t === "radio" || t === "hidden") return "";
      return " " + (node.value || "") + " ";
    }
    if (tag === "SELECT") {
      const o = node.selectedOptions && node.selectedOptions[0];
      return o ? " " + o.textContent + " " : "";
    }
    if (tag === "TEXTAREA") return " " + node.value + " ";
    let out = "";
    const kids = node.shadowRoot ? node.shadowRoot.childNodes : node.childNodes;
    for (const c of kids) out += textFrom(c, visited, includeHidden);
    const block = node.nodeType === 1 && !["SPAN", "A", "B", "I", "EM", "STRONG", "SMALL", "CODE", "LABEL", "ABBR", "SUP", "SUB", "MARK", "S", "U"].includes(tag);
    return block ? " " + out + " " : out;
  }

  function byIds(el, attr) {
    const ids = (el.getAttribute(attr) || "").trim().split(/\s+/).filter(Boolean);
    const root = el.getRootNode();
    return ids.map((id) => (root.getElementById ? root.getElementById(id) : document.getElementById(id))).filter(Boolean);
  }

  function labelTexts(el) {
    const out = [];
    const ll = byIds(el, "aria-labelledby");
    if (ll.length) out.push(norm(ll.map((l) => textFrom(l, new Set([el]), true)).join(" ")));
    if (el.labels) {
      for (const l of el.labels) out.push(norm(textFrom(l, new Set([el]), false)));
    }
    return out.filter(Boolean);
  }

  function accessibleName(el) {
    const ll = byIds(el, "aria-labelledby");
    if (ll.length) {
      const n = norm(ll.map((l) => textFrom(l, new Set([el]), true)).join(" "));
      if (n) return n;
    }
    const aria = norm(el.getAttribute("aria-label"));
    if (aria) return aria;
    const tag = el.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") {
      const t = (el.getAttribute("type") || "").toLowerCase();
      if (tag === "INPUT" && (t === "button" || t === "submit" || t === "reset")) {
        return norm(el.value) || (t === "submit" ? "Submit" : t === "reset" ? "Reset" : "");
      }
      if (tag === "INPUT" && t === "image") return norm(el.getAttribute("alt")) || norm(el.title) || "Submit";
      if (el.labels && el.labels.length) {
        const n = norm([...el.labels].map((l) => textFrom(l, new Set([el]), false)).join(" "));
        if (n) return n;
      }
      return norm(el.title) || norm(el.getAttribute("placeholder"));
    }
    if (tag === "IMG" || tag === "AREA") return norm(el.getAttribute("alt")) || norm(el.title);
    if (tag === "FIELDSET") {
      const lg = el.querySelector(":scope > legend");
      if (lg) return norm(textFrom(lg, new Set(), false));
    }
    if (tag === "TABLE") {
      const c = el.querySelector(":scope > caption");
      if (c) return norm(textFrom(c, new Set(), false));
    }
    if (tag === "FIGURE") {
      const c = el.querySelector(":scope > figcaption");
      if (c) return norm(textFrom(c, new Set(), false));
    }
    const role = roleOf(el);
    if (nameFromContent.has(role) || tag === "SUMMARY") {
      const n = norm(textFrom(el, new Set(), false));
      if (n) return n;
    }
    return norm(el.title);
  }

  // --- locators -----------------------------------------------------------------------------

  function allElements(root) {
    const out = [];
    const walk = (r) => {
      for (const el of r.querySelectorAll("*")) {
        out.push(el);
        if (el.shadowRoot) walk(el.shadowRoot);
      }
    };
    walk(root || document);
    return out;
  }

  function ownText(el) {
    const t = el.tagName;
    if (t === "INPUT") {
      const ty = el.type;
      if (ty === "button" || ty === "submit" || ty === "reset") return el.value;
      return "";
    }
    return el.textContent;
  }

  // A quoted locator value matches the whole text; a bare one any part of it. Case counts in
  // both: "Username" is not "Email or username", and a heal must not find the wrong field.
  function textMatches(hay, want, exact) {
    return exact ? norm(hay) === norm(want) : norm(hay).includes(norm(want));
  }

  // resolve returns every element the locator matches, in document order; errors in the
  // selector itself are thrown so the Go side reports them as a bad step.
  function resolve(loc) {
    switch (loc.kind) {
      case "css":
        return [...document.querySelectorAll(loc.value)];
      case "xpath": {
        const r = document.evaluate(loc.value, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
        const out = [];
        for (let i = 0; i < r.snapshotLength; i++) {
          const n = r.snapshotItem(i);
          if (n.nodeType === 1) out.push(n);
          else if (n.parentElement) out.push(n.parentElement);
        }
        return [...new Set(out)];
      }
      case "text": {
        // The smallest elements holding the text: an element matches when its text does and
        // none of its element children's does.
        const els = allElements().filter((el) => !skipTags.has(el.tagName) && el.tagName !== "HTML" && el.tagName !== "BODY");
        const hits = new Set(els.filter((el) => textMatches(ownText(el), loc.value, loc.exact)));
        return [...hits].filter((el) => {
          for (const c of el.children) if (hits.has(c)) return false;
          return true;
        });
      }
      case "role": {
        const want = lower(loc.name);
        return allElements().filter((el) => roleOf(el) === loc.role && (!loc.name || lower(accessibleName(el)) === want));
      }
      case "label": {
        const out = new Set();
        for (const l of document.querySelectorAll("label")) {
          if (textMatches(textFrom(l, new Set(), false), loc.value, loc.exact) && l.control) out.add(l.control);
        }
        for (const el of document.querySelectorAll("[aria-labelledby]")) {
          const txt = byIds(el, "aria-labelledby").map((l) => textFrom(l, new Set([el]), true)).join(" ");
          if (textMatches(txt, loc.value, loc.exact)) out.add(el);
        }
        for (const el of document.querySelectorAll("[aria-label]")) {
          if (el.matches("input,select,textarea,[role],[contenteditable]") && textMatches(el.getAttribute("aria-label"), loc.value, loc.exact)) out.add(el);
        }
        return allElements().filter((el) => out.has(el));
      }
      case "placeholder":
        return [...document.querySelectorAll("[placeholder]")].filter((el) => textMatches(el.getAttribute("placeholder"), loc.value, loc.exact));
      case "testid":
        return [...document.querySelectorAll("[data-testid]")].filter((el) => el.getAttribute("data-testid") === loc.value);
    }
    throw new Error("unknown locator kind " + loc.kind);
  }

  function describe(el) {
    let s = el.tagName.toLowerCase();
    if (el.id) s += "#" + el.id;
    if (el.classList.length) s += "." + [...el.classList].slice(0, 3).join(".");
    const t = norm(el.innerText || "").slice(0, 40);
    return t ? s + ' "' + t + '"' : s;
  }

  // --- fingerprints -------------------------------------------------------------------------

  function xpathOf(el, stopAtID) {
    const parts = [];
    for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
      if (stopAtID && n.id) {
        parts.unshift("//*[@id='" + n.id + "']");
        return parts.join("/");
      }
      let i = 1;
      for (let s = n.previousElementSibling; s; s = s.previousElementSibling) if (s.tagName === n.tagName) i++;
      parts.unshift(n.tagName.toLowerCase() + "[" + i + "]");
    }
    return "/" + parts.join("/");
  }

  function isButtonish(el) {
    const tag = el.tagName;
    if (tag === "BUTTON") return true;
    if (tag === "INPUT" && ["button", "submit", "reset", "image"].includes(el.type)) return true;
    if (el.getAttribute("role") === "button") return true;
    return [...el.classList].some((c) => /(^|[-_])(btn|button)([-_]|$)/i.test(c));
  }

  // Text boxes of the page, collected once per call: the neighbour text of an element is the
  // text of the boxes around it, as in Similo.
  function textBoxes() {
    const out = [];
    if (!document.body) return out;
    const w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    for (let n = w.nextNode(); n && out.length < 4000; n = w.nextNode()) {
      const v = norm(n.nodeValue);
      if (!v) continue;
      const p = n.parentElement;
      if (!p || skipTags.has(p.tagName) || !isVisible(p)) continue;
      range.selectNodeContents(n);
      const r = range.getBoundingClientRect();
      if (r.width <= 0 || r.height <= 0) continue;
      out.push({ node: n, text: v, x: r.left + scrollX, y: r.top + scrollY, w: r.width, h: r.height });
    }
    return out;
  }

  // Neighbours are looked for close by first, then further out for an element that stands
  // alone (a submit button beside a field without text), and at last anywhere, nearest first.
  const neighborRadii = [50, 150, Infinity];

  function neighborWords(el, rect, boxes) {
    for (const radius of neighborRadii) {
      const w = neighborWithin(el, rect, boxes, radius);
      if (w.length) return w;
    }
    return [];
  }

  function neighborWithin(el, rect, boxes, radius) {
    const x0 = rect.x - radius, y0 = rect.y - radius;
    const x1 = rect.x + rect.width + radius, y1 = rect.y + rect.height + radius;
    const near = [];
    for (const b of boxes) {
      if (el.contains(b.node)) continue;
      if (b.x > x1 || b.x + b.w < x0 || b.y > y1 || b.y + b.h < y0) continue;
      const dx = Math.max(0, rect.x - (b.x + b.w), b.x - (rect.x + rect.width));
      const dy = Math.max(0, rect.y - (b.y + b.h), b.y - (rect.y + rect.height));
      near.push({ d: dx + dy, b });
    }
    near.sort((a, b) => a.d - b.d);
    const out = [];
    for (const { b } of near) {
      for (const wd of words(b.text)) {
        out.push(wd);
        if (out.length >= 30) return out;
      }
    }
    return out;
  }

  function visibleWords(el) {
    const tag = el.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA") {
      const t = el.type;
      if (t === "checkbox" || t === "radio") return [];
      return words(el.value || el.getAttribute("placeholder") || "", 50);
    }
    if (tag === "SELECT") {
      const o = el.selectedOptions && el.selectedOptions[0];
      return words(o ? o.textContent : "", 50);
    }
    if (tag === "IMG") return words(el.getAttribute("alt") || "", 50);
    return words(el.innerText || "", 50);
  }

  function fingerprint(el, boxes) {
    const r = el.getBoundingClientRect();
    const loc = { x: Math.round(r.left + scrollX), y: Math.round(r.top + scrollY), width: Math.round(r.width), height: Math.round(r.height) };
    const aria = {};
    let hasAria = false;
    for (const a of el.attributes) {
      if (a.name.startsWith("aria-")) { aria[a.name] = a.value; hasAria = true; }
    }
    const form = el.form || el.closest("form");
    const href = el.tagName === "A" || el.tagName === "AREA" ? (el.href || "") : (el.getAttribute("href") || "");
    return {
      tag: el.tagName.toUpperCase(),
      id: el.id || "",
      name: el.getAttribute("name") || "",
      classList: [...el.classList],
      href: href,
      alt: el.getAttribute("alt") || "",
      xpath: xpathOf(el, false),
      idxpath: xpathOf(el, true),
      isButton: isButtonish(el),
      location: loc,
      area: loc.width * loc.height,
      shape: loc.height > 0 ? Math.round((loc.width * 100) / loc.height) : 0,
      visibleText: visibleWords(el),
      neighborText: neighborWords(el, loc, boxes || textBoxes()),
      role: roleOf(el),
      accessibleName: accessibleName(el),
      testId: el.getAttribute("data-testid") || "",
      label: labelTexts(el).join(" "),
      placeholder: el.getAttribute("placeholder") || "",
      type: el.getAttribute("type") || "",
      title: el.getAttribute("title") || "",
      ariaAttributes: hasAria ? aria : undefined,
      formId: form ? form.id || "" : "",
      frame: "",
      ...controlState(el),
      ...(unusable(el) ? { inert: true } : {}),
    };
  }

  // unusable is an element on screen that a person cannot use now: fully transparent, inert,
  // hidden from assistive technology or not taking pointer events (a dialog still closed by
  // its styles, a panel behind a modal).
  function unusable(el) {
    if (el.checkVisibility && !el.checkVisibility({ opacityProperty: true })) return true;
    if (el.closest("[inert],[aria-hidden=true]")) return true;
    return getComputedStyle(el).pointerEvents === "none";
  }

  // controlState is what filling a form control needs to know: whether it is required, whether
  // its value fails the form's constraints now, its range, and a select's options that can be
  // picked (enabled, with a value).
  function controlState(el) {
    if (!["INPUT", "SELECT", "TEXTAREA"].includes(el.tagName)) return {};
    const out = {};
    if (el.required) out.required = true;
    if (el.matches(":invalid")) out.invalid = true;
    for (const a of ["min", "max"]) if (el.getAttribute(a)) out[a] = el.getAttribute(a);
    if (el.tagName === "SELECT") out.options = [...el.options].filter((o) => !o.disabled && o.value !== "").slice(0, 20).map((o) => o.value);
    return out;
  }

  // --- targeting for actions and reads ------------------------------------------------------

  let chosen = null;

  // target finds the one element a step acts on or reads, and says why not when it cannot:
  // none, hidden, ambiguous, disabled, not editable, covered by another element.
  function target(loc, mode) {
    const all = resolve(loc);
    const vis = all.filter(isVisible);
    const res = { count: all.length, visible: vis.length };
    if (!all.length) return Object.assign(res, { state: "none" });
    if (!vis.length) {
      if (mode !== "read") return Object.assign(res, { state: "hidden" });
      // A read takes a hidden element too (an empty status line has no box): it is the one read.
      chosen = all[0];
      return Object.assign(res, { state: "ok-hidden" });
    }
    if (vis.length > 1) return Object.assign(res, { state: "ambiguous", matches: vis.slice(0, 5).map(describe) });
    const el = vis[0];
    chosen = el;
    if (mode === "read") return Object.assign(res, { state: "ok" });
    if (mode !== "hover" && isDisabled(el)) return Object.assign(res, { state: "disabled" });
    if (mode === "press") {
      el.focus();
      return Object.assign(res, { state: "ok" });
    }
    if (mode === "fill") {
      const k = editKind(el);
      if (!k) return Object.assign(res, { state: "not-editable" });
      res.direct = k === "direct";
    }
    if (mode === "select" && el.tagName !== "SELECT") return Object.assign(res, { state: "not-select", what: describe(el) });
    if (mode === "check") {
      const isBox = (el.tagName === "INPUT" && (el.type === "checkbox" || el.type === "radio")) || ["checkbox", "radio", "switch", "menuitemcheckbox"].includes(roleOf(el));
      if (!isBox) return Object.assign(res, { state: "not-checkable", what: describe(el) });
    }
    let r = el.getBoundingClientRect();
    if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) {
      el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
      r = el.getBoundingClientRect();
    }
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    const hit = document.elementFromPoint(x, y);
    let h = hit;
    while (h && h.shadowRoot && h !== el) {
      const inner = h.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === h) break;
      h = inner;
    }
    const labelHit = h && el.labels && [...el.labels].some((l) => l.contains(h));
    if (h && h !== el && !el.contains(h) && !labelHit && !(el.shadowRoot && el.shadowRoot.contains(h))) {
      return Object.assign(res, { state: "covered", by: describe(h) });
    }
    res.state = "ok";
    res.x = x;
    res.y = y;
    if (mode === "fill") {
      el.focus();
      if (el.isContentEditable) {
        const sel = getSelection();
        sel.removeAllRanges();
        const rg = document.createRange();
        rg.selectNodeContents(el);
        sel.addRange(rg);
      } else if (!res.direct && typeof el.select === "function") {
        el.select();
      }
    }
    if (mode === "check") res.checked = checkedState(el);
    return res;
  }

  function checkedState(el) {
    if (el.tagName === "INPUT") return el.checked;
    return el.getAttribute("aria-checked") === "true";
  }

  function fire(el, type) {
    el.dispatchEvent(new Event(type, { bubbles: true }));
  }

  // Setting value through the prototype's setter lets frameworks that wrap the property (React)
  // see the change.
  function setNativeValue(el, v) {
    const proto = Object.getPrototypeOf(el);
    const desc = Object.getOwnPropertyDescriptor(proto, "value");
    if (desc && desc.set) desc.set.call(el, v); else el.value = v;
  }

  // --- toasts, modals and validation --------------------------------------------------------

  // A toast is a status message: an element that says so. An <output> holds a result (a total),
  // not a message, so it is not one.
  const toastSel = '[role="status"],[role="alert"],[aria-live]:not([aria-live="off"])';
  const modalSel = '[role="dialog"],[role="alertdialog"],[aria-modal="true"],dialog[open]';

  // modalText is what an assertModal is matched against: the dialog's accessible name
  // (aria-labelledby, aria-label, title), which users write as often as its visible text, and
  // that text.
  function modalText(el) {
    const text = norm(el.innerText);
    const ll = byIds(el, "aria-labelledby");
    const name = (ll.length ? norm(ll.map((l) => textFrom(l, new Set([el]), true)).join(" ")) : "") ||
      norm(el.getAttribute("aria-label")) || norm(el.title);
    if (!name || text.includes(name)) return text;
    return text ? name + " — " + text : name;
  }

  function visibleTexts(sel) {
    return [...document.querySelectorAll(sel)].filter(isVisible).map((el) => norm(el.innerText)).filter(Boolean);
  }

  const lastSeen = new WeakMap();
  let scanQueued = false;
  function scanLive() {
    scanQueued = false;
    if (typeof window.__dgEmit !== "function") return;
    for (const [kind, sel] of [["toast", toastSel], ["modal", modalSel]]) {
      for (const el of document.querySelectorAll(sel)) {
        const t = !isVisible(el) ? "" : kind === "modal" ? modalText(el) : norm(el.innerText);
        if (t && lastSeen.get(el) !== t) {
          lastSeen.set(el, t);
          try { window.__dgEmit(JSON.stringify({ kind, text: t.slice(0, 2000) })); } catch (e) { /* binding gone with the page */ }
        } else if (!t) {
          lastSeen.delete(el);
        }
      }
    }
  }
  new MutationObserver(() => {
    if (!scanQueued) {
      scanQueued = true;
      setTimeout(scanLive, 0);
    }
  }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ["role", "aria-live", "aria-modal", "open", "hidden", "style", "class"] });

  // --- quiet --------------------------------------------------------------------------------

  // lastChange is when the document last changed in any way: a page that stopped changing and
  // has no request in flight will not show a missing element by waiting longer.
  let lastChange = performance.now();
  new MutationObserver(() => { lastChange = performance.now(); })
    .observe(document, { subtree: true, childList: true, characterData: true, attributes: true });

  // quiet says how long the document has been unchanged and how many visible elements the
  // given locators match between them (a locator the browser rejects matches nothing).
  function quiet(locs) {
    let matches = 0;
    for (const l of locs || []) {
      try { matches += resolve(l).filter(isVisible).length; } catch (e) { /* an invalid selector matches nothing */ }
    }
    return { still: Math.round(performance.now() - lastChange), matches };
  }

  function validation(loc) {
    const t = target(loc, "read");
    if (t.state !== "ok" && t.state !== "ok-hidden") return t;
    const el = chosen;
    const messages = [];
    let invalid = el.getAttribute("aria-invalid") === "true";
    if (typeof el.checkValidity === "function" && el.matches(":invalid")) {
      invalid = true;
      if (el.validationMessage) messages.push(el.validationMessage);
    }
    for (const ref of [...byIds(el, "aria-describedby"), ...byIds(el, "aria-errormessage")]) {
      if (isVisible(ref)) {
        const m = norm(ref.innerText);
        if (m) messages.push(m);
      }
    }
    return Object.assign(t, { invalid, messages });
  }

  // --- snapshot -----------------------------------------------------------------------------

  const interactiveSel = "a[href],button,input:not([type=hidden]),select,textarea,summary,label,[role],[onclick],[tabindex],[contenteditable=''],[contenteditable=true],[data-testid]";

  function hasOwnText(el) {
    for (const c of el.childNodes) if (c.nodeType === 3 && c.nodeValue.trim()) return true;
    return el.tagName === "IMG" && !!el.getAttribute("alt");
  }

  function snapshot(maxCount, maxText) {
    const boxes = textBoxes();
    const candidates = [];
    let truncated = false;
    for (const el of allElements()) {
      if (skipTags.has(el.tagName) || el.tagName === "HTML" || el.tagName === "BODY") continue;
      if (!(el.matches(interactiveSel) || hasOwnText(el))) continue;
      if (!isVisible(el)) continue;
      if (candidates.length >= maxCount) { truncated = true; break; }
      candidates.push(fingerprint(el, boxes));
    }
    const text = document.body ? document.body.innerText || "" : "";
    if (text.length > maxText) truncated = true;
    return { url: location.href, title: document.title, candidates, text: text.slice(0, maxText), truncated };
  }

  const dg = {
    target,
    fingerprint: () => (chosen && chosen.isConnected ? fingerprint(chosen) : null),
    // visibility for assertVisible/assertHidden/wait: how many match, and the texts of the
    // visible ones, so the Go side can filter by text and report what it saw.
    visibility(loc) {
      const all = resolve(loc);
      const vis = all.filter(isVisible);
      if (vis.length) chosen = vis[0];
      return { count: all.length, visible: vis.length, texts: vis.slice(0, 20).map((el) => norm(el.innerText || el.value || "")) };
    },
    read(loc, what, attr) {
      const t = target(loc, "read");
      if (t.state !== "ok" && t.state !== "ok-hidden") return t;
      const el = chosen;
      let v;
      if (attr) v = el.getAttribute(attr);
      else if (what === "value") v = "value" in el ? String(el.value) : el.getAttribute("value");
      else if (el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT") v = el.value;
      else v = norm(t.state === "ok" ? el.innerText : el.textContent);
      return Object.assign(t, { value: v == null ? null : String(v) });
    },
    afterFill(value, direct) {
      const el = chosen;
      if (!el) return { value: "" };
      if (direct) {
        setNativeValue(el, value);
        fire(el, "input");
      }
      fire(el, "change");
      return { value: el.isContentEditable ? norm(el.innerText) : String(el.value) };
    },
    selectOption(value) {
      const el = chosen;
      const opts = [...el.options];
      let o = opts.find((x) => x.value === value) || opts.find((x) => norm(x.textContent) === norm(value)) || opts.find((x) => lower(x.textContent) === lower(value));
      if (!o) return { ok: false, options: opts.slice(0, 20).map((x) => norm(x.textContent) + (x.value !== norm(x.textContent) ? " (" + x.value + ")" : "")) };
      if (o.disabled) return { ok: false, disabled: norm(o.textContent), options: [] };
      el.focus();
      setNativeValue(el, o.value);
      fire(el, "input");
      fire(el, "change");
      return { ok: true, value: o.value, label: norm(o.textContent) };
    },
    checked: () => (chosen ? checkedState(chosen) : null),
    focus: () => { if (chosen) chosen.focus(); return true; },
    modals: () => [...document.querySelectorAll(modalSel)].filter(isVisible).map(modalText).filter(Boolean),
    // modalsIn narrows the modals to those a locator matches (or that contain its element); an
    // element in no dialog is no modal.
    modalsIn(loc) {
      return resolve(loc).filter(isVisible).map((el) => (el.matches(modalSel) ? el : el.closest(modalSel))).filter(Boolean).map(modalText).filter(Boolean);
    },
    // toastsIn narrows the status messages to those a locator matches (or that contain its
    // element); an element in no status message is no toast.
    toastsIn(loc) {
      return resolve(loc).filter(isVisible).map((el) => (el.matches(toastSel) ? el : el.closest(toastSel))).filter(Boolean).map((el) => norm(el.innerText)).filter(Boolean);
    },
    validation,
    quiet,
    snapshot,
    // resolved is what a locator finds now, for a radar sweep: counts, the first visible
    // matches' fingerprints, and what covers the one visible match (an overlay).
    resolved(loc, max) {
      const all = resolve(loc);
      const vis = all.filter(isVisible);
      const boxes = textBoxes();
      const res = { count: all.length, visible: vis.length, elements: vis.slice(0, max).map((el) => fingerprint(el, boxes)) };
      if (vis.length === 1) {
        const t = target(loc, "hover");
        if (t.state === "covered") res.coveredBy = t.by;
      }
      return res;
    },
    scopeElement(loc) {
      const t = target(loc, "read");
      return t.state === "ok" || t.state === "ok-hidden" ? Object.assign(t, { ok: true }) : t;
    },
    chosen: () => chosen,
    page: () => ({ url: location.href, title: document.title, ready: document.readyState }),
  };
  Object.defineProperty(window, "__dg", { value: dg, enumerable: false, configurable: false });
})();
