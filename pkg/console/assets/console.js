// Progressive enhancement for the review console: every page works without this file. With it,
// a button marked data-opens shows the review dialog it names (the same diff is on the page).
document.querySelectorAll("button[data-opens]").forEach(function (b) {
  var d = document.getElementById(b.getAttribute("data-opens"));
  if (!d || typeof d.showModal !== "function") return;
  b.hidden = false;
  b.addEventListener("click", function () { d.showModal(); });
});
