// The gardener's in-page runtime: locators, actionability, fingerprints, the DOM snapshot and the
// observers for toasts and modals. It is installed in every document of a replay before the
// page's own scripts run, and its entry points return plain JSON so the Go side reads them by
// value. One fingerprint function serves both the step records and the snapshot, so what a green
// run recorded and what a later snapshot lists are always comparable. Locators pierce open shadow
// roots, and a locator with a frame path resolves in the same-origin iframe it names, through that
// document's own runtime.
(function dgRuntime() {
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
      if (tag === "INPUT" && t === "image") return norm(el.getAttribute("alt")) || norm(el.getAttribute("title")) || "Submit";
      if (el.labels && el.labels.length) {
        const n = norm([...el.labels].map((l) => textFrom(l, new Set([el]), false)).join(" "));
        if (n) return n;
      }
      return norm(el.getAttribute("title")) || norm(el.getAttribute("placeholder"));
    }
    if (tag === "IMG" || tag === "AREA") return norm(el.getAttribute("alt")) || norm(el.getAttribute("title"));
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
    return norm(el.getAttribute("title"));
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

  // shadowRoots lists the open shadow roots of the document, nested ones included.
  function shadowRoots() {
    const out = [];
    const walk = (r) => {
      for (const el of r.querySelectorAll("*")) {
        if (el.shadowRoot) {
          out.push(el.shadowRoot);
          walk(el.shadowRoot);
        }
      }
    };
    walk(document);
    return out;
  }

  // queryAll is querySelectorAll over the document and every open shadow root, in document
  // order (a shadow root's elements right after their host). A selector matches within one tree:
  // its combinators do not cross a shadow boundary.
  function queryAll(sel) {
    const roots = shadowRoots();
    if (!roots.length) return [...document.querySelectorAll(sel)];
    const hits = new Set(document.querySelectorAll(sel));
    for (const r of roots) for (const el of r.querySelectorAll(sel)) hits.add(el);
    return allElements().filter((el) => hits.has(el));
  }

  // closestComposed is closest() that climbs out of shadow roots through their hosts: a button
  // in a dialog component is in that dialog.
  function closestComposed(el, sel) {
    for (let n = el; n; ) {
      const hit = n.closest(sel);
      if (hit) return hit;
      const root = n.getRootNode();
      n = root && root.host ? root.host : null;
    }
    return null;
  }

  function xpathNodes(expr, ctx, out) {
    const r = document.evaluate(expr, ctx, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    for (let k = 0; k < r.snapshotLength; k++) {
      const n = r.snapshotItem(k);
      if (n.nodeType === 1) out.push(n);
      else if (n.parentElement) out.push(n.parentElement);
    }
  }

  // evaluateXPath finds the elements of an XPath; a path a fingerprint wrote for an element in a
  // shadow root ("…/my-widget[1]/#shadow-root/div[1]/button[1]") goes on inside each matched
  // host's shadow root. XPath takes no shadow root as its context, so the part inside one starts
  // from the root's child elements: its first step picks among them, or a "//" searches them.
  function evaluateXPath(path) {
    let ctxs = [document];
    path.split("/#shadow-root").forEach((seg, i) => {
      const next = [];
      for (const c of ctxs) {
        if (i === 0) {
          xpathNodes(seg, c, next);
          continue;
        }
        if (!c.shadowRoot) continue;
        const kids = [...c.shadowRoot.children];
        if (seg.startsWith("//")) {
          for (const k of kids) xpathNodes("descendant-or-self::" + seg.slice(2), k, next);
          continue;
        }
        const m = /^\/([A-Za-z][\w-]*)\[(\d+)\](.*)$/.exec(seg);
        if (!m) continue;
        const hit = kids.filter((k) => k.tagName.toLowerCase() === m[1].toLowerCase())[Number(m[2]) - 1];
        if (!hit) continue;
        if (m[3]) xpathNodes("." + m[3], hit, next);
        else next.push(hit);
      }
      ctxs = [...new Set(next)];
    });
    return ctxs;
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
        return queryAll(loc.value);
      case "xpath":
        return evaluateXPath(loc.value);
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
        // name*="…" (nameContains) takes a name holding the text: the part of a name that stays
        // when the rest carries live data ("Cart" of "Cart (3)").
        const named = (el) => (loc.nameContains ? lower(accessibleName(el)).includes(want) : lower(accessibleName(el)) === want);
        if (loc.role === "*") return innermost(allElements().filter((el) => namedRole(roleOf(el)) && named(el)));
        return allElements().filter((el) => roleOf(el) === loc.role && (!loc.name || named(el)));
      }
      case "label": {
        const out = new Set();
        for (const l of queryAll("label")) {
          if (textMatches(textFrom(l, new Set(), false), loc.value, loc.exact) && l.control) out.add(l.control);
        }
        for (const el of queryAll("[aria-labelledby]")) {
          const txt = byIds(el, "aria-labelledby").map((l) => textFrom(l, new Set([el]), true)).join(" ");
          if (textMatches(txt, loc.value, loc.exact)) out.add(el);
        }
        for (const el of queryAll("[aria-label]")) {
          if (el.matches("input,select,textarea,[role],[contenteditable]") && textMatches(el.getAttribute("aria-label"), loc.value, loc.exact)) out.add(el);
        }
        return allElements().filter((el) => out.has(el));
      }
      case "placeholder":
        return queryAll("[placeholder]").filter((el) => textMatches(el.getAttribute("placeholder"), loc.value, loc.exact));
      case "testid":
        return queryAll("[data-testid]").filter((el) => el.getAttribute("data-testid") === loc.value);
    }
    throw new Error("unknown locator kind " + loc.kind);
  }

  // namedRole is a role whose element an accessible name alone may find (role=*[name=…]): any
  // role but none at all, presentation and the generic containers, which the accessibility tree
  // does not expose as elements of their own.
  function namedRole(role) {
    return role !== "" && role !== "presentation" && role !== "none" && role !== "generic";
  }

  // innermost keeps, of elements that nest, the innermost: a cell and the link inside it both
  // named by the link's text are one thing to a person, and the link is what they act on.
  function innermost(els) {
    return els.filter((el) => !els.some((o) => o !== el && composedContains(el, o)));
  }

  // idOf reads an element's id from its attribute. The id property of a <form> is clobbered by
  // a control of that name: a row action's <form><input type="hidden" name="id"> answers
  // form.id with the input element, which made every fingerprint of an element in such a form
  // undecodable and its step fail as "no element matches". The title property is clobbered the
  // same way, so it is read from its attribute too.
  function idOf(el) {
    return el.getAttribute("id") || "";
  }

  function describe(el) {
    let s = el.tagName.toLowerCase();
    if (idOf(el)) s += "#" + idOf(el);
    if (el.classList.length) s += "." + [...el.classList].slice(0, 3).join(".");
    const t = norm(el.innerText || "").slice(0, 40);
    return t ? s + ' "' + t + '"' : s;
  }

  // --- fingerprints -------------------------------------------------------------------------

  // xpathOf writes an element's path; inside a shadow root it is the host's path, then
  // "/#shadow-root", then the path within the root, which evaluateXPath reads back.
  function xpathOf(el, stopAtID) {
    const parts = [];
    let inner = "";
    for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
      if (stopAtID && idOf(n)) {
        parts.unshift("//*[@id='" + idOf(n) + "']");
        inner = parts.join("/");
        break;
      }
      let i = 1;
      for (let s = n.previousElementSibling; s; s = s.previousElementSibling) if (s.tagName === n.tagName) i++;
      parts.unshift(n.tagName.toLowerCase() + "[" + i + "]");
    }
    if (!inner) inner = "/" + parts.join("/");
    const root = el.getRootNode();
    return root && root.host ? xpathOf(root.host, stopAtID) + "/#shadow-root" + inner : inner;
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
    const form = el.form || closestComposed(el, "form");
    const href = el.tagName === "A" || el.tagName === "AREA" ? (el.href || "") : (el.getAttribute("href") || "");
    return {
      tag: el.tagName.toUpperCase(),
      id: idOf(el),
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
      formId: form ? idOf(form) : "",
      frame: "",
      ...controlState(el),
      ...(unusable(el) ? { inert: true } : {}),
      ...(openModals().some((d) => composedContains(d, el)) ? { modal: true } : {}),
    };
  }

  // unusable is an element on screen that a person cannot use now: fully transparent, inert,
  // hidden from assistive technology, not taking pointer events (a dialog still closed by its
  // styles, a panel behind a modal), or outside the modal dialog open on the page (what
  // aria-modal declares: the rest of the page is inert while it is open).
  function unusable(el) {
    if (!present(el)) return true;
    const m = openModals();
    return m.length > 0 && !m.some((d) => composedContains(d, el));
  }

  // present is an element a person can see and reach, modals aside: not transparent, inert,
  // hidden from assistive technology or ignoring the pointer.
  function present(el) {
    if (el.checkVisibility && !el.checkVisibility({ opacityProperty: true })) return false;
    if (closestComposed(el, "[inert],[aria-hidden=true]")) return false;
    return getComputedStyle(el).pointerEvents !== "none";
  }

  // modalsOpen caches the open modal dialogs for one snapshot; null outside one.
  let modalsOpen = null;

  // openModals are the visible modal dialogs: aria-modal ones and <dialog>s opened as modal. A
  // dialog still closed by its styles (transparent, aria-hidden, ignoring the pointer) makes
  // nothing else inert: many apps keep their confirmation dialogs in the page that way.
  function openModals() {
    if (modalsOpen) return modalsOpen;
    return queryAll('[aria-modal="true"],dialog:modal').filter((d) => isVisible(d) && present(d));
  }

  // composedContains is contains() across shadow roots: el is in the subtree of a, or in a
  // shadow root hosted there, or slotted into a slot inside a (a form a dialog component shows
  // through its <slot> is in the dialog as rendered, though not in its shadow tree).
  function composedContains(a, el) {
    for (let n = el; n; ) {
      if (a.contains(n)) return true;
      if (n.assignedSlot) {
        n = n.assignedSlot;
      } else if (n.parentElement) {
        n = n.parentElement;
      } else {
        const root = n.getRootNode();
        n = root && root.host ? root.host : null;
      }
    }
    return false;
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
    // A radio button's or checkbox's value attribute is what its form sends for it: it names
    // the choice in its group whatever its label or id say.
    if (el.tagName === "INPUT" && (el.type === "radio" || el.type === "checkbox") && el.hasAttribute("value")) out.value = el.getAttribute("value");
    return out;
  }

  // --- targeting for actions and reads ------------------------------------------------------

  let chosen = null;
  // coverer is the layer over the element target last found covered (see layerOf), or null.
  let coverer = null;

  // target finds the one element a step acts on or reads, and says why not when it cannot:
  // none, hidden, ambiguous, disabled, not editable, covered by another element.
  function target(loc, mode) {
    coverer = null;
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
    if (mode === "set") {
      // A set step acts as the step the control needs: the element decides.
      res.control = controlOf(el);
      if (!res.control) return Object.assign(res, { state: "not-settable", what: describe(el) });
      if (res.control === "checkbox" || res.control === "radio") res.boxValue = el.tagName === "INPUT" ? el.value : "";
      mode = { select: "select", checkbox: "check", radio: "check", text: "fill" }[res.control];
    }
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
    if (mode === "check" && !boxKind(el)) return Object.assign(res, { state: "not-checkable", what: describe(el) });
    let r = el.getBoundingClientRect();
    if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) {
      el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
      r = el.getBoundingClientRect();
    }
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    const h = hitAt(x, y, el);
    if (!reaches(el, h)) {
      coverer = layerOf(h, el);
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

  // boxKind is "radio" for a radio button, "checkbox" for a checkbox, switch or checkable menu
  // item, "" for anything else.
  function boxKind(el) {
    const role = roleOf(el);
    if ((el.tagName === "INPUT" && el.type === "radio") || role === "radio") return "radio";
    if ((el.tagName === "INPUT" && el.type === "checkbox") || ["checkbox", "switch", "menuitemcheckbox"].includes(role)) return "checkbox";
    return "";
  }

  // controlOf is which control a set step finds: a select, a checkbox or radio button, or
  // something text is typed into; "" when it is none of them.
  function controlOf(el) {
    if (el.tagName === "SELECT") return "select";
    const box = boxKind(el);
    if (box) return box;
    return editKind(el) ? "text" : "";
  }

  // layerOf is the whole of what covers el where the pointer found h: the outermost element
  // around h that does not hold el too (a consent overlay's root, not the text box inside it
  // the pointer happened to reach), so a repair can look for the overlay's own buttons in it.
  function layerOf(h, el) {
    let n = h;
    for (;;) {
      const root = n.getRootNode();
      const up = n.parentElement || (root && root.host) || null;
      if (!up || up === document.body || up === document.documentElement || composedContains(up, el)) return n;
      n = up;
    }
  }

  // reaches says whether a pointer that hit h reached el: h is el, inside it, in its shadow
  // root or its label.
  function reaches(el, h) {
    if (!h || h === el || el.contains(h)) return true;
    if (el.labels && [...el.labels].some((l) => l.contains(h))) return true;
    return !!(el.shadowRoot && el.shadowRoot.contains(h));
  }

  // uncovered says whether a pointer at the centre of a visible element reaches it now, or
  // could without anyone dismissing what is in the way. One outside the viewport counts as
  // uncovered: an action scrolls it into view before it looks. Only a layer that blocks the
  // page counts as covering: an open modal, or a layer over at least half the viewport (a
  // consent overlay, a backdrop). A small one (a toast, a tooltip) often goes by itself on a
  // timer, with nothing changing in between, so the step waits for it as before.
  function uncovered(el) {
    const r = el.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return true;
    const h = hitAt(x, y, el);
    if (reaches(el, h)) return true;
    const layer = layerOf(h, el);
    if (openModals().some((d) => composedContains(d, layer) || composedContains(layer, d))) return false;
    const b = layer.getBoundingClientRect();
    const w = Math.max(0, Math.min(b.right, innerWidth) - Math.max(b.left, 0));
    const hgt = Math.max(0, Math.min(b.bottom, innerHeight) - Math.max(b.top, 0));
    return w * hgt < (innerWidth * innerHeight) / 2;
  }

  // hitAt is the element a pointer at (x, y) reaches, inside open shadow roots, stopping at el.
  function hitAt(x, y, el) {
    let h = document.elementFromPoint(x, y);
    while (h && h.shadowRoot && h !== el) {
      const inner = h.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === h) break;
      h = inner;
    }
    return h;
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

  // --- observing the document and its shadow roots -----------------------------------------

  // A mutation observer on the document does not see inside shadow roots, so every observer is
  // also attached to each open root there is and each one attached later: the runtime wraps
  // attachShadow, being installed before the page's own scripts.
  const observers = [];
  function observeAll(obs, opts) {
    observers.push([obs, opts]);
    obs.observe(document, opts);
    for (const r of shadowRoots()) obs.observe(r, opts);
  }
  const attachShadow = Element.prototype.attachShadow;
  if (attachShadow) {
    Element.prototype.attachShadow = function (init) {
      const root = attachShadow.call(this, init);
      if (init && init.mode === "open") for (const [o, opts] of observers) o.observe(root, opts);
      return root;
    };
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
      norm(el.getAttribute("aria-label")) || norm(el.getAttribute("title"));
    if (!name || text.includes(name)) return text;
    return text ? name + " — " + text : name;
  }

  const lastSeen = new WeakMap();
  let scanQueued = false;
  function scanLive() {
    scanQueued = false;
    if (typeof window.__dgEmit !== "function") return;
    for (const [kind, sel] of [["toast", toastSel], ["modal", modalSel]]) {
      for (const el of queryAll(sel)) {
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
  observeAll(new MutationObserver(() => {
    if (!scanQueued) {
      scanQueued = true;
      setTimeout(scanLive, 0);
    }
  }), { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ["role", "aria-live", "aria-modal", "open", "hidden", "style", "class"] });

  // --- quiet --------------------------------------------------------------------------------

  // lastChange is when the document last changed in any way: a page that stopped changing and
  // has no request in flight will not show a missing element by waiting longer. A change that
  // leaves the document as it was is none: a page that polls writes the same status, the same
  // list, the same attribute again every time its answer comes, and no element can appear that
  // way.
  //
  // lastShape is when an element last came, went or changed an attribute: the only changes that
  // can make a CSS selector, a test id or a role without a name match. A clock or a counter that
  // rewrites its text every few hundred milliseconds changes the document all the time, and a
  // step waiting for a renamed id on such a page waited out its whole limit. What text changed
  // is kept for textLog (recentText), so that a locator by name or text waits for text that
  // could make it match (text holding one of its words), not for a clock's digits.
  let lastChange = performance.now();
  let lastShape = lastChange;
  const recentText = [];
  const textLog = 2500; // ms; longer than the runner's longest quiet window (2 s)
  let textLost = -Infinity; // when recentText last had to drop a change younger than textLog
  observeAll(new MutationObserver((records) => {
    const now = performance.now();
    for (const m of records) {
      if (!changes(m)) continue;
      lastChange = now;
      if (!textOnly(m)) {
        lastShape = now;
        continue;
      }
      recentText.push({ t: now, text: changedText(m), node: m.target });
    }
    while (recentText.length && (recentText[0].t < now - textLog || recentText.length > 200)) {
      if (recentText[0].t >= now - textLog) textLost = recentText[0].t;
      recentText.shift();
    }
  }), { subtree: true, childList: true, characterData: true, attributes: true, characterDataOldValue: true, attributeOldValue: true });

  // textOnly says whether a mutation record changed text alone: a text node's data, or text
  // nodes (and comments) swapped for others, as setting textContent does. No element came or
  // went, and no attribute changed.
  function textOnly(m) {
    if (m.type === "characterData") return true;
    if (m.type !== "childList") return false;
    for (const n of m.addedNodes) if (n.nodeType === 1) return false;
    for (const n of m.removedNodes) if (n.nodeType === 1) return false;
    return true;
  }

  // changedText is the text a text-only change wrote and the text it took away, cut short.
  function changedText(m) {
    const parts = m.type === "characterData" ? [m.target.data, m.oldValue] :
      [...m.addedNodes, ...m.removedNodes].map((n) => (n.nodeType === 3 ? n.data : ""));
    return parts.join(" ").slice(0, 400);
  }

  // wordsOf are the words of a text, lower case: runs of letters and digits, those of one
  // character left out when there are longer ones (they are in almost any text).
  const wordsOf = (s) => {
    const all = lower(s).match(/[\p{L}\p{N}]+/gu) || [];
    const long = all.filter((w) => w.length > 1);
    return long.length ? long : all;
  };

  // textWords says what text a locator could come to match by: null when no text can make it
  // match (a test id, a placeholder, a role without a name, a CSS selector that does not look at
  // text nodes: :empty does, and :has can hold it), the words of its name or text, or no words
  // when any text could (an XPath can test text any way it likes).
  function textWords(l) {
    switch (l.kind) {
      case "testid": case "placeholder": return null;
      case "css": return /:empty|:has\(/i.test(l.value || "") ? [] : null;
      case "role": return l.name ? wordsOf(l.name) : null;
      case "text": case "label": return wordsOf(l.value);
    }
    return [];
  }

  // textStill is when the document's shape last changed, or text that matters to one of locs:
  // text that could make it match, and, for a locator whose elements' content the step waits
  // for (content), text inside those elements. It is lastChange when any text could matter.
  // Text dropped from recentText counts as text that matters.
  function textStill(locs) {
    const names = [];
    const holders = [];
    for (const l of locs) {
      const w = textWords(l);
      if (w && !w.length) return lastChange;
      if (w) names.push(w);
      if (l.content) {
        try { holders.push(...resolve(l)); } catch (e) { /* an invalid selector holds nothing */ }
      }
    }
    if (!names.length && !holders.length) return lastShape;
    let since = Math.max(lastShape, textLost);
    // Text holding one of a name's words may complete it: "Save" replacing "Saving…", or a
    // word of a language written without spaces inside a longer run.
    const matters = (c) => holders.some((el) => el.contains(c.node)) ||
      names.some((n) => { const t = lower(c.text); return n.some((w) => t.includes(w)); });
    for (const c of recentText) {
      if (c.t > since && matters(c)) since = c.t;
    }
    return since;
  }

  // changes says whether one mutation record left the document different: an attribute or a
  // text set to the value it had, or children replaced by the same markup, did not.
  function changes(m) {
    if (m.type === "attributes") return m.target.getAttribute(m.attributeName) !== m.oldValue;
    if (m.type === "characterData") return m.target.data !== m.oldValue;
    return !sameNodes(m.removedNodes, m.addedNodes);
  }

  // sameNodes says whether two runs of nodes are the same markup, node by node: elements by
  // isEqualNode (name, attributes, children), texts by their text, other nodes by their kind.
  // It runs on every batch of mutations, so it serialises nothing: a page that renders adds
  // children where none were removed, which differs at once, and a real change differs at its
  // first unequal node instead of after the markup of every node on both sides.
  function sameNodes(removed, added) {
    if (removed.length !== added.length) return false;
    for (let i = 0; i < removed.length; i++) {
      const a = removed[i], b = added[i];
      if (a.nodeType !== b.nodeType) return false;
      if (a.nodeType === 1 ? !a.isEqualNode(b) : a.nodeType === 3 && a.data !== b.data) return false;
    }
    return true;
  }

  // quiet says how long the document has been unchanged (in its shape and in the text that
  // matters to the locators: see textStill), how many visible elements the locators match
  // between them that a pointer can reach (a locator the browser rejects matches nothing; one
  // whose content the step waits for is not counted), and how many visible elements say the
  // page is still busy (a progress bar, an aria-busy region). An element under a layer that blocks the page (a consent
  // overlay, a modal: see uncovered) is not counted: on a page that has not changed for the
  // quiet window that layer is not going away by itself, and a step waiting for it waited out
  // its whole limit, once for every covered step a repair climbs past.
  function quiet(locs) {
    let matches = 0;
    for (const l of (locs || []).filter((l) => !l.content)) {
      try { matches += resolve(l).filter((el) => isVisible(el) && uncovered(el)).length; } catch (e) { /* an invalid selector matches nothing */ }
    }
    const busy = [...document.querySelectorAll('[role="progressbar"], progress, [aria-busy="true"]')].filter(isVisible).length;
    // Text changing on a page does not bring an element that only its tag, id, class or
    // attributes can name, nor one named by words the changed text does not have.
    const since = locs && locs.length ? textStill(locs) : lastChange;
    const now = performance.now();
    return { still: Math.round(now - since), changed: Math.round(now - lastChange), matches, busy };
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
    modalsOpen = openModals();
    try {
      return snapshotOf(maxCount, maxText);
    } finally {
      modalsOpen = null;
    }
  }

  function snapshotOf(maxCount, maxText) {
    const boxes = textBoxes();
    const candidates = [];
    let truncated = false;
    for (const el of allElements()) {
      if (skipTags.has(el.tagName) || el.tagName === "HTML" || el.tagName === "BODY") continue;
      if (!(el.matches(interactiveSel) || hasOwnText(el))) continue;
      if (!isVisible(el)) continue;
      if (candidates.length >= maxCount) { truncated = true; break; }
      const fp = fingerprint(el, boxes);
      // A control a pointer cannot reach for the layer over it (a consent overlay, a modal):
      // whatever the step's element is called now, that layer has to go first.
      if (el.matches(interactiveSel) && !uncovered(el)) fp.covered = true;
      candidates.push(fp);
    }
    const text = document.body ? document.body.innerText || "" : "";
    if (text.length > maxText) truncated = true;
    return { url: location.href, title: document.title, candidates, text: text.slice(0, maxText), truncated };
  }

  const local = {
    target,
    fingerprint: () => (chosen && chosen.isConnected ? fingerprint(chosen) : null),
    covering: () => (coverer && coverer.isConnected ? fingerprint(coverer) : null),
    // visibility for assertVisible/assertHidden/wait: how many match, and the texts of the
    // visible ones, so the Go side can filter by text and report what it saw.
    visibility(loc) {
      const all = resolve(loc);
      const vis = all.filter(isVisible);
      if (vis.length) chosen = vis[0];
      // loading: the parser has not reached the end of the document (a script in its head is
      // still on its way), so what is not on the page yet may still come.
      return { count: all.length, visible: vis.length, texts: vis.slice(0, 20).map((el) => norm(el.innerText || el.value || "")), loading: document.readyState === "loading" };
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
    modals: () => queryAll(modalSel).filter(isVisible).map(modalText).filter(Boolean),
    // modalsIn narrows the modals to those a locator matches (or that contain its element); an
    // element in no dialog is no modal.
    modalsIn(loc) {
      return resolve(loc).filter(isVisible).map((el) => closestComposed(el, modalSel)).filter(Boolean).map(modalText).filter(Boolean);
    },
    // toastsIn narrows the status messages to those a locator matches (or that contain its
    // element); an element in no status message is no toast.
    toastsIn(loc) {
      return resolve(loc).filter(isVisible).map((el) => closestComposed(el, toastSel)).filter(Boolean).map((el) => norm(el.innerText)).filter(Boolean);
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
    frameElement,
    frameSelector,
  };

  // --- frames -------------------------------------------------------------------------------

  const frameTags = new Set(["IFRAME", "FRAME"]);

  function frameElements() {
    return allElements().filter((el) => frameTags.has(el.tagName));
  }

  // frameElement finds the iframe one step of a frame path names: a CSS selector (the first
  // visible match that is a frame), or a number, the frame's index among the document's frames
  // in document order.
  function frameElement(sel) {
    if (/^\d+$/.test(sel)) return frameElements()[Number(sel)] || null;
    const all = queryAll(sel).filter((el) => frameTags.has(el.tagName));
    return all.find(isVisible) || all[0] || null;
  }

  // frameSelector names an iframe as a frame path step: by its id, else by a name or title only
  // it has, else by its index.
  function frameSelector(el) {
    if (/^[A-Za-z][A-Za-z0-9_-]*$/.test(idOf(el))) return "#" + idOf(el);
    const tag = el.tagName.toLowerCase();
    for (const a of ["name", "title"]) {
      const v = el.getAttribute(a);
      if (!v) continue;
      const sel = tag + "[" + a + '="' + v.replace(/["\\]/g, "\\$&") + '"]';
      if (queryAll(sel).length === 1) return sel;
    }
    return String(frameElements().indexOf(el));
  }

  // childRuntime is the runtime of a same-origin frame's document, installed there if that
  // document has none yet (one written by script); null for a frame of another origin.
  function childRuntime(el) {
    let w;
    try {
      w = el.contentWindow;
      if (!w || !w.document) return null;
      if (!w.__dg) w.eval("(" + dgRuntime.toString() + ")()");
    } catch (e) {
      return null;
    }
    return w.__dg || null;
  }

  // enter walks a frame path from this document: the runtime of the document it names, the
  // offset of that document's viewport in this one's, the outermost iframe, the frame's window
  // and the path as the snapshot writes it; or why the path leads nowhere.
  function enter(path) {
    let rt = local, x = 0, y = 0, top = null, win = window;
    const canon = [];
    for (const sel of path.split(" >> ")) {
      const el = rt.frameElement(sel);
      if (!el) return { missing: "no iframe matches " + sel + (canon.length ? " inside " + canon.join(" >> ") : "") };
      const next = childRuntime(el);
      if (!next) return { missing: "the iframe " + sel + " has no same-origin document" };
      if (!top) {
        top = el;
        const tr = el.getBoundingClientRect();
        if (tr.top < 0 || tr.left < 0 || tr.bottom > innerHeight || tr.right > innerWidth) el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
      }
      const r = el.getBoundingClientRect();
      const cs = el.ownerDocument.defaultView.getComputedStyle(el);
      x += r.left + el.clientLeft + (parseFloat(cs.paddingLeft) || 0);
      y += r.top + el.clientTop + (parseFloat(cs.paddingTop) || 0);
      canon.push(rt.frameSelector(el));
      rt = next;
      win = el.contentWindow;
    }
    return { rt, x, y, top, win, path: canon.join(" >> ") };
  }

  // inFrame moves a fingerprint taken in a frame's document into this page: its box in page
  // coordinates and its frame path.
  function inFrame(fp, f) {
    if (!fp) return fp;
    fp.location.x = Math.round(fp.location.x - f.win.scrollX + f.x + scrollX);
    fp.location.y = Math.round(fp.location.y - f.win.scrollY + f.y + scrollY);
    fp.frame = f.path + (fp.frame ? " >> " + fp.frame : "");
    return fp;
  }

  // active is the frame the last locator resolved in (null: this document): the entry points
  // that act on the chosen element go to its runtime.
  let active = null;
  const here = (loc) => Object.assign({}, loc, { frame: "" });
  const chooser = () => (active ? active.rt : local);

  // via resolves a locator with a frame path in its frame's runtime; a path that leads nowhere
  // gives what a locator matching nothing gives.
  function via(loc, none, fn) {
    const f = enter(loc.frame);
    if (f.missing) return Object.assign(none, { frame: f.missing });
    active = f;
    return fn(f, here(loc));
  }

  const miss = () => ({ count: 0, visible: 0, state: "none" });

  // frameCover is the layer of this page over the iframe of the element target last found
  // covered there, or null.
  let frameCover = null;

  const dg = Object.assign({}, local, {
    target(loc, mode) {
      frameCover = null;
      if (!loc.frame) {
        active = null;
        return local.target(loc, mode);
      }
      return via(loc, miss(), (f, l) => {
        const res = f.rt.target(l, mode);
        if (res.x == null) return res;
        res.x += f.x;
        res.y += f.y;
        // The pointer goes through this page first: something over the iframe stops it.
        const h = hitAt(res.x, res.y, f.top);
        if (h && h !== f.top && !f.top.contains(h)) {
          frameCover = layerOf(h, f.top);
          return Object.assign(res, { state: "covered", by: describe(h) });
        }
        return res;
      });
    },
    visibility(loc) {
      if (!loc.frame) { active = null; return local.visibility(loc); }
      return via(loc, { count: 0, visible: 0, texts: [] }, (f, l) => f.rt.visibility(l));
    },
    read(loc, what, attr) {
      if (!loc.frame) { active = null; return local.read(loc, what, attr); }
      return via(loc, miss(), (f, l) => f.rt.read(l, what, attr));
    },
    validation(loc) {
      if (!loc.frame) { active = null; return local.validation(loc); }
      return via(loc, miss(), (f, l) => f.rt.validation(l));
    },
    scopeElement(loc) {
      if (!loc.frame) { active = null; return local.scopeElement(loc); }
      return via(loc, miss(), (f, l) => f.rt.scopeElement(l));
    },
    modalsIn(loc) {
      if (!loc.frame) return local.modalsIn(loc);
      const f = enter(loc.frame);
      return f.missing ? [] : f.rt.modalsIn(here(loc));
    },
    toastsIn(loc) {
      if (!loc.frame) return local.toastsIn(loc);
      const f = enter(loc.frame);
      return f.missing ? [] : f.rt.toastsIn(here(loc));
    },
    resolved(loc, max) {
      if (!loc.frame) { active = null; return local.resolved(loc, max); }
      return via(loc, { count: 0, visible: 0, elements: [] }, (f, l) => {
        const res = f.rt.resolved(l, max);
        res.elements = res.elements.map((fp) => inFrame(fp, f));
        return res;
      });
    },
    quiet(locs) {
      const res = local.quiet((locs || []).filter((l) => !l.frame));
      for (const l of (locs || []).filter((l) => l.frame)) {
        const f = enter(l.frame);
        if (!f.missing) res.matches += f.rt.quiet([here(l)]).matches;
      }
      return res;
    },
    fingerprint: () => (active ? inFrame(active.rt.fingerprint(), active) : local.fingerprint()),
    // printed runs target or read and, when it found its one element, adds that element's
    // fingerprint: one round trip to the page where an action or a read took two.
    printed(fn, ...args) {
      const res = dg[fn](...args);
      if (res.state === "ok" || res.state === "ok-hidden") res.fingerprint = dg.fingerprint();
      return res;
    },
    // covering is the fingerprint of what covered the element target last found covered: a
    // layer of this page over the iframe, or one inside the frame's own document.
    covering() {
      if (frameCover) return frameCover.isConnected ? fingerprint(frameCover) : null;
      return active ? inFrame(active.rt.covering(), active) : local.covering();
    },
    afterFill: (value, direct) => chooser().afterFill(value, direct),
    selectOption: (value) => chooser().selectOption(value),
    checked: () => chooser().checked(),
    focus: () => chooser().focus(),
    chosen: () => chooser().chosen(),
    // snapshot lists this document's elements, then those of each visible same-origin frame,
    // with their frame path and their boxes in this page's coordinates.
    snapshot(maxCount, maxText) {
      const snap = local.snapshot(maxCount, maxText);
      for (const el of frameElements()) {
        if (!isVisible(el)) continue;
        const f = enter(frameSelector(el));
        if (f.missing) continue;
        const budget = maxCount - snap.candidates.length;
        if (budget <= 0) {
          snap.truncated = true;
          break;
        }
        const sub = f.rt.snapshot(budget, 0);
        for (const fp of sub.candidates) snap.candidates.push(inFrame(fp, f));
        if (sub.candidates.length >= budget) snap.truncated = true;
      }
      return snap;
    },
  });
  Object.defineProperty(window, "__dg", { value: dg, enumerable: false, configurable: false });
})();
