// Review page helpers. No game logic here: every step is a page the server renders.
// The keys only follow the page's own links: Left/Right (mirrored in right-to-left
// pages, like the slider), Home and End.
(function () {
  "use strict";
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.isContentEditable)) return;
    var rtl = document.documentElement.dir === "rtl";
    var ids = { Home: "first", End: "last", ArrowLeft: rtl ? "forward" : "back", ArrowRight: rtl ? "back" : "forward" };
    var link = ids[event.key] && document.getElementById(ids[event.key]);
    if (link && link.tagName === "A") { event.preventDefault(); link.click(); }
  });
})();
