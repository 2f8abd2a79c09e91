// TriPeaks page helpers. No game logic lives here: the server decides every move.
// This file only adds keyboard shortcuts, the Share button, and keeps focus sensible
// after htmx swaps the table.
(function () {
  "use strict";

  var lastPosition = null;

  function typing(target) {
    return target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.isContentEditable);
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    // event.code names the physical key, so D, U and N work on Hebrew, Ukrainian and Thai layouts too.
    var key = event.code;
    var target = null;
    if (key === "KeyD") target = document.getElementById("stock");
    else if (key === "KeyU") target = document.getElementById("undo");
    else if (key === "KeyH") target = document.getElementById("hint");
    else if (key === "KeyN") {
      var dialog = document.getElementById("new-game");
      if (dialog && dialog.showPopover) { dialog.showPopover(); event.preventDefault(); }
      var input = document.getElementById("code-input");
      if (input) input.focus();
      return;
    }
    if (target && !target.disabled) { event.preventDefault(); target.click(); }
  });

  document.addEventListener("click", function (event) {
    var card = event.target.closest && event.target.closest("[data-position]");
    lastPosition = card ? Number(card.getAttribute("data-position")) : null;
    var share = event.target.closest && event.target.closest("#share");
    if (!share) return;
    var url = share.getAttribute("data-share-url");
    var status = document.getElementById("status");
    function said(text) { if (status) status.textContent = text; }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(url).then(function () { said(share.getAttribute("data-copied")); },
        function () { said(url); });
    } else {
      said(url);
    }
  });

  // After a swap: close the New game window when a new game was dealt (the whole
  // #game was swapped), and put focus back on the table if the focused card went to the waste.
  document.addEventListener("htmx:after:swap", function (event) {
    var dialog = document.getElementById("new-game");
    var active = document.activeElement;
    var ctx = event.detail && event.detail.ctx;
    var dealt = ctx && ctx.target && ctx.target.id === "game";
    if (dealt && dialog && dialog.matches(":popover-open")) {
      dialog.hidePopover();
    }
    if (active && active !== document.body && document.contains(active)) return;
    var cards = Array.prototype.slice.call(document.querySelectorAll("#table button.card.face"));
    var next = null;
    if (lastPosition !== null) {
      cards.sort(function (a, b) {
        return Math.abs(a.dataset.position - lastPosition) - Math.abs(b.dataset.position - lastPosition);
      });
      next = cards[0];
    }
    (next || document.getElementById("stock") || document.body).focus();
  });
})();

// ux-more: the game clock counts on between swaps. The server renders the true time on every
// page and swap (data-running: the seconds on the clock then); this only adds the seconds since.
(function () {
  "use strict";
  var seen = null, from = 0, at = 0;
  function text(s) {
    var h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, r = s % 60;
    var mm = h ? (m < 10 ? "0" : "") + m : String(m);
    return (h ? h + ":" : "") + mm + ":" + (r < 10 ? "0" : "") + r;
  }
  setInterval(function () {
    var clock = document.getElementById("clock");
    var running = clock && clock.getAttribute("data-running");
    if (!running) { seen = null; return; }
    if (clock !== seen || Number(running) !== from) { seen = clock; from = Number(running); at = Date.now(); }
    var s = from + Math.floor((Date.now() - at) / 1000);
    clock.textContent = text(s);
  }, 1000);
})();
