// The feel of the app: its sounds and its service worker. No game logic lives here: the server
// names the sound of each action on the status line it swaps in (data-sound, data-run).
(function () {
  "use strict";
  var me = document.currentScript;

  // Sounds: static/sound.js is loaded after the player's first action (never before, and not
  // at all when the sound is off: the server then names no sound). The status line keeps
  // its words: a sound never replaces what a screen reader announces.
  var heard = typeof WeakSet === "function" ? new WeakSet() : null;
  var soundSrc = me && me.getAttribute("data-sound-src");
  var loading = null, waiting = [];

  function withSound(then) {
    if (window.TriPeaksSound) { then(window.TriPeaksSound); return; }
    waiting.push(then);
    if (loading || !soundSrc) return;
    loading = document.createElement("script");
    loading.src = soundSrc;
    loading.onload = function () {
      waiting.splice(0).forEach(function (f) { f(window.TriPeaksSound); });
    };
    document.head.appendChild(loading);
  }

  // The page's first status line was not swapped in: it never sounds.
  var first = document.getElementById("status");
  if (first && heard) heard.add(first);

  function sound() {
    var status = document.getElementById("status");
    if (!status || !heard || heard.has(status)) return;
    heard.add(status);
    var name = status.getAttribute("data-sound");
    if (!name) return;
    var run = parseInt(status.getAttribute("data-run") || "0", 10);
    withSound(function (player) { player.play(name, run); });
  }
  document.addEventListener("htmx:after:swap", sound);
  document.addEventListener("htmx:after:settle", sound);

  // The service worker keeps the static files and the offline page (static/sw.js). When the
  // page's language changes, the offline page is asked for again, so the worker keeps it in
  // the player's language.
  if ("serviceWorker" in navigator && window.isSecureContext) {
    window.addEventListener("load", function () {
      navigator.serviceWorker.register("/sw.js").then(function () {
        return navigator.serviceWorker.ready;
      }).then(function () {
        var lang = document.documentElement.lang, said = null;
        try { said = localStorage.getItem("tp-offline-lang"); } catch (e) { /* storage off */ }
        if (said === lang || !navigator.serviceWorker.controller) {
          if (said === null) try { localStorage.setItem("tp-offline-lang", lang); } catch (e) { /* storage off */ }
          return;
        }
        fetch("/offline", { cache: "no-store" }).then(function () {
          try { localStorage.setItem("tp-offline-lang", lang); } catch (e) { /* storage off */ }
        }, function () {});
      }).catch(function () {});
    });
  }
})();
