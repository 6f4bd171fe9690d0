// Progressive enhancement for the review console: every page works without this file. With it,
// a button marked data-opens shows the review dialog it names, which carries the diff and the
// actions; the same actions outside it (data-without-dialog), for a browser without the script,
// are hidden.
document.querySelectorAll("button[data-opens]").forEach(function (b) {
  var name = b.getAttribute("data-opens");
  var d = document.getElementById(name);
  if (!d || typeof d.showModal !== "function") return;
  b.hidden = false;
  document.querySelectorAll('[data-without-dialog="' + name + '"]').forEach(function (e) { e.hidden = true; });
  b.addEventListener("click", function () { d.showModal(); });
});

// A running execution's list of events follows the execution: the page lists what had happened
// when it was served, and an EventSource appends what happens next (the stream resumes after the
// last event the page shows) until the execution ends.
document.querySelectorAll("ol.events[data-follow]").forEach(function (list) {
  if (typeof EventSource !== "function") return;
  var item = list.closest("li");
  var status = item && item.querySelector("[data-status]");
  var empty = item && item.querySelector("[data-empty]");
  var es = new EventSource(list.getAttribute("data-follow") + "?after=" + encodeURIComponent(list.getAttribute("data-after") || "0"));
  es.addEventListener("ladder", function (m) {
    var e = JSON.parse(m.data);
    if (list.querySelector('li[data-seq="' + e.seq + '"]')) return;
    var li = document.createElement("li");
    li.setAttribute("data-seq", String(e.seq));
    var stage = document.createElement("span");
    stage.className = "stage";
    stage.textContent = e.stage;
    li.appendChild(stage);
    if (e.rung) {
      var rung = document.createElement("span");
      rung.className = "rung";
      rung.textContent = e.rung;
      li.appendChild(document.createTextNode(" "));
      li.appendChild(rung);
    }
    li.appendChild(document.createTextNode(" " + e.message));
    if (e.ops && e.ops.length) {
      var ops = document.createElement("pre");
      ops.className = "ops";
      ops.textContent = e.ops.join("\n");
      li.appendChild(ops);
    }
    list.appendChild(li);
    if (empty) empty.hidden = true;
    // The outcome tells a repair from a triage: the machine succeeds either way.
    var line = item && item.querySelector("[data-outcome-line]");
    if (e.stage === "outcome" && e.outcome && line && (!e.testId || e.testId === list.getAttribute("data-test"))) {
      line.querySelector("[data-outcome]").textContent = e.outcome;
      line.querySelector("[data-why]").textContent = e.reason ? " — " + e.reason : "";
      line.hidden = false;
    }
  });
  es.addEventListener("end", function (m) {
    es.close();
    if (status) status.textContent = JSON.parse(m.data).status;
  });
  es.addEventListener("failure", function (m) {
    es.close();
    if (status) status.textContent = "unknown (" + JSON.parse(m.data).error + ")";
  });
});
