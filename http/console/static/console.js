// Optional enhancement only: every page works without it. Shows the
// canonical form hint of an ssl subject while it is typed is left to the
// server; this script only focuses the first field with an error.
document.addEventListener("DOMContentLoaded", function () {
  var bad = document.querySelector('[aria-invalid="true"]');
  if (bad) { bad.focus(); }
});
