// The race page's behaviour beyond htmx: its Share button (the system share sheet on phones,
// else the link copied), and the board taking focus when the deal comes. Everything else comes
// from the server's stream.
"use strict";
document.addEventListener("click", function (event) {
  var button = event.target.closest && event.target.closest("#race-share");
  if (!button) return;
  var url = button.getAttribute("data-share-url"), text = button.getAttribute("data-share-text");
  var news = document.getElementById("race-news");
  function say(words) { if (news) news.textContent = words; }
  if (navigator.share && (!navigator.canShare || navigator.canShare({ url: url, text: text }))) {
    navigator.share({ title: document.title, text: text, url: url }).catch(function () {});
  } else if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(url).then(function () { say(button.getAttribute("data-copied")); },
      function () { document.getElementById("race-link").select(); });
  } else {
    var input = document.getElementById("race-link");
    if (input) { input.focus(); input.select(); }
  }
});

// htmx sets the page up a moment after it loads (a timer), and the SSE extension loads after
// it: when a slow fetch of the extension let htmx set the page up first, the extension never
// saw the race's section. Then ask htmx to set the section up again, now with the extension;
// but only once it is clear the section asked for no stream (static/tripeaks.js marks a
// section whose stream was asked for): set up twice, a page would hold two streams. The same
// for the ghost's section of "Race this run" (issue 39).
(function () {
  var probe = document.querySelector("[hx-post]");
  if (!probe || !probe._htmx || !window.htmx) return; // htmx sets the page up after this: all is there
  setTimeout(function () {
    ["race", "ghost"].forEach(function (id) {
      var section = document.getElementById(id);
      if (section && !section._streamAsked && !(section._htmx && section._htmx.sse)) window.htmx.process(section);
    });
  }, 250);
})();

// The deal came (the lobby's page asked for this one: the same address) while the race runs:
// the board takes focus (the card a keyboard player plays first, else the stock), so that focus
// never falls to the page's body, and the news says the cards are dealt.
(function () {
  var section = document.getElementById("race");
  if (!section || !document.getElementById("peaks") || !document.getElementById("race-strip")) return;
  var from = null;
  try { from = document.referrer && new URL(document.referrer); } catch (error) { from = null; }
  if (!from || from.origin !== location.origin || from.pathname !== location.pathname) return;
  function dealt() {
    var active = document.activeElement;
    if (!active || active === document.body) {
      var card = document.querySelector('#peaks button.card[tabindex="0"]') ||
        document.querySelector("#peaks button.card.face:not([disabled])") || document.getElementById("stock");
      if (card) card.focus();
    }
    var news = document.getElementById("race-news");
    // Filled a moment after the page is shown, so that screen readers hear the change.
    if (news) setTimeout(function () { news.textContent = section.getAttribute("data-dealt"); }, 150);
  }
  if (document.readyState === "complete") setTimeout(dealt, 0);
  else window.addEventListener("load", function () { setTimeout(dealt, 0); });
})();
