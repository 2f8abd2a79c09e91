// The offline page: back to the page that was asked for as soon as the server answers again
// (when the browser says the network is back, and every few seconds anyway).
(function () {
  "use strict";
  var going = false;
  function tryBack() {
    if (going || navigator.onLine === false) return;
    fetch("/healthz", { cache: "no-store" }).then(function (response) {
      if (response.ok && !going) { going = true; window.location.reload(); }
    }, function () {});
  }
  window.addEventListener("online", tryBack);
  setInterval(tryBack, 3000);
})();
