// Seedling Supply: the shop's only script. Plain JS, no libraries, nothing loaded from the network.
// It is loaded in <head> without defer and only listens on the document, so every handler is in
// place before the first element exists: a test that clicks as soon as a button is in the DOM
// gets the same behaviour as one that waits for the load event.
(function () {
  "use strict";

  // ---- The record ---------------------------------------------------------------------------
  // Every element a test may touch carries data-demo-key, the same in every variant. Clicks,
  // fills and checks are posted to /__record so a test can prove which element a step reached.
  // The listeners only observe: they never cancel or stop an event.
  var pending = {};
  var timer = 0;

  function send(events) {
    if (!events.length) return;
    var body = JSON.stringify(events);
    if (!(navigator.sendBeacon && navigator.sendBeacon("/__record", body))) {
      fetch("/__record", { method: "POST", body: body, keepalive: true }).catch(function () {});
    }
  }

  // flush sends the fills typed so far, then the extra event, in one batch so they keep order.
  function flush(extra) {
    var events = Object.keys(pending).map(function (k) { return pending[k]; });
    pending = {};
    clearTimeout(timer);
    if (extra) events.push(extra);
    send(events);
  }

  // now is the page's clock in epoch milliseconds: the record orders events by it, because
  // beacons can arrive after the navigation a click caused.
  function now() {
    return performance.timeOrigin + performance.now();
  }

  function ownKey(el) {
    return el && el.getAttribute ? el.getAttribute("data-demo-key") || "" : "";
  }

  function isToggle(el) {
    return el.type === "checkbox" || el.type === "radio";
  }

  document.addEventListener("click", function (e) {
    var el = e.target && e.target.closest ? e.target.closest("[data-demo-key]") : null;
    flush(el ? { type: "click", key: ownKey(el), page: location.pathname, at: now() } : null);
  }, true);

  document.addEventListener("input", function (e) {
    var el = e.target, key = ownKey(el);
    if (!key || isToggle(el)) return;
    pending[key] = { type: "fill", key: key, value: el.value, page: location.pathname, at: now() };
    clearTimeout(timer);
    timer = setTimeout(function () { flush(null); }, 250);
  }, true);

  document.addEventListener("change", function (e) {
    var el = e.target, key = ownKey(el);
    if (!key) return;
    if (isToggle(el)) {
      flush({ type: "check", key: key, value: String(el.checked), page: location.pathname, at: now() });
      return;
    }
    pending[key] = { type: "fill", key: key, value: el.value, page: location.pathname, at: now() };
    flush(null);
  }, true);

  document.addEventListener("submit", function () { flush(null); }, true);
  window.addEventListener("pagehide", function () { flush(null); });

  // ---- Toasts and errors --------------------------------------------------------------------
  function toast(message, isError) {
    var region = document.getElementById("toast-region");
    if (!region || !message) return;
    var t = document.createElement("div");
    t.className = isError ? "toast toast-error" : "toast";
    if (isError) t.setAttribute("role", "alert");
    t.setAttribute("data-testid", "toast");
    t.textContent = message;
    region.replaceChildren(t);
  }

  // formError shows (or, with an empty message, removes) the error of a whole form.
  function formError(form, message) {
    var id = form.id + "-error";
    var p = document.getElementById(id);
    if (!message) {
      if (p) p.remove();
      return;
    }
    if (!p) {
      p = document.createElement("p");
      p.id = id;
      p.className = "form-error";
      p.setAttribute("role", "alert");
      form.parentNode.insertBefore(p, form);
    }
    p.textContent = message;
  }

  // call fetches JSON and resolves to {ok, status, data}; a body that is not JSON is an error.
  function call(method, url, body) {
    var opts = { method: method, headers: {} };
    if (body !== undefined) {
      opts.headers["Content-Type"] = "application/json";
      opts.body = JSON.stringify(body);
    }
    return fetch(url, opts).then(function (r) {
      if (r.status === 204) return { ok: r.ok, status: r.status, data: {} };
      return r.json().then(function (data) { return { ok: r.ok, status: r.status, data: data }; });
    });
  }

  function setCartCount(n) {
    var c = document.getElementById("cart-count");
    if (!c) return;
    c.textContent = String(n);
    c.setAttribute("data-count", String(n));
  }

  function setText(id, text) {
    var el = document.getElementById(id);
    if (el && text !== undefined) el.textContent = text;
  }

  // ---- Validation ---------------------------------------------------------------------------
  // Forms marked data-validate check their required fields before they are sent; each error is
  // tied to its field with aria-invalid and aria-describedby, as the server's own errors are.
  function labelText(field) {
    var l = field.labels && field.labels[0];
    return l ? l.textContent.trim() : field.name;
  }

  function describe(field, id, on) {
    var ids = (field.getAttribute("aria-describedby") || "").split(/\s+/).filter(function (x) {
      return x && x !== id;
    });
    if (on) ids.push(id);
    if (ids.length) field.setAttribute("aria-describedby", ids.join(" "));
    else field.removeAttribute("aria-describedby");
  }

  function setError(field, message) {
    var id = field.id + "-error";
    var p = document.getElementById(id);
    if (!p) {
      p = document.createElement("p");
      p.id = id;
      p.className = "field-error";
      (field.closest(".field") || field.parentNode).appendChild(p);
    }
    p.textContent = message;
    p.hidden = false;
    field.setAttribute("aria-invalid", "true");
    describe(field, id, true);
  }

  function clearError(field) {
    var p = document.getElementById(field.id + "-error");
    if (p) p.hidden = true;
    field.removeAttribute("aria-invalid");
    describe(field, field.id + "-error", false);
  }

  function problem(field) {
    var v = isToggle(field) ? "" : String(field.value || "").trim();
    if (field.required && (isToggle(field) ? !field.checked : v === "")) {
      return field.getAttribute("data-error") || labelText(field) + " is required";
    }
    if (field.getAttribute("data-format") === "amount" && v !== "" && !/^\d+(\.\d{1,2})?$/.test(v)) {
      return labelText(field) + " must be an amount like 12.50";
    }
    return "";
  }

  function validate(form) {
    var first = null;
    Array.prototype.forEach.call(form.elements, function (field) {
      if (!field.id || field.tagName === "BUTTON") return;
      var message = problem(field);
      if (message) {
        setError(field, message);
        first = first || field;
      } else if (field.getAttribute("aria-invalid")) {
        clearError(field);
      }
    });
    if (first) first.focus();
    return first === null;
  }

  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (form.hasAttribute("data-validate") && !validate(form)) e.preventDefault();
  });

  document.addEventListener("input", function (e) {
    var field = e.target;
    if (field.getAttribute && field.getAttribute("aria-invalid") && !problem(field)) clearError(field);
  });

  // ---- New product --------------------------------------------------------------------------
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (form.id !== "product-form") return;
    // The validation listener above has already run and cancelled an invalid submit.
    var invalid = e.defaultPrevented;
    e.preventDefault();
    if (invalid) return;
    var f = form.elements;
    var body = {
      name: f.namedItem("name").value,
      sku: f.namedItem("sku").value,
      price: f.namedItem("price").value,
      category: f.namedItem("category").value,
      description: f.namedItem("description").value,
      featured: f.namedItem("featured").checked
    };
    call("POST", "/api/products", body).then(function (res) {
      if (!res.ok) {
        formError(form, "Could not save the product: " + (res.data.error || "HTTP " + res.status));
        return;
      }
      formError(form, "");
      var link = document.getElementById("created-link");
      link.textContent = res.data.name;
      link.href = res.data.url;
      document.getElementById("created").hidden = false;
      toast(res.data.message);
    }).catch(function (err) {
      formError(form, "Could not save the product: " + err.message);
    });
  });

  // ---- Add to cart --------------------------------------------------------------------------
  document.addEventListener("click", function (e) {
    var btn = e.target.closest ? e.target.closest(".add-to-cart") : null;
    if (!btn) return;
    var qty = 1;
    var input = btn.hasAttribute("data-qty-input") && document.getElementById(btn.getAttribute("data-qty-input"));
    if (input) qty = parseInt(input.value, 10) || 1;
    call("POST", "/api/cart", { productId: parseInt(btn.getAttribute("data-product-id"), 10), qty: qty }).then(function (res) {
      if (!res.ok) {
        toast("Could not add to cart: " + (res.data.error || "HTTP " + res.status), true);
        return;
      }
      setCartCount(res.data.count);
      toast(res.data.message);
    }).catch(function (err) {
      toast("Could not add to cart: " + err.message, true);
    });
  });

  // ---- Product filters ----------------------------------------------------------------------
  function applyFilters(filters) {
    var q = filters.elements.namedItem("q").value.trim().toLowerCase();
    var c = filters.elements.namedItem("category").value;
    var inStock = filters.elements.namedItem("inStock").checked;
    var shown = 0;
    document.querySelectorAll(".product-row").forEach(function (row) {
      var show = (!q || row.getAttribute("data-name").toLowerCase().indexOf(q) >= 0) &&
        (!c || row.getAttribute("data-category") === c) &&
        (!inStock || parseInt(row.getAttribute("data-stock"), 10) > 0);
      row.hidden = !show;
      if (show) shown++;
    });
    setText("result-count", shown + (shown === 1 ? " product" : " products"));
  }

  function onFilter(e) {
    if (e.target.form && e.target.form.id === "filters") applyFilters(e.target.form);
  }
  document.addEventListener("input", onFilter);
  document.addEventListener("change", onFilter);
  document.addEventListener("submit", function (e) {
    if (e.target.id === "filters") e.preventDefault();
  });

  // ---- Delete dialog ------------------------------------------------------------------------
  function closeModal(modal) {
    modal.hidden = true;
    var opener = document.getElementById("delete-product");
    if (opener) opener.focus();
  }

  document.addEventListener("click", function (e) {
    var modal = document.getElementById("delete-modal");
    if (!modal || !e.target.closest) return;
    if (e.target.closest("#delete-product")) {
      modal.hidden = false;
      modal.querySelector("[data-modal-cancel]").focus();
    } else if (e.target === modal || e.target.closest("[data-modal-cancel]")) {
      closeModal(modal);
    } else if (e.target.closest("[data-modal-confirm]")) {
      var id = e.target.closest("[data-modal-confirm]").getAttribute("data-product-id");
      var actions = document.getElementById("delete-actions");
      call("DELETE", "/api/products/" + id).then(function (res) {
        if (res.ok) {
          location.href = "/products";
          return;
        }
        formError(actions, "Could not delete: " + (res.data.error || "HTTP " + res.status));
      }).catch(function (err) {
        formError(actions, "Could not delete: " + err.message);
      });
    }
  });

  document.addEventListener("keydown", function (e) {
    var modal = document.getElementById("delete-modal");
    if (e.key === "Escape" && modal && !modal.hidden) closeModal(modal);
  });

  // ---- Cart quantities ----------------------------------------------------------------------
  document.addEventListener("change", function (e) {
    var input = e.target;
    if (!input.classList || !input.classList.contains("cart-qty")) return;
    var id = input.getAttribute("data-product-id");
    call("PUT", "/api/cart/" + id, { qty: parseInt(input.value, 10) || 0 }).then(function (res) {
      if (!res.ok) {
        toast("Could not change the quantity: " + (res.data.error || "HTTP " + res.status), true);
        return;
      }
      var line = res.data.lines[id];
      if (line === undefined) input.closest("tr").remove();
      else setText("line-total-" + id, line);
      setText("cart-subtotal", res.data.subtotal);
      setText("cart-shipping", res.data.shipping);
      setText("cart-total", res.data.total);
      setCartCount(res.data.count);
    }).catch(function (err) {
      toast("Could not change the quantity: " + err.message, true);
    });
  });

  // ---- One-page checkout: the total follows the delivery option -------------------------------
  document.addEventListener("change", function (e) {
    var select = e.target;
    if (!select.hasAttribute || !select.hasAttribute("data-quote")) return;
    call("GET", "/api/quote?delivery=" + encodeURIComponent(select.value)).then(function (res) {
      if (!res.ok) return;
      setText("checkout-subtotal", res.data.subtotal);
      setText("checkout-shipping", res.data.shipping);
      setText("checkout-total", res.data.total);
    }).catch(function (err) {
      toast("Could not update the total: " + err.message, true);
    });
  });

  // ---- Cookie banner ------------------------------------------------------------------------
  document.addEventListener("click", function (e) {
    var choice = e.target.closest ? e.target.closest("[data-consent]") : null;
    var banner = document.getElementById("cookie-banner");
    if (!choice || !banner) return;
    document.cookie = "ss_consent=" + choice.getAttribute("data-consent") + "; path=/; SameSite=Lax";
    banner.remove();
    document.querySelector(".page").removeAttribute("inert");
  });

  // ---- Preferences --------------------------------------------------------------------------
  // The card signature is an editable element, which a form does not submit: its text goes in
  // a hidden field. A plant is picked by double-clicking it.
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (form.id !== "preferences-form") return;
    form.elements.namedItem("signature").value = document.getElementById("pref-signature").innerText.trim();
  });

  document.addEventListener("dblclick", function (e) {
    var pick = e.target.closest ? e.target.closest("[data-favourite]") : null;
    if (!pick) return;
    var name = pick.getAttribute("data-favourite");
    document.getElementById("pref-favourite").value = name;
    document.getElementById("favourite-name").textContent = name;
    document.querySelectorAll("[data-favourite]").forEach(function (li) {
      if (li === pick) li.setAttribute("aria-current", "true"); else li.removeAttribute("aria-current");
    });
  });

  document.addEventListener("DOMContentLoaded", function () {
    var accept = document.querySelector("#cookie-banner [data-consent=accepted]");
    if (accept) accept.focus();
  });
})();
