// The daily result's Share button (templates/_daily_share.html): on phones the system share
// sheet (navigator.share), elsewhere the clipboard. The text holds no cards; without
// JavaScript it can be selected and copied by hand. Buttons swapped in later are served too.
"use strict";
document.addEventListener("click", async (event) => {
  const button = event.target.closest("#daily-share-button");
  if (!button) return;
  const field = document.getElementById(button.dataset.shareTarget);
  const status = document.getElementById("daily-share-status");
  const text = field.value;
  const phone = window.matchMedia("(pointer: coarse)").matches;
  if (phone && navigator.share) {
    try {
      await navigator.share({ text });
      return;
    } catch (error) {
      if (error && error.name === "AbortError") return;
    }
  }
  try {
    await navigator.clipboard.writeText(text);
    if (status) status.textContent = button.dataset.copied;
  } catch {
    field.focus();
    field.select();
  }
});
