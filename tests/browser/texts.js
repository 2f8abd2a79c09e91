// Every visible text in the viewport: its tight box, its colour (with the opacity of its
// ancestors folded into the alpha), and whether it is large (24 px, or 18.66 px bold).
() => {
  const parse = c => { const m = c.match(/[\d.]+/g).map(Number); return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1]; };
  const opacity = e => { let o = 1; for (; e; e = e.parentElement) o *= parseFloat(getComputedStyle(e).opacity); return o; };
  const texts = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.textContent.trim()) continue;
    const e = node.parentElement;
    if (!e || e.closest("[aria-hidden=true], .visually-hidden, .status.over, script, style")) continue;
    const style = getComputedStyle(e);
    if (style.visibility !== "visible" || parseFloat(style.fontSize) < 1) continue;
    if (e.closest("[popover]") && !e.closest("[popover]").matches(":popover-open")) continue;
    if (e.closest("details:not([open]) > :not(summary)")) continue;
    const range = document.createRange(); range.selectNodeContents(node);
    for (const r of range.getClientRects()) {
      if (r.width < 2 || r.height < 2 || r.bottom < 0 || r.right < 0 || r.top > innerHeight || r.left > innerWidth) continue;
      const [cr, cg, cb, ca] = parse(style.color);
      const size = parseFloat(style.fontSize), bold = parseInt(style.fontWeight, 10) >= 700;
      texts.push({ text: node.textContent.trim().slice(0, 40), box: [r.left + 1, r.top + 1, r.right - 1, r.bottom - 1],
                   color: [cr, cg, cb, ca * opacity(e)], large: size >= 24 || (bold && size >= 18.66) });
    }
  }
  // The cards' corner indexes are generated content (::before).
  for (const e of document.querySelectorAll(".card.face")) {
    const r = e.getBoundingClientRect(), s = getComputedStyle(e, "::before");
    if (!r.width || r.bottom < 0 || r.top > innerHeight) continue;
    const [cr, cg, cb, ca] = parse(s.color), size = parseFloat(s.fontSize);
    texts.push({ text: "corner " + e.dataset.r + e.dataset.s, box: [r.left + 3, r.top + 3, r.left + 3 + size, r.top + 3 + size * 1.9],
                 color: [cr, cg, cb, ca], large: size >= 18.66 });
  }
  return texts;
}
