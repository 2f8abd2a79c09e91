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

// htmx sets the page up a moment after it loads (a timer), and the SSE extension loads after
// it: when a slow fetch of the extension let htmx set the page up first, the extension never
// saw the race's section. Then ask htmx to set the section up again, now with the extension.
(function () {
  var section = document.getElementById("race"), probe = document.querySelector("[hx-post]");
  if (section && probe && probe._htmx && !(section._htmx && section._htmx.sse) && window.htmx) {
    window.htmx.process(section);
  }
})();
