// Crewdesk's record: every element a test may touch carries data-rec, the same in every variant.
// Clicks, fills and checks are posted to /__record so a test can prove which element a step
// reached, in the page, in its shadow roots (cdRec.watch) and in the payment frame. The
// listeners only observe: they never cancel or stop an event.
(function () {
  "use strict";
  var pending = {};
  var timer = 0;

  function send(events) {
    if (!events.length) return;
    var body = JSON.stringify(events);
    if (!(navigator.sendBeacon && navigator.sendBeacon("/__record", body))) {
      fetch("/__record", { method: "POST", body: body, keepalive: true }).catch(function () {});
    }
  }

  function flush(extra) {
    var events = Object.keys(pending).map(function (k) { return pending[k]; });
    pending = {};
    clearTimeout(timer);
    if (extra) events.push(extra);
    send(events);
  }

  function now() { return performance.timeOrigin + performance.now(); }

  function key(el) { return el && el.getAttribute ? el.getAttribute("data-rec") || "" : ""; }

  function isToggle(el) { return el.type === "checkbox" || el.type === "radio"; }

  function onInput(e) {
    var el = e.target, k = key(el);
    if (!k || isToggle(el)) return;
    pending[k] = { type: "fill", key: k, value: el.value, page: location.pathname, at: now() };
    clearTimeout(timer);
    timer = setTimeout(function () { flush(null); }, 250);
  }

  function onChange(e) {
    var el = e.target, k = key(el);
    if (!k) return;
    if (isToggle(el)) {
      flush({ type: "check", key: k, value: String(el.checked), page: location.pathname, at: now() });
    } else {
      delete pending[k];
      flush({ type: "fill", key: k, value: el.value, page: location.pathname, at: now() });
    }
  }

  // A click is composed: the document sees clicks inside shadow roots too, and the path names
  // the element hit.
  document.addEventListener("click", function (e) {
    var path = e.composedPath(), hit = null;
    for (var i = 0; i < path.length && !hit; i++) if (key(path[i])) hit = path[i];
    flush(hit && !(hit.tagName === "INPUT" && isToggle(hit)) ? { type: "click", key: key(hit), page: location.pathname, at: now() } : null);
  }, true);

  // Change events do not leave a shadow root, so each root is watched on its own; an event
  // retargeted to a host carries no data-rec and is ignored.
  function watch(root) {
    root.addEventListener("input", onInput, true);
    root.addEventListener("change", onChange, true);
  }
  watch(document);
  window.cdRec = { watch: watch };
})();
