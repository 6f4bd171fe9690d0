// Crewdesk: the whole client. Plain JS, no libraries, nothing loaded from the network. A router
// on the history API draws each route into <main>; the navigation, the members table, dialogs,
// toasts and the member form are custom elements rendering into open shadow roots, as component
// libraries do. The variant being served comes in a meta tag; each variant's client side is
// drawn here.
(function () {
  "use strict";
  var variant = new Set(document.querySelector('meta[name="cd-variant"]').content.split("+"));
  var on = function (name) { return variant.has(name); };

  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }

  function api(method, path, body) {
    var init = { method: method, headers: {} };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    return fetch(path, init).then(function (r) {
      if (r.status === 204) return { ok: true, status: 204, body: null };
      return r.json().then(function (b) { return { ok: r.ok, status: r.status, body: b }; });
    });
  }

  // shadow gives a component an open shadow root with its styles and the record's listeners.
  function shadow(host, css) {
    var root = host.shadowRoot || host.attachShadow({ mode: "open" });
    if (window.cdRec) window.cdRec.watch(root);
    root.innerHTML = "<style>:host([hidden]){display:none}button{font:inherit;padding:6px 12px;border-radius:4px;border:1px solid #adb5bd;background:#fff;cursor:pointer}" + (css || "") + "</style>";
    return root;
  }

  // ---- Components ---------------------------------------------------------------------------

  var billingPath = on("route-renamed") ? "/account/billing" : "/billing";

  customElements.define("cd-nav", class extends HTMLElement {
    connectedCallback() {
      var root = shadow(this, "nav{display:flex;gap:16px}a{color:#dbe4ff;text-decoration:none}a[aria-current=page]{color:#fff;font-weight:700}");
      root.innerHTML += '<nav aria-label="Main">' +
        '<a href="/members" data-rec="nav-members">Members</a>' +
        '<a href="' + billingPath + '" data-rec="nav-billing">Billing</a>' +
        '<a href="/reports" data-rec="nav-reports">Reports</a>' +
        '<a href="/settings" data-rec="nav-settings">Settings</a></nav>';
      root.addEventListener("click", function (e) {
        var a = e.target.closest("a");
        if (!a) return;
        e.preventDefault();
        navigate(a.getAttribute("href"));
      });
    }
    mark(path) {
      for (var a of this.shadowRoot.querySelectorAll("a")) {
        if (path.indexOf(a.getAttribute("href")) === 0) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
      }
    }
  });

  customElements.define("cd-spinner", class extends HTMLElement {
    connectedCallback() {
      var root = shadow(this, "@keyframes spin{to{transform:rotate(360deg)}}.s{width:28px;height:28px;border:3px solid #dee2e6;border-top-color:#3b5bdb;border-radius:50%;animation:spin .8s linear infinite;margin:16px 0}");
      root.innerHTML += '<div class="s" role="progressbar" aria-label="' + esc(this.getAttribute("label") || "Loading") + '"></div>';
    }
  });

  // cd-toaster shows status messages for four seconds, errors as alerts.
  customElements.define("cd-toaster", class extends HTMLElement {
    connectedCallback() {
      var root = shadow(this, ".stack{position:fixed;right:20px;bottom:20px;display:flex;flex-direction:column;gap:8px}.t{background:#212529;color:#fff;padding:10px 14px;border-radius:6px}.t.err{background:#c92a2a}");
      root.innerHTML += '<div class="stack" role="status" aria-live="polite"></div><div class="stack errors" role="alert"></div>';
    }
    show(text, error) {
      var t = document.createElement("div");
      t.className = "t" + (error ? " err" : "");
      t.textContent = text;
      this.shadowRoot.querySelector(error ? ".errors" : ".stack").appendChild(t);
      setTimeout(function () { t.remove(); }, 4000);
    }
  });
  function toast(text, error) { document.querySelector("cd-toaster").show(text, error); }

  var dialogCSS = ".backdrop{position:fixed;inset:0;background:rgba(0,0,0,.45);display:flex;align-items:center;justify-content:center;z-index:10}" +
    ".d{background:#fff;border-radius:8px;padding:20px 24px;min-width:340px}.buttons{display:flex;gap:8px;justify-content:flex-end;margin-top:16px}" +
    ".danger{background:#c92a2a;color:#fff;border-color:#c92a2a}.primary{background:#3b5bdb;color:#fff;border-color:#3b5bdb}";

  // cd-dialog frames slotted content (a form) in a modal dialog named by its heading.
  customElements.define("cd-dialog", class extends HTMLElement {
    connectedCallback() {
      var root = shadow(this, dialogCSS);
      root.innerHTML += '<div class="backdrop"><div class="d" role="dialog" aria-modal="true" aria-labelledby="title">' +
        '<h2 id="title">' + esc(this.getAttribute("heading") || "") + '</h2><slot></slot></div></div>';
    }
  });

  // cd-confirm asks before a destructive action; confirm() resolves true or false.
  customElements.define("cd-confirm", class extends HTMLElement {
    connectedCallback() { shadow(this, dialogCSS); }
    confirm(title, text, action) {
      var host = this, root = this.shadowRoot;
      root.querySelectorAll(".backdrop").forEach(function (n) { n.remove(); });
      var wrap = document.createElement("div");
      wrap.className = "backdrop";
      wrap.innerHTML = '<div class="d" role="dialog" aria-modal="true" aria-labelledby="ct"><h2 id="ct">' + esc(title) + '</h2><p>' + esc(text) + '</p>' +
        '<div class="buttons"><button class="cancel" data-rec="confirm-cancel">Cancel</button>' +
        '<button class="danger" data-rec="confirm-ok">' + esc(action) + '</button></div></div>';
      root.appendChild(wrap);
      host.hidden = false;
      return new Promise(function (resolve) {
        wrap.addEventListener("click", function (e) {
          var b = e.target.closest("button");
          if (!b) return;
          host.hidden = true;
          wrap.remove();
          resolve(b.classList.contains("danger"));
        });
      });
    }
  });

  // cd-announcement is a product announcement that covers the page until dismissed.
  customElements.define("cd-announcement", class extends HTMLElement {
    connectedCallback() {
      var host = this, root = shadow(this, dialogCSS);
      root.innerHTML += '<div class="backdrop"><div class="d" role="dialog" aria-modal="true" aria-labelledby="at">' +
        '<h2 id="at">Two-step sign-in is here</h2><p>Protect your team with a second step at sign-in.</p>' +
        '<div class="buttons"><button class="primary" data-rec="announcement-ok">Got it</button></div></div></div>';
      root.querySelector("button").addEventListener("click", function () { host.remove(); });
    }
  });

  // member-table lists one page of members with row actions and a pager; it fires "page",
  // "edit" and "delete" events with the page or member asked for.
  customElements.define("member-table", class extends HTMLElement {
    connectedCallback() {
      var host = this;
      var root = shadow(this, "table{border-collapse:collapse;width:100%;background:#fff}th,td{text-align:left;padding:8px;border-bottom:1px solid #dee2e6}" +
        ".pager{display:flex;gap:12px;align-items:center;margin-top:10px}.row-actions{white-space:nowrap;position:relative}" +
        "[role=menu]{position:absolute;right:0;top:100%;background:#fff;border:1px solid #adb5bd;border-radius:4px;display:flex;flex-direction:column;z-index:5}" +
        "[role=menu][hidden]{display:none}[role=menuitem]{border:0;text-align:left}");
      root.innerHTML += '<div class="body"></div>';
      root.addEventListener("click", function (e) {
        var b = e.target.closest("button");
        if (!b) return;
        if (b.dataset.page) { host.dispatchEvent(new CustomEvent("page", { detail: Number(b.dataset.page) })); return; }
        if (b.classList.contains("kebab")) {
          var menu = b.nextElementSibling, open = menu.hidden;
          root.querySelectorAll("[role=menu]").forEach(function (m) { m.hidden = true; });
          menu.hidden = !open;
          b.setAttribute("aria-expanded", String(open));
          return;
        }
        var act = b.dataset.action;
        if (!act) return;
        root.querySelectorAll("[role=menu]").forEach(function (m) { m.hidden = true; });
        var m = host.members.find(function (x) { return String(x.id) === b.dataset.id; });
        host.dispatchEvent(new CustomEvent(act, { detail: m }));
      });
    }
    loading() {
      this.shadowRoot.querySelector(".body").innerHTML = "";
      var s = document.createElement("cd-spinner");
      s.setAttribute("label", "Loading members");
      this.shadowRoot.querySelector(".body").appendChild(s);
    }
    show(data) {
      this.members = data.items;
      var actionsFirst = on("column-reordered");
      var head = ["<th>Name</th>", "<th>Email</th>", "<th>Role</th>"];
      var actionsHead = '<th><span class="visually-hidden">Actions</span></th>';
      if (actionsFirst) head.unshift(actionsHead); else head.push(actionsHead);
      var rows = data.items.map(function (m) {
        var actions;
        if (on("owner-actions-missing") && m.id === 1) {
          actions = '<td class="row-actions"></td>';
        } else if (on("kebab-menu")) {
          actions = '<td class="row-actions"><button class="kebab" aria-label="More actions for ' + esc(m.name) + '" aria-haspopup="menu" aria-expanded="false" data-rec="menu-' + m.id + '">⋯</button>' +
            '<div role="menu" hidden><button role="menuitem" data-action="edit" data-id="' + m.id + '" aria-label="Edit ' + esc(m.name) + '" data-rec="edit-' + m.id + '">Edit</button>' +
            '<button role="menuitem" data-action="delete" data-id="' + m.id + '" aria-label="Delete ' + esc(m.name) + '" data-rec="delete-' + m.id + '">Delete</button></div></td>';
        } else {
          actions = '<td class="row-actions"><button class="edit" data-action="edit" data-id="' + m.id + '" aria-label="Edit ' + esc(m.name) + '" data-rec="edit-' + m.id + '">Edit</button> ' +
            '<button class="delete" data-action="delete" data-id="' + m.id + '" aria-label="Delete ' + esc(m.name) + '" data-rec="delete-' + m.id + '">Delete</button></td>';
        }
        var cells = ["<td>" + esc(m.name) + "</td>", "<td>" + esc(m.email) + "</td>", "<td>" + esc(m.role) + "</td>"];
        if (actionsFirst) cells.unshift(actions); else cells.push(actions);
        return '<tr data-id="' + m.id + '">' + cells.join("") + "</tr>";
      }).join("");
      var prev = on("pager-icons") ? '<button class="prev" aria-label="Previous page" data-rec="pager-prev"' : '<button class="prev" data-rec="pager-prev"';
      var next = on("pager-icons") ? '<button class="next" aria-label="Next page" data-rec="pager-next"' : '<button class="next" data-rec="pager-next"';
      var pager = '<div class="pager">' +
        prev + ' data-page="' + (data.page - 1) + '"' + (data.page <= 1 ? " disabled" : "") + ">" + (on("pager-icons") ? "‹" : "Previous") + "</button>" +
        '<span id="page-indicator">Page ' + data.page + " of " + data.pages + "</span>" +
        next + ' data-page="' + (data.page + 1) + '"' + (data.page >= data.pages ? " disabled" : "") + ">" + (on("pager-icons") ? "›" : "Next") + "</button></div>";
      this.shadowRoot.querySelector(".body").innerHTML = '<table aria-label="Members"><thead><tr>' + head.join("") + "</tr></thead><tbody>" + rows + "</tbody></table>" + pager;
    }
  });

  // member-form edits one member's name and role; it fires "save" with the values.
  customElements.define("member-form", class extends HTMLElement {
    connectedCallback() {
      var host = this;
      var root = shadow(this, "label{display:block;margin-top:10px;font-weight:600}input,select{display:block;padding:6px;width:280px;margin-top:2px}" +
        ".form-footer{margin-top:16px;display:flex;gap:8px}.cd-btn--primary,.cd-button--primary{background:#3b5bdb;color:#fff;border-color:#3b5bdb}[role=alert]{color:#c92a2a}");
      var m = this.member;
      var opts = ["Viewer", "Editor", "Admin"].map(function (r) { return "<option" + (r === m.role ? " selected" : "") + ">" + r + "</option>"; }).join("");
      var save = on("lib-upgrade")
        ? '<div class="cd-actions"><button type="button" class="cd-button" data-rec="member-cancel">Cancel</button><button type="submit" class="cd-button cd-button--primary" data-rec="member-save">Save changes</button></div>'
        : '<button type="button" class="cd-btn" data-rec="member-cancel">Cancel</button><button type="submit" class="cd-btn cd-btn--primary" data-rec="member-save">Save changes</button>';
      root.innerHTML += '<form class="member-form"><label for="name">Name</label><input id="name" required value="' + esc(m.name) + '" data-rec="member-name">' +
        '<label for="role">Role</label><select id="role" data-rec="member-role">' + opts + "</select>" +
        '<div class="form-footer">' + save + '</div><p class="error" role="alert"></p></form>';
      var form = root.querySelector("form");
      form.addEventListener("submit", function (e) {
        e.preventDefault();
        host.dispatchEvent(new CustomEvent("save", { detail: { name: form.querySelector("#name").value, role: form.querySelector("#role").value } }));
      });
      root.querySelector("[data-rec=member-cancel]").addEventListener("click", function () { navigate("/members"); });
    }
    error(text) { this.shadowRoot.querySelector(".error").textContent = text; }
  });

  // profile-form edits the profile: one control of each kind (radio buttons, a select, a
  // checkbox, a text area, an editable status), a hint shown on hover and an avatar that waves
  // when double-clicked. It fires "save" with the values.
  customElements.define("profile-form", class extends HTMLElement {
    connectedCallback() {
      var host = this, p = this.profile, waves = p.waves || 0;
      var root = shadow(this, "label,legend{display:block;margin-top:10px;font-weight:600}input[type=text],select,textarea{display:block;padding:6px;width:280px;margin-top:2px}" +
        "fieldset{border:0;padding:0;margin:0}fieldset label{font-weight:400;display:inline-block;margin-right:12px}.inline{font-weight:400}" +
        ".status{border:1px solid #adb5bd;border-radius:4px;min-height:2em;padding:6px;width:280px}.avatar{display:inline-block;width:40px;height:40px;border-radius:50%;background:#3b5bdb;color:#fff;text-align:center;line-height:40px;user-select:none;cursor:pointer}" +
        "legend{position:relative}.tip{display:none;position:absolute;left:100%;top:0;margin-left:8px;white-space:nowrap;font-weight:400;color:#495057;background:#fff;border:1px solid #adb5bd;padding:2px 6px}.tip.shown{display:block}.primary{background:#3b5bdb;color:#fff;border-color:#3b5bdb;margin-top:16px}");
      var radio = function (v, label) {
        return '<label><input type="radio" name="theme" id="theme-' + v + '" value="' + v + '"' + (p.theme === v ? " checked" : "") + ' data-rec="profile-theme-' + v + '"> ' + label + "</label>";
      };
      var zone = function (v, label) { return '<option value="' + v + '"' + (p.timeZone === v ? " selected" : "") + ">" + label + "</option>"; };
      root.innerHTML += '<form class="profile-form">' +
        '<p><span class="avatar" id="avatar" data-rec="profile-avatar" title="Double-click to wave">GH</span> <span id="waves">Waves: ' + waves + "</span></p>" +
        '<label for="display-name">Display name</label><input type="text" id="display-name" value="' + esc(p.displayName) + '" data-rec="profile-name">' +
        '<fieldset><legend>Theme <span id="theme-help" role="img" aria-label="About themes" data-rec="profile-theme-help">ⓘ</span>' +
        '<span class="tip" id="theme-tip" role="tooltip">System follows your device\'s setting.</span></legend>' +
        radio("light", "Light") + radio("dark", "Dark") + radio("system", "System") + "</fieldset>" +
        '<label for="time-zone">Time zone</label><select id="time-zone" data-rec="profile-zone">' + zone("utc", "UTC") + zone("cet", "Central European") + zone("pst", "Pacific") + "</select>" +
        '<label class="inline"><input type="checkbox" id="away"' + (p.away ? " checked" : "") + ' data-rec="profile-away"> Show me as away</label>' +
        '<label for="about">About you</label><textarea id="about" rows="3" data-rec="profile-about">' + esc(p.about || "") + "</textarea>" +
        '<label id="status-label">Status message</label><div class="status" id="status" role="textbox" aria-labelledby="status-label" contenteditable="true" data-rec="profile-status">' + esc(p.status || "") + "</div>" +
        '<button type="submit" class="primary" data-rec="profile-save">Save profile</button></form>';
      var help = root.querySelector("#theme-help"), tip = root.querySelector("#theme-tip");
      help.addEventListener("mouseenter", function () { tip.classList.add("shown"); });
      help.addEventListener("mouseleave", function () { tip.classList.remove("shown"); });
      root.querySelector("#avatar").addEventListener("dblclick", function () {
        waves++;
        root.querySelector("#waves").textContent = "Waves: " + waves;
      });
      var form = root.querySelector("form");
      form.addEventListener("submit", function (e) {
        e.preventDefault();
        var theme = form.querySelector("input[name=theme]:checked");
        host.dispatchEvent(new CustomEvent("save", { detail: {
          displayName: form.querySelector("#display-name").value, theme: theme ? theme.value : "",
          timeZone: form.querySelector("#time-zone").value, away: form.querySelector("#away").checked,
          about: form.querySelector("#about").value, status: form.querySelector("#status").innerText.trim(), waves: waves,
        } }));
      });
    }
  });

  // ---- Routes -------------------------------------------------------------------------------

  var view = document.getElementById("view");

  function spinner(label) { return '<cd-spinner label="' + esc(label) + '"></cd-spinner>'; }

  function membersView() {
    document.title = "Members · Crewdesk";
    var team = on("invite-team-required")
      ? '<label for="invite-team">Team</label><select id="invite-team" required data-rec="invite-team"><option value="">Choose a team…</option>' +
        '<option value="engineering">Engineering</option><option value="design">Design</option><option value="sales">Sales</option></select>'
      : "";
    view.innerHTML = "<h1>Members</h1>" +
      '<div class="toolbar"><input type="search" placeholder="Filter members" aria-label="Filter members" data-rec="member-filter">' +
      '<button class="primary" id="invite-open" data-rec="invite-open">Invite member</button></div>' +
      '<p id="member-count" aria-live="off"></p><member-table></member-table><cd-confirm hidden></cd-confirm>' +
      '<cd-dialog id="invite-dialog" heading="Invite a member" hidden><form id="invite-form">' +
      '<label for="invite-email">Email</label><input id="invite-email" type="email" required data-rec="invite-email">' +
      '<label for="invite-role">Role</label><select id="invite-role" data-rec="invite-role"><option>Viewer</option><option>Editor</option><option>Admin</option></select>' +
      team +
      '<div style="display:flex;gap:8px;margin-top:16px"><button type="button" id="invite-cancel" data-rec="invite-cancel">Cancel</button>' +
      '<button type="submit" class="primary" data-rec="invite-send">Send invite</button></div></form></cd-dialog>';
    var table = view.querySelector("member-table");
    var count = view.querySelector("#member-count");
    var filter = view.querySelector("input[type=search]");
    var state = { page: 1, q: "" };
    var seq = 0;
    function load() {
      var mine = ++seq;
      table.loading();
      api("GET", "/api/members?page=" + state.page + "&q=" + encodeURIComponent(state.q)).then(function (res) {
        if (mine !== seq) return;
        count.textContent = res.body.total + (res.body.total === 1 ? " member" : " members");
        table.show(res.body);
      });
    }
    var typing = 0;
    filter.addEventListener("input", function () {
      clearTimeout(typing);
      typing = setTimeout(function () { state.q = filter.value; state.page = 1; load(); }, 150);
    });
    table.addEventListener("page", function (e) { state.page = e.detail; load(); });
    table.addEventListener("edit", function (e) {
      if (on("edit-does-nothing")) return;
      navigate("/members/" + e.detail.id);
    });
    table.addEventListener("delete", function (e) {
      var m = e.detail;
      view.querySelector("cd-confirm").confirm("Delete " + m.name + "?", "They lose access to Crewdesk at once.", on("confirm-relabelled") ? "Yes, delete" : "Delete").then(function (yes) {
        if (!yes) return;
        api("DELETE", "/api/members/" + m.id).then(function (res) {
          if (!res.ok) { toast("Could not delete " + m.name, true); return; }
          toast(m.name + " was removed");
          load();
        });
      });
    });
    var dialog = view.querySelector("#invite-dialog");
    var form = view.querySelector("#invite-form");
    view.querySelector("#invite-open").addEventListener("click", function () { dialog.hidden = false; form.querySelector("#invite-email").focus(); });
    view.querySelector("#invite-cancel").addEventListener("click", function () { dialog.hidden = true; });
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      var email = form.querySelector("#invite-email").value;
      var teamSel = form.querySelector("#invite-team");
      api("POST", "/api/members", { email: email, role: form.querySelector("#invite-role").value, team: teamSel ? teamSel.value : "" }).then(function (res) {
        if (!res.ok) { toast("Could not invite " + email + ": " + res.body.error, true); return; }
        dialog.hidden = true;
        toast("Invitation sent to " + email);
        load();
      });
    });
    load();
  }

  function editView(id) {
    document.title = "Edit member · Crewdesk";
    view.innerHTML = "<h1>Edit member</h1>" + spinner("Loading member");
    api("GET", "/api/members/" + id).then(function (res) {
      if (!res.ok) { view.innerHTML = '<h1>Edit member</h1><p role="alert">' + esc(res.body.error) + "</p>"; return; }
      var form = document.createElement("member-form");
      form.member = res.body;
      view.querySelector("cd-spinner").replaceWith(form);
      form.addEventListener("save", function (e) {
        api("PUT", "/api/members/" + id, e.detail).then(function (r) {
          if (!r.ok) { form.error("Could not save changes"); toast("Could not save changes", true); return; }
          toast("Changes saved");
        });
      });
    });
  }

  function billingView() {
    document.title = "Billing · Crewdesk";
    var frameID = on("frame-renamed") ? "checkout-frame" : "payment-frame";
    view.innerHTML = "<h1>Billing</h1>" + spinner("Loading invoice");
    api("GET", "/api/invoice").then(function (res) {
      var inv = res.body;
      var status = on("status-missing") ? "" : '<p>Status: <span id="billing-status">' + esc(inv.status) + "</span></p>";
      view.querySelector("cd-spinner").outerHTML = '<section class="invoice" aria-label="Open invoice"><p>Invoice <span id="invoice-number">' + esc(inv.number) + "</span></p>" +
        '<p>Amount due: <strong id="amount-due">' + esc(inv.due) + "</strong></p>" + status + "</section>" +
        '<h2>Pay by card</h2><iframe id="' + frameID + '" class="payment" title="Payment" src="/frames/payment"></iframe>';
    });
  }
  window.addEventListener("message", function (e) {
    if (e.origin !== location.origin || !e.data || e.data.type !== "paid") return;
    toast("Payment received");
    var s = document.getElementById("billing-status");
    if (s) s.textContent = "Paid";
  });

  function reportsView() {
    document.title = "Reports · Crewdesk";
    view.innerHTML = "<h1>Reports</h1>" + spinner("Loading reports");
    api("GET", "/api/reports").then(function (res) {
      var sp = view.querySelector("cd-spinner");
      if (!sp) return;
      if (!res.ok) { sp.outerHTML = '<p role="alert">Reports are unavailable</p>'; return; }
      var r = res.body;
      sp.outerHTML = '<dl class="stats"><dt>Active members</dt><dd id="active-members">' + r.activeMembers + "</dd>" +
        '<dt>Seats used</dt><dd id="seats-used">' + r.activeMembers + " of " + r.seats + "</dd>" +
        '<dt>Monthly cost</dt><dd id="report-total">' + esc(r.monthlyCost) + "</dd></dl>";
    });
  }

  function settingsView() {
    document.title = "Settings · Crewdesk";
    view.innerHTML = "<h1>Settings</h1>" + spinner("Loading settings");
    api("GET", "/api/settings").then(function (res) {
      var s = res.body;
      var testid = on("testid-renamed") ? "save-settings-button" : "settings-save";
      view.querySelector("cd-spinner").outerHTML = '<form id="settings-form">' +
        '<label for="team-name">' + (on("label-renamed") ? "Workspace name" : "Team name") + '</label><input id="team-name" value="' + esc(s.teamName) + '" data-rec="team-name">' +
        '<label class="inline"><input type="checkbox" id="weekly"' + (s.weeklySummary ? " checked" : "") + ' data-rec="weekly-summary"> Email me a weekly summary</label>' +
        '<button type="submit" class="primary" data-testid="' + testid + '" data-rec="settings-save" style="margin-top:16px">Save settings</button></form>';
      var form = view.querySelector("#settings-form");
      form.addEventListener("submit", function (e) {
        e.preventDefault();
        api("PUT", "/api/settings", { teamName: form.querySelector("#team-name").value, weeklySummary: form.querySelector("#weekly").checked }).then(function (r) {
          if (!r.ok) { toast("Could not save settings: " + r.body.error, true); return; }
          toast("Settings saved");
        });
      });
      if (on("settings-announcement")) document.body.appendChild(document.createElement("cd-announcement"));
    });
  }

  function profileView() {
    document.title = "Profile · Crewdesk";
    view.innerHTML = "<h1>Your profile</h1>" + spinner("Loading your profile");
    api("GET", "/api/profile").then(function (res) {
      var sp = view.querySelector("cd-spinner");
      if (!sp) return;
      var form = document.createElement("profile-form");
      form.profile = res.body;
      sp.replaceWith(form);
      var summary = document.createElement("section");
      summary.setAttribute("aria-label", "Saved profile");
      summary.id = "profile-summary";
      view.appendChild(summary);
      form.addEventListener("save", function (e) {
        api("PUT", "/api/profile", e.detail).then(function (r) {
          if (!r.ok) { toast("Could not save your profile: " + r.body.error, true); return; }
          var p = r.body;
          summary.innerHTML = "<h2>Saved</h2><ul>" +
            "<li>Name: " + esc(p.displayName) + "</li><li>Theme: " + esc(p.theme) + "</li><li>Time zone: " + esc(p.timeZone) + "</li>" +
            "<li>Away: " + (p.away ? "yes" : "no") + "</li><li>About: " + esc(p.about) + "</li><li>Status: " + esc(p.status) + "</li>" +
            "<li>Waves: " + p.waves + "</li></ul>";
          toast("Profile saved");
        });
      });
    });
  }

  function notFound() {
    document.title = "Not found · Crewdesk";
    view.innerHTML = '<h1>Page not found</h1><p><a href="/members">Go to members</a></p>';
  }

  var routes = [
    [/^\/$/, function () { navigate("/members", true); }],
    [/^\/members\/?$/, membersView],
    [/^\/members\/(\d+)$/, editView],
    [/^\/reports$/, reportsView],
    [/^\/settings$/, settingsView],
    [/^\/profile$/, profileView],
  ];

  function render() {
    var path = location.pathname;
    document.querySelectorAll("cd-announcement").forEach(function (n) { n.remove(); });
    if (path === "/billing" && billingPath !== "/billing") { navigate(billingPath, true); return; }
    if (path === billingPath) { billingView(); } else {
      var hit = routes.find(function (r) { return r[0].test(path); });
      if (hit) hit[1](path.match(hit[0])[1]); else notFound();
    }
    document.querySelector("cd-nav").mark(path);
  }

  function navigate(path, replace) {
    history[replace ? "replaceState" : "pushState"]({}, "", path);
    render();
  }

  window.addEventListener("popstate", render);
  if (on("whats-new-banner")) {
    var b = document.createElement("div");
    b.className = "whats-new";
    b.setAttribute("role", "note");
    b.textContent = "What's new: reports now refresh every hour.";
    document.body.insertBefore(b, document.body.firstChild);
  }
  render();
})();
