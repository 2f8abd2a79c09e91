// TriPeaks' service worker (served as /sw.js after a line setting self.TRIPEAKS: see
// app/web/ops/install.py). It keeps the static files and the offline page, and nothing else:
// the server keeps every game, so pages, moves and their answers always go to the network.
// A page that cannot be reached shows the offline page, which comes back by itself.
"use strict";
var SETUP = self.TRIPEAKS, CACHE = "tripeaks-" + SETUP.version;

// Only navigations and static files come to this worker. Everything else (a move, any htmx
// request, the API) goes straight to the network without waking it (the static routing API;
// a browser without it runs the fetch handler below, which lets such requests through).
var ROUTES = [{
  condition: { not: { or: [{ requestMode: "navigate" }, { urlPattern: "/static/*" }, { urlPattern: SETUP.offline }] } },
  source: "network"
}];

self.addEventListener("install", function (event) {
  var routed = Promise.resolve();
  try {
    if (event.addRoutes) routed = event.addRoutes(ROUTES).catch(function () {});
  } catch (e) { /* routes this browser does not understand: the fetch handler does it all */ }
  event.waitUntil(routed.then(function () { return caches.open(CACHE); })
    .then(function (cache) { return cache.addAll(SETUP.keep); })
    .then(function () { return self.skipWaiting(); }));
});

self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys().then(function (names) {
    return Promise.all(names.filter(function (name) {
      return name.indexOf("tripeaks-") === 0 && name !== CACHE;
    }).map(function (name) { return caches.delete(name); }));
  }).then(function () {
    // A page's request leaves while the worker starts, not after.
    var preload = self.registration.navigationPreload;
    return preload ? preload.enable() : null;
  }).then(function () { return self.clients.claim(); }));
});

function keep(request, response) {
  if (response.ok) {
    var copy = response.clone();
    caches.open(CACHE).then(function (cache) { cache.put(request, copy); });
  }
  return response;
}

self.addEventListener("fetch", function (event) {
  var request = event.request, url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  if (url.pathname.indexOf("/static/") === 0) {
    // Static files: their URLs change with their content (?v=hash), so a kept one is right.
    event.respondWith(caches.match(request).then(function (kept) {
      return kept || fetch(request).then(function (response) { return keep(request, response); });
    }));
  } else if (url.pathname === SETUP.offline) {
    // The page asks for it again when its language changes: keep the new one.
    event.respondWith(fetch(request).then(function (response) { return keep(SETUP.offline, response); },
      function () { return caches.match(SETUP.offline); }));
  } else if (request.mode === "navigate") {
    event.respondWith(Promise.resolve(event.preloadResponse).then(function (early) { return early || fetch(request); })
      .catch(function () { return caches.match(SETUP.offline); }));
  }
});
