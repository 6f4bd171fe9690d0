// The console-error regression: a stock widget that assumes an element every page lacks. It
// throws once, uncaught, after the page has been built; the shop keeps working.
(function () {
  "use strict";
  var widget = document.querySelector("[data-stock-widget]");
  widget.dataset.ready = "true";
})();
