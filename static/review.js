// Review page helpers. No game logic here: every step is a page the server renders.
// The keys follow the page's own steps: Left/Right (mirrored in right-to-left pages, like the
// slider), Home and End; so do First, Back, Forward and Last when clicked.
// Every press moves exactly one step (issue 30): a press counts from the step the last press
// asked for, not from the one still shown; one step is asked for at a time, and when it comes
// the page asks for the last step wanted, if that is another.
(function () {
  "use strict";
  var wanted = null, asked = null, busy = false;

  function shown() { var n = document.getElementById("step-number"); return n ? Number(n.textContent) : 0; }
  function go(name) {
    var slider = document.getElementById("step-slider"), form = document.getElementById("slider-form");
    if (!slider || !form || !window.htmx) return false;
    var from = wanted === null ? shown() : wanted, last = Number(slider.max);
    var to = name === "first" ? 0 : name === "last" ? last : from + (name === "forward" ? 1 : -1);
    to = Math.max(0, Math.min(last, to));
    if (to === from) return true;
    wanted = to;
    if (!busy) ask();
    return true;
  }
  function ask() {
    var slider = document.getElementById("step-slider"), form = document.getElementById("slider-form");
    slider.value = String(wanted);
    slider.setAttribute("aria-valuetext", wanted + " / " + slider.max);
    busy = true;
    asked = wanted;
    form.requestSubmit();
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.isContentEditable)) return;
    var rtl = document.documentElement.dir === "rtl";
    var ids = { Home: "first", End: "last", ArrowLeft: rtl ? "forward" : "back", ArrowRight: rtl ? "back" : "forward" };
    if (ids[event.key] && go(ids[event.key])) event.preventDefault();
  });
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest(".replay-controls a.button");
    if (!link || ["first", "back", "forward", "last"].indexOf(link.id) < 0) return;
    if (event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey) return; // a new tab: the link's own
    if (go(link.id)) { event.preventDefault(); event.stopPropagation(); }
  }, true);
  document.addEventListener("htmx:finally:request", function (event) {
    var source = event.detail && event.detail.ctx && event.detail.ctx.sourceElement;
    if (!source || source.id !== "slider-form") return;
    busy = false;
    // A step that did not come (the server refused, the network failed): no asking again.
    if (wanted !== null && shown() === asked && wanted !== asked) ask();
    else wanted = null;
  });
})();
