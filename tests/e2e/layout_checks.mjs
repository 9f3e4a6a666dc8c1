// What "fits" means for a demo's layout, read from window.vigil.state().layout: no control
// narrower than a fingertip (on a phone), none cut off by its window or running off the canvas,
// no widget covering another; no text (a plot's, an ImGui Text, a table header) cut off or
// shortened, none over another or over a control, no number wrapped in two. Returns the problems
// found, in words.
export const kMinControl = 80;  // CSS px

const overlap = (a, b) => Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x) > 1 &&
                          Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y) > 1;
// Widgets: ImGui stretches a table's selectable rows over the spacing between them, so that
// neighbours share a quarter of their height; a widget drawn on top of another covers more.
const covers = (a, b) => {
  const w = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x), h = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  return w > 1 && h > 1 && w * h > 0.4 * Math.min(a.w * a.h, b.w * b.h);
};
export const named = (i) => i.label && !i.label.startsWith('#');
// A table or a header holds the widgets drawn inside it: containing is not overlapping.
const contains = (a, b) => a.x <= b.x + 0.5 && a.y <= b.y + 0.5 && a.x + a.w >= b.x + b.w - 0.5 && a.y + a.h >= b.y + b.h - 0.5;

// ImGui wraps after a comma or a full stop: "9,020" can end one line at "9," and start the next
// at "020". Returns the number so broken ("9, / 020"), or null.
export function brokenNumber(text, lines) {
  for (let i = 0; i + 1 < lines.length; ++i) {
    const end = /[\d,.]*\d[,.]$/.exec(lines[i]), next = /^\d+/.exec(lines[i + 1]);
    // Digits on both sides of the break with no blank between them in the text.
    if (end && next && text.includes(end[0] + next[0])) return `${end[0]} / ${next[0]}`;
  }
  return null;
}

export function layoutProblems(layout, phone) {
  const out = [];
  const controls = layout.items.filter(named);
  for (const c of controls) {
    if (phone && c.w < kMinControl) out.push(`"${c.label}" is ${c.w} px wide`);
    if (c.clipped) out.push(`"${c.label}" is cut off by its window`);
    if (c.x < -0.5 || c.x + c.w > layout.css_width + 0.5) out.push(`"${c.label}" runs off the canvas`);
  }
  for (let i = 0; i < controls.length; ++i)
    for (let j = i + 1; j < controls.length; ++j)
      if (covers(controls[i], controls[j]) && !contains(controls[i], controls[j]) && !contains(controls[j], controls[i]))
        out.push(`"${controls[i].label}" overlaps "${controls[j].label}"`);
  const texts = layout.texts;
  for (const t of texts) {
    if (t.cut) out.push(`${t.kind === 'header' ? 'header' : 'text'} "${t.text}" is cut off`);
    if (t.x < -0.5 || t.x + t.w > layout.css_width + 0.5) out.push(`text "${t.text}" runs off the canvas`);
    const broken = brokenNumber(t.text, t.lines || []);
    if (broken) out.push(`text "${t.text}" breaks the number ${broken} across lines`);
  }
  for (let i = 0; i < texts.length; ++i)
    for (let j = i + 1; j < texts.length; ++j)
      if (overlap(texts[i], texts[j])) out.push(`text "${texts[i].text}" overlaps "${texts[j].text}"`);
  // A text drawn over a control (not one it labels, inside it) hides one or the other.
  for (const t of texts)
    for (const c of controls)
      if (overlap(t, c) && !contains(c, t)) out.push(`text "${t.text}" overlaps "${c.label}"`);
  return out;
}
