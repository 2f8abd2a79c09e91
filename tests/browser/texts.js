// Every visible text in the viewport: its tight box, its colour (with the opacity of its
// ancestors folded into the alpha), and whether it is large (24 px, or 18.66 px bold).
() => {
  // The points of a box where the text is what the player sees: not where another element (the
  // New game window, a box laid over the table) covers it. The same grid contrast.js samples.
  // A text of which under a quarter shows (the sliver of a card's corner at a window's edge) is
  // not read there, so it is not measured either.
  const seen = (e, box) => {
    const pts = [];
    let all = 0;
    const x0 = Math.max(0, Math.floor(box[0])), y0 = Math.max(0, Math.floor(box[1]));
    const x1 = Math.min(innerWidth - 1, Math.ceil(box[2])), y1 = Math.min(innerHeight - 1, Math.ceil(box[3]));
    const stepX = Math.max(1, Math.floor((x1 - x0) / 12)), stepY = Math.max(1, Math.floor((y1 - y0) / 6));
    for (let y = y0; y <= y1; y += stepY) {
      for (let x = x0; x <= x1; x += stepX) {
        all += 1;
        const hit = document.elementFromPoint(x, y);
        if (hit && (hit === e || e.contains(hit) || hit.contains(e))) pts.push([x, y]);
      }
    }
    return pts.length * 4 >= all ? pts : [];
  };
  const parse = c => { const m = c.match(/[\d.]+/g).map(Number); return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1]; };
  const opacity = e => { let o = 1; for (; e; e = e.parentElement) o *= parseFloat(getComputedStyle(e).opacity); return o; };
  // What is painted on top is what the hit test finds, but for the cards on the peaks, which
  // are hit where their middle is (static/tripeaks.css, "Touch targets"): boxes, for the look.
  const boxes = document.createElement("style");
  boxes.textContent = "#peaks > .card { pointer-events: auto !important; }";
  document.head.append(boxes);
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
      const box = [r.left + 1, r.top + 1, r.right - 1, r.bottom - 1], points = seen(e, box);
      if (!points.length) continue; // covered (but for a sliver): not seen, so not measured
      texts.push({ text: node.textContent.trim().slice(0, 40), box, points,
                   color: [cr, cg, cb, ca * opacity(e)], large: size >= 24 || (bold && size >= 18.66) });
    }
  }
  // The cards' corner indexes are generated content (::before).
  for (const e of document.querySelectorAll(".card.face")) {
    const r = e.getBoundingClientRect(), s = getComputedStyle(e, "::before");
    if (!r.width || r.bottom < 0 || r.top > innerHeight) continue;
    const [cr, cg, cb, ca] = parse(s.color), size = parseFloat(s.fontSize);
    const box = [r.left + 3, r.top + 3, r.left + 3 + size, r.top + 3 + size * 1.9], points = seen(e, box);
    if (!points.length) continue;
    texts.push({ text: "corner " + e.dataset.r + e.dataset.s, box, points,
                 color: [cr, cg, cb, ca * opacity(e)], large: size >= 18.66 });
  }
  boxes.remove();
  return texts;
}
