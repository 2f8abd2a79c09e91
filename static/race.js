// The race page's one piece of behaviour beyond htmx: its Share button (the system share
// sheet on phones, else the link copied). Everything else comes from the server's stream.
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
