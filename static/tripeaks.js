// TriPeaks page helpers. No game logic lives here: the server decides every move and renders
// every state. This file only moves focus (a roving tabindex over the face-up cards, and a
// sensible place after every swap: docs/accessibility.md), adds keyboard shortcuts, the Share
// button, and small touches of the New game window.
(function () {
  "use strict";

  var before = null; // what was focused and shown just before a swap

  function $(id) { return document.getElementById(id); }
  function typing(target) {
    return target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.isContentEditable);
  }
  function faceCards() {
    return Array.prototype.slice.call(document.querySelectorAll("#peaks button.card.face"));
  }
  function targetId(ctx) {
    var t = ctx && ctx.target;
    return typeof t === "string" ? t.replace(/^#/, "") : (t && t.id) || "";
  }
  function centre(el) {
    var r = el.getBoundingClientRect();
    return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
  }
  function nearest(cards, point) {
    var best = null, bestD = Infinity;
    cards.forEach(function (c) {
      var p = centre(c), d = Math.abs(p.x - point.x) + 2 * Math.abs(p.y - point.y);
      if (d < bestD) { bestD = d; best = c; }
    });
    return best;
  }

  // The board is one Tab stop: the current card has tabindex 0, the other face-up cards -1.
  function rove(current) {
    var cards = faceCards();
    if (!cards.length) return null;
    if (!current || cards.indexOf(current) < 0) {
      current = cards.filter(function (c) { return c.tabIndex === 0 && c.dataset.rove === "1"; })[0] || cards[0];
    }
    cards.forEach(function (c) { c.tabIndex = c === current ? 0 : -1; c.dataset.rove = c === current ? "1" : ""; });
    return current;
  }

  // Arrow keys move among the face-up cards by where they are on the screen, so they mirror
  // with a right-to-left page by themselves; Home and End go to the first and last card.
  function step(from, key) {
    var cards = faceCards(), here = centre(from), best = null, bestD = Infinity;
    var rtl = document.documentElement.dir === "rtl";
    if (key === "Home" || key === "End") {
      var ordered = cards.slice().sort(function (a, b) {
        var pa = centre(a), pb = centre(b);
        return Math.abs(pa.y - pb.y) > 4 ? pa.y - pb.y : (rtl ? pb.x - pa.x : pa.x - pb.x);
      });
      return key === "Home" ? ordered[0] : ordered[ordered.length - 1];
    }
    cards.forEach(function (c) {
      if (c === from) return;
      var p = centre(c), dx = p.x - here.x, dy = p.y - here.y, along, across;
      if (key === "ArrowRight") { along = dx; across = dy; }
      else if (key === "ArrowLeft") { along = -dx; across = dy; }
      else if (key === "ArrowDown") { along = dy; across = dx; }
      else { along = -dy; across = dx; }
      if (along <= 2) return;
      var d = along + 3 * Math.abs(across);
      if (d < bestD) { bestD = d; best = c; }
    });
    return best;
  }

  document.addEventListener("keydown", function (event) {
    var target = event.target;
    var arrows = ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End"];
    if (target.closest && target.closest("#peaks") && arrows.indexOf(event.key) >= 0) {
      var card = target.closest("button.card.face");
      var next = card && step(card, event.key);
      event.preventDefault();
      if (next) { rove(next); next.focus(); }
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey || typing(target)) return;
    // event.code names the physical key, so D, U and N work on Hebrew, Ukrainian and Thai layouts too.
    var key = event.code, button = null;
    if (key === "KeyD") button = $("stock");
    else if (key === "KeyU") button = $("undo");
    else if (key === "KeyH") button = $("hint");
    else if (key === "KeyN") {
      var dialog = $("new-game");
      if (dialog && dialog.showPopover && !dialog.matches(":popover-open")) { dialog.showPopover(); }
      event.preventDefault();
      var input = $("code-input");
      if (input) input.focus();
      return;
    }
    if (button && !button.disabled && button.getAttribute("aria-disabled") !== "true") {
      event.preventDefault();
      button.click();
    }
  });

  document.addEventListener("focusin", function (event) {
    var card = event.target.closest && event.target.closest("#peaks button.card.face");
    if (card) rove(card);
  });

  document.addEventListener("click", function (event) {
    var skip = event.target.closest && event.target.closest(".skip-link");
    if (skip) {
      var first = rove();
      if (first) { event.preventDefault(); first.focus(); }
      return;
    }
    var share = event.target.closest && event.target.closest("#share, #share-game");
    if (share) shareGame(share);
  });

  var sayTimer = null;
  function say(text) {
    var status = $("status");
    if (!status) return;
    status.textContent = text;
    clearTimeout(sayTimer);
    sayTimer = setTimeout(function () { if (status.textContent === text) status.textContent = ""; }, 4000);
  }
  function shareGame(share) {
    // One share: once the game has ended, the bar's Share sends what the result box's does
    // (the game itself, its review link), so the buttons keep their places.
    share = $("share-game") || share;
    var url = share.getAttribute("data-share-url"), text = share.getAttribute("data-share-text");
    if (navigator.share && (!navigator.canShare || navigator.canShare({ url: url, text: text }))) {
      navigator.share({ title: document.title, text: text, url: url }).catch(function () {});
      return;
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(url).then(function () { say(share.getAttribute("data-copied")); },
        function () { say(url); });
    } else {
      say(url);
    }
  }

  // The New game window: focus its first choice when it opens; an edit clears an old error.
  var opener = null; // what had focus when the window opened: focus goes back there when it closes
  document.addEventListener("beforetoggle", function (event) {
    if (event.target.id === "new-game" && event.newState === "open") opener = document.activeElement;
  }, true);
  document.addEventListener("toggle", function (event) {
    if (event.target.id !== "new-game") return;
    var dialog = event.target;
    if (event.newState === "closed") {
      var active = document.activeElement;
      if (!active || active === document.body || dialog.contains(active)) {
        var back = opener && document.contains(opener) && opener !== document.body ? opener : (rove() || $("stock"));
        if (back) back.focus();
      }
      opener = null;
      return;
    }
    requestAnimationFrame(function () {
      if (dialog.contains(document.activeElement)) return;
      var first = dialog.querySelector("input[name=rules]:checked") || dialog.querySelector("input");
      if (first) first.focus();
    });
  }, true);
  document.addEventListener("input", function (event) {
    if (event.target.id !== "code-input") return;
    var error = $("code-error");
    if (error) error.remove();
    event.target.removeAttribute("aria-invalid");
    event.target.removeAttribute("aria-describedby");
  });

  // No flying cards for a whole new deal, nor when the player asks for less motion (htmx
  // decides per request: ctx.transition, from htmx-config "transitions").
  // A new tap or key while cards still fly ends the flight at once: htmx holds a request until
  // its transition has finished, and a click in the meantime would wait, or be dropped.
  // A move's transition starts as its request leaves, not when the answer comes: the browser
  // captures the old board (a rendered frame, slow on a busy machine) while the server works,
  // and the answer is swapped in as soon as it arrives (docs/performance.md, "Browser"; guarded
  // by bench/browser.py's update times and tests/browser/test_motion.py).
  var flight = null, early = null;
  var start = document.startViewTransition && document.startViewTransition.bind(document);
  // A transition skipped (a tap lands it) or aborted by the browser (the page hidden, another
  // one begun: "invalid state") rejects its promises; the swap itself still happens, so the
  // rejections are expected and must not surface as page errors.
  function quiet(transition) {
    transition.ready.catch(function () {});
    transition.finished.catch(function () {});
    transition.updateCallbackDone.catch(function () {});
  }
  function hand(slot, update) {
    if (early === slot) early = null;
    clearTimeout(slot.timer);
    slot.give(update);
  }
  // The card on the waste now stays under the one coming to it: its picture is held below the
  // flying cards (static/tripeaks.css, "under"), not on top of them.
  function bury() {
    var waste = $("waste-card");
    if (waste) waste.classList.add("under");
  }
  function startEarly() {
    if (early || !start) return;
    if (pressed) cut = true;
    bury();
    var slot = {};
    var gate = new Promise(function (resolve) { slot.give = resolve; });
    slot.transition = start(function () { return gate.then(function (update) { return update && update(); }); });
    quiet(slot.transition);
    slot.timer = setTimeout(function () { hand(slot, null); }, 1000); // a slow answer gets a transition of its own
    early = slot;
  }
  if (start) {
    document.startViewTransition = function (update) {
      var transition;
      if (pressed) cut = true;
      if (early) { transition = early.transition; hand(early, update); } else { bury(); transition = start(update); }
      flight = transition;
      quiet(transition);
      transition.finished.then(function () { if (flight === transition) flight = null; }, function () {});
      return transition;
    };
  }
  // While cards fly, Chromium hit-tests the board as if its named cards were not there: a press
  // on a card lands on the board (#peaks), and its click would be lost (issue 30). So a press
  // lands the flight, asks again what is under it, and hands its click to that control.
  // An answer swapped in between a quick click's press and its release loses the click: a
  // flight that begins takes the release (the click goes to the page itself), and a control
  // swapped for its new self is not the one pressed (no click at all). So such a release clicks
  // the control pressed (by its id, if it was swapped), if it is still under the pointer, and
  // the browser's own click of that press, if one comes, is dropped.
  var aimed = null, pressed = null, cut = false, clicked = 0;
  function control(el) { return el && el.closest ? el.closest("button, a[href], summary, input, select, label") : null; }
  function land(event) {
    var moving = flight || (early && early.transition);
    if (!moving) return;
    moving.skipTransition();
    flight = null;
    if (event.type !== "pointerdown") return;
    var real = control(document.elementFromPoint(event.clientX, event.clientY));
    if (real && real !== control(event.target)) aimed = real;
  }
  function release(event) {
    var was = pressed, now;
    pressed = null;
    if (!was || (!cut && was.isConnected)) return;
    cut = false;
    now = was.isConnected ? was : was.id && $(was.id);
    if (!now || now.disabled) return;
    var box = now.getBoundingClientRect();
    if (event.clientX < box.left || event.clientX > box.right || event.clientY < box.top || event.clientY > box.bottom) return;
    land(event);
    aimed = null;
    clicked = event.timeStamp;
    now.click();
  }
  document.addEventListener("pointerdown", function (event) {
    aimed = null;
    clicked = 0;
    cut = false;
    land(event);
    pressed = event.button === 0 ? aimed || control(event.target) : null;
  }, true);
  document.addEventListener("pointerup", release, true);
  document.addEventListener("pointercancel", function () { pressed = null; }, true);
  document.addEventListener("keydown", function (event) { aimed = null; clicked = 0; land(event); }, true);
  document.addEventListener("mousedown", function (event) {
    // The board itself never takes focus from a press: the arrows work on its cards only.
    if (aimed || event.target.id === "peaks") event.preventDefault();
    if (aimed && !aimed.disabled) aimed.focus({ preventScroll: true });
  }, true);
  document.addEventListener("click", function (event) {
    var real = aimed;
    aimed = null;
    // The press was clicked at its release already (its own click follows at once, if at all).
    if (clicked && event.isTrusted && event.timeStamp - clicked < 1000) {
      clicked = 0;
      event.preventDefault();
      event.stopImmediatePropagation();
      return;
    }
    if (!real || real.contains(event.target) || !event.isTrusted) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    real.click();
  }, true);

  document.addEventListener("htmx:config:request", function (event) {
    var ctx = event.detail && event.detail.ctx;
    if (!ctx) return;
    // A live section's stream was asked for: static/race.js sets it up again only if not.
    var source = ctx.sourceElement;
    if (source && source.hasAttribute && source.hasAttribute("hx-sse:connect")) source._streamAsked = true;
    // Only cards fly: the answers that fill in a result box (hx-trigger="load") or a setting
    // swap without a transition, so they never queue in front of the player's next move.
    var id = targetId(ctx);
    if ((id !== "table" && id !== "replay-step") || window.matchMedia("(prefers-reduced-motion: reduce)").matches) ctx.transition = false;
  });
  document.addEventListener("htmx:before:request", function (event) {
    var ctx = event.detail && event.detail.ctx;
    if (ctx && ctx.transition && targetId(ctx) === "table" && !event.defaultPrevented) startEarly();
  });
  // A refused move marks the card itself: a short shake and a ring (the ring only, under
  // reduced motion), beside the status line's words.
  document.addEventListener("htmx:finally:request", function (event) { // after its swap
    var ctx = event.detail && event.detail.ctx;
    var card = ctx && ctx.request && ctx.request.submitter;
    if (!card || !ctx.response || ctx.response.status !== 409 || !card.matches("#peaks .card")) return;
    var now = card.id && $(card.id);
    if (!now) return;
    document.querySelectorAll("#peaks .refused").forEach(function (c) { c.classList.remove("refused"); });
    void now.offsetWidth; // the shake starts again on a second refusal
    now.classList.add("refused");
  });
  document.addEventListener("htmx:before:request", function () { // the next action takes the mark away
    document.querySelectorAll("#peaks .refused").forEach(function (c) { c.classList.remove("refused"); });
  });
  // Offline (issue 42): an action that cannot reach the server is answered at once by the
  // page's own line (templates/base.html, in the page's language): nothing was done, the
  // server's game is as it was. The line goes when a request goes through or the network is back.
  // A 5xx (a proxy's 502 while a server restarts, the store away) swaps nothing (htmx-config's
  // noSwap): the same line says the server did not answer.
  function offline(shown, why) {
    var note = $("offline-note");
    if (!note) return;
    var words = shown && note.getAttribute(why === "server" ? "data-server" : "data-offline");
    if (words && note.textContent !== words) note.textContent = words;
    if (note.hidden === shown) note.hidden = !shown;
  }
  document.addEventListener("htmx:error", function (event) {
    var error = event.detail && event.detail.error;
    if (!navigator.onLine || (error && error.name === "TypeError")) offline(true); // fetch failed: no network
  });
  document.addEventListener("htmx:after:request", function (event) {
    var ctx = event.detail && event.detail.ctx;
    if (ctx && ctx.response) offline(ctx.response.status >= 500, "server");
  });
  window.addEventListener("online", function () { offline(false); });
  // An answer that swapped nothing (or failed) lets the held screen go at once.
  document.addEventListener("htmx:finally:request", function () { if (early) hand(early, null); });

  // What a move's swap (the table) or a whole game's swap started from. Other swaps running
  // at the same time (a result box filling in) neither replace nor clear it.
  document.addEventListener("htmx:before:swap", function (event) {
    var active = document.activeElement;
    var ctx = event.detail && event.detail.ctx;
    var id = targetId(ctx);
    if (id !== "table" && id !== "game") return;
    var card = active && active.closest && active.closest("#peaks .card");
    before = {
      ctx: ctx,
      id: active && active.id,
      card: card ? centre(card) : null,
      result: !!$("result"),
      whole: targetId(ctx) === "game",
    };
  });

  // After a swap (inside the view transition's update, so focus never waits for the motion).
  function settle() {
    if (!before) { rove(); return; }
    var active = document.activeElement, result = $("result");
    var dialog = $("new-game");
    if (before.whole && dialog && dialog.matches(":popover-open")) dialog.hidePopover();
    if (result && !before.result) {
      var primary = result.querySelector(".button.primary");
      if (primary) { primary.focus(); return; }
    }
    if (before.whole && $("attempt-choice")) { // a game not dealt: the choice offered instead
      $("attempt-choice").querySelector(".button.primary").focus();
      return;
    }
    if (before.whole) {
      var first = rove();
      (first || $("stock")).focus();
      return;
    }
    if (active && active !== document.body && document.contains(active) && !active.disabled) {
      rove(active.closest && active.closest("#peaks button.card.face"));
      return;
    }
    var cards = faceCards(), again = before.id && $(before.id), next = null;
    if (before.card) next = nearest(cards, before.card);
    else if (again && !again.disabled && again.tabIndex >= 0) next = again;
    if (!next) next = rove() || $("stock");
    if (next.matches && next.matches("#peaks .card")) rove(next);
    next.focus();
  }
  document.addEventListener("htmx:after:settle", function (event) {
    var id = event.target && event.target.id;
    if (id === "table" || id === "game" || id === "result-area" || id === "undo") settle();
    if (id === "new-game-form" && $("code-error")) $("code-input").focus(); // read with its error
    if (id === "large-cards-form") {
      var on = $("large-cards").getAttribute("aria-pressed") === "true";
      $("main").classList.toggle("large-cards", on);
    }
  });
  document.addEventListener("htmx:after:swap", function (event) {
    if (!before || before.ctx !== (event.detail && event.detail.ctx)) return;
    // Whatever the swap took away, focus never stays lost on the page's body.
    if (!document.activeElement || document.activeElement === document.body) {
      var card = rove();
      if (card || $("stock")) (card || $("stock")).focus();
    }
    before = null;
  });

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", function () { rove(); });
  else rove();
})();

// The game clock: it counts on between swaps. The server renders the true time on every
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
