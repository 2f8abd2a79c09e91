// Text contrast against the pixels actually behind it. Given a screenshot of the page with
// every text made transparent (so only backgrounds show), each visible text's colour is
// compared with the background pixels under it (where it is not covered: texts.js); the worst tenth-percentile ratio is kept.
async ([shot, texts]) => {
  const img = new Image();
  img.src = "data:image/png;base64," + shot;
  await img.decode();
  const canvas = document.createElement("canvas");
  canvas.width = img.width; canvas.height = img.height;
  const g = canvas.getContext("2d");
  g.drawImage(img, 0, 0);
  const px = g.getImageData(0, 0, img.width, img.height).data;
  const lin = c => { c /= 255; return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4); };
  const lum = (r, gg, b) => 0.2126 * lin(r) + 0.7152 * lin(gg) + 0.0722 * lin(b);
  const out = [];
  for (const t of texts) {
    const [r, gg, b, a] = t.color;
    const ratios = [];
    // Only the points where the text is not covered by another element (texts.js).
    for (const [x, y] of t.points) {
      {
        const i = (y * img.width + x) * 4;
        const br = px[i], bg = px[i + 1], bb = px[i + 2];
        // The text's colour as painted: its alpha (and its ancestors' opacity) over this pixel.
        const fr = r * a + br * (1 - a), fg = gg * a + bg * (1 - a), fb = b * a + bb * (1 - a);
        const l1 = lum(fr, fg, fb), l2 = lum(br, bg, bb);
        ratios.push((Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05));
      }
    }
    if (!ratios.length) continue;
    ratios.sort((p, q) => p - q);
    out.push({ text: t.text, ratio: ratios[Math.floor(ratios.length / 10)], large: t.large });
  }
  return out;
}
