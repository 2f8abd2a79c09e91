// The feel of the app: its service worker (the offline page). No game logic lives here.
(function () {
  "use strict";

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
