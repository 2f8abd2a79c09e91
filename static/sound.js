// TriPeaks' sounds, made in the page with the Web Audio API (no sound files). static/feel.js
// loads this file after the player's first action and plays the sound that the server's swapped
// status names (its data-sound attribute): no game logic here. Each sound is a few notes of
// oscillators (and a burst of noise for a card drawn), under a quarter of a second mostly.
(function () {
  "use strict";
  var audio = null, noise = null;
  var VOLUME = 0.18;

  function context() {
    if (!audio) {
      var Context = window.AudioContext || window.webkitAudioContext;
      if (!Context) return null;
      audio = new Context();
    }
    if (audio.state === "suspended") audio.resume();
    return audio;
  }

  // One note: a wave at a frequency, a quick attack and a decay, starting `at` seconds from now.
  function note(ctx, frequency, at, length, wave, gain) {
    var osc = ctx.createOscillator(), env = ctx.createGain(), start = ctx.currentTime + at;
    osc.type = wave || "triangle";
    osc.frequency.value = frequency;
    env.gain.setValueAtTime(0.0001, start);
    env.gain.exponentialRampToValueAtTime((gain || 1) * VOLUME, start + 0.012);
    env.gain.exponentialRampToValueAtTime(0.0001, start + length);
    osc.connect(env).connect(ctx.destination);
    osc.start(start);
    osc.stop(start + length + 0.02);
  }

  // A card flicked off the stock: a short burst of filtered noise.
  function flick(ctx) {
    if (!noise) {
      noise = ctx.createBuffer(1, Math.floor(ctx.sampleRate * 0.12), ctx.sampleRate);
      var data = noise.getChannelData(0);
      for (var i = 0; i < data.length; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / data.length);
    }
    var source = ctx.createBufferSource(), band = ctx.createBiquadFilter(), env = ctx.createGain();
    source.buffer = noise;
    band.type = "bandpass"; band.frequency.value = 2400; band.Q.value = 0.8;
    env.gain.value = VOLUME * 1.6;
    source.connect(band).connect(env).connect(ctx.destination);
    source.start(ctx.currentTime);
  }

  // A semitone above the one before for each card of the run, up to two octaves.
  function taken(run) {
    return 392 * Math.pow(2, Math.min(Math.max(run - 1, 0), 24) / 12);
  }

  var SOUNDS = {
    take: function (ctx, run) { note(ctx, taken(run), 0, 0.11, "triangle"); },
    draw: function (ctx) { flick(ctx); },
    undo: function (ctx) { note(ctx, 523, 0, 0.08, "sine"); note(ctx, 392, 0.07, 0.1, "sine"); },
    refused: function (ctx) { note(ctx, 147, 0, 0.13, "square", 0.35); },
    peak: function (ctx, run) {
      var base = taken(run);
      [1, 1.26, 1.5].forEach(function (step, i) { note(ctx, base * step, i * 0.07, 0.16, "triangle"); });
    },
    win: function (ctx) {
      [523, 659, 784, 1047].forEach(function (f, i) { note(ctx, f, i * 0.11, i === 3 ? 0.6 : 0.18, "triangle"); });
    },
    blocked: function (ctx) { note(ctx, 330, 0, 0.2, "sine"); note(ctx, 262, 0.16, 0.35, "sine"); }
  };

  window.TriPeaksSound = {
    play: function (name, run) {
      var make = SOUNDS[name], ctx = make && context();
      if (ctx) make(ctx, run || 0);
    }
  };
})();
