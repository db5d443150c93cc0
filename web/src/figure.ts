// Figures on a canvas: heatmaps with a colour bar, line plots and RGB pictures, with axes
// whose ticks say the array's indexes or coordinates (as `dudley plot` draws them).
import { Axis, Numbers, Slice } from "./api";
import { Scale, colourAt, niceTicks, tickText } from "./scale";

export interface Layout { x: number; y: number; width: number; height: number; }
const INK = "#222";
const LINE = "rgb(31,119,180)";

export interface HeatmapLook {
  map: number[][];
  reversed: boolean;
  scale: Scale;
  keepAspect: boolean;
  notANumber: number[];
  masked: number[];
}

// The element under pixel p of `pixels` showing `count`: by the pixel's centre.
export function elementAt(p: number, pixels: number, count: number): number {
  return Math.min(count - 1, Math.floor(((p + 0.5) * count) / pixels));
}

function axisTicks(axis: Axis, count: number, wanted: number): { element: number; text: string }[] {
  const first = axis.start, last = axis.start + (count - 1) * axis.step;
  const out: { element: number; text: string }[] = [];
  for (const index of niceTicks(Math.min(first, last), Math.max(first, last), wanted)) {
    if (Math.abs(index - Math.round(index)) > 1e-9) continue;  // indexes are whole numbers
    const e = (index - first) / axis.step;
    if (e < -1e-9 || e > count - 1 + 1e-9) continue;
    if (axis.coordinates) {
      const r = Math.round(e);
      if (Math.abs(e - r) > 1e-9) continue;
      out.push({ element: r, text: tickText(axis.coordinates[r]) });
    } else {
      out.push({ element: e, text: tickText(index) });
    }
  }
  return out;
}

function drawAxes(g: CanvasRenderingContext2D, l: Layout, x: Axis, xCount: number, y: Axis | null,
                  yCount: number, xName: string, yName: string) {
  g.strokeStyle = INK; g.fillStyle = INK; g.lineWidth = 1;
  g.strokeRect(l.x - 0.5, l.y - 0.5, l.width + 1, l.height + 1);
  g.font = "12px sans-serif"; g.textAlign = "center"; g.textBaseline = "top";
  for (const t of axisTicks(x, xCount, Math.max(2, Math.floor(l.width / 90)))) {
    const px = Math.round(l.x + ((t.element + 0.5) * l.width) / xCount) + 0.5;
    g.beginPath(); g.moveTo(px, l.y + l.height); g.lineTo(px, l.y + l.height + 5); g.stroke();
    g.fillText(t.text, px, l.y + l.height + 7);
  }
  g.font = "14px sans-serif";
  g.fillText(xName, l.x + l.width / 2, l.y + l.height + 24);
  if (y) {
    g.font = "12px sans-serif"; g.textAlign = "right"; g.textBaseline = "middle";
    for (const t of axisTicks(y, yCount, Math.max(2, Math.floor(l.height / 60)))) {
      const py = Math.round(l.y + ((t.element + 0.5) * l.height) / yCount) + 0.5;
      g.beginPath(); g.moveTo(l.x - 5, py); g.lineTo(l.x, py); g.stroke();
      g.fillText(t.text, l.x - 7, py);
    }
    g.save(); g.translate(14, l.y + l.height / 2); g.rotate(-Math.PI / 2);
    g.font = "14px sans-serif"; g.textAlign = "center"; g.textBaseline = "middle";
    g.fillText(yName, 0, 0); g.restore();
  }
}

function place(canvas: HTMLCanvasElement, rows: number, cols: number, keepAspect: boolean, right: number): Layout {
  const left = 70, top = 10, bottom = 48;
  const w = canvas.width - left - right, h = canvas.height - top - bottom;
  if (!keepAspect) return { x: left, y: top, width: w, height: h };
  const cell = Math.min(w / cols, h / rows);
  const width = Math.max(1, Math.min(w, Math.round(cell * cols)));
  const height = Math.max(1, Math.min(h, Math.round(cell * rows)));
  return { x: left + Math.floor((w - width) / 2), y: top, width, height };
}

export function drawHeatmap(canvas: HTMLCanvasElement, s: Slice, look: HeatmapLook, names: string[]): Layout {
  const g = canvas.getContext("2d")!;
  g.fillStyle = "#fff"; g.fillRect(0, 0, canvas.width, canvas.height);
  const [rows, cols] = s.shown;
  const l = place(canvas, rows, cols, look.keepAspect, 100);
  const image = g.createImageData(l.width, l.height);
  const colOf = new Int32Array(l.width);
  for (let px = 0; px < l.width; px++) colOf[px] = elementAt(px, l.width, cols);
  const values = s.values as Numbers;
  for (let py = 0; py < l.height; py++) {
    const row = elementAt(py, l.height, rows) * cols;
    for (let px = 0; px < l.width; px++) {
      const at_ = row + colOf[px];
      const p = look.scale.position(values[at_]);
      const c = s.mask && s.mask[at_] ? look.masked
        : Number.isNaN(p) ? look.notANumber : colourAt(look.map, p, look.reversed);
      const at = (py * l.width + px) * 4;
      image.data[at] = c[0]; image.data[at + 1] = c[1]; image.data[at + 2] = c[2]; image.data[at + 3] = 255;
    }
  }
  g.putImageData(image, l.x, l.y);
  drawAxes(g, l, s.x, cols, s.y!, rows, names[1], names[0]);
  // The colour bar: vmin at the bottom, vmax at the top.
  const bx = l.x + l.width + 20, bw = 18;
  for (let py = 0; py < l.height; py++) {
    const c = colourAt(look.map, 1 - (py + 0.5) / l.height, look.reversed);
    g.fillStyle = `rgb(${c[0]},${c[1]},${c[2]})`; g.fillRect(bx, l.y + py, bw, 1);
  }
  g.strokeStyle = INK; g.strokeRect(bx - 0.5, l.y - 0.5, bw + 1, l.height + 1);
  g.fillStyle = INK; g.font = "12px sans-serif"; g.textAlign = "left"; g.textBaseline = "middle";
  const sc = look.scale;
  let ticks = niceTicks(sc.vmin, sc.vmax, Math.max(2, Math.floor(l.height / 50)));
  if (sc.kind !== "linear") {
    ticks = [];
    for (let k = -300; k <= 300; k++) {
      const v = Math.pow(10, k);
      if (sc.kind === "symlog" && -v >= sc.vmin && -v <= sc.vmax) ticks.push(-v);
      if (v >= sc.vmin && v <= sc.vmax) ticks.push(v);
    }
    if (sc.kind === "symlog" && sc.vmin <= 0 && sc.vmax >= 0) ticks.push(0);
  }
  for (const v of ticks) {
    const p = sc.position(v);
    if (!(p >= 0 && p <= 1)) continue;
    const py = Math.round(l.y + (1 - p) * (l.height - 1)) + 0.5;
    g.beginPath(); g.moveTo(bx + bw, py); g.lineTo(bx + bw + 5, py); g.stroke();
    g.fillText(tickText(v), bx + bw + 8, py);
  }
  return l;
}

export function drawRgb(canvas: HTMLCanvasElement, s: Slice, keepAspect: boolean, names: string[]): Layout {
  const g = canvas.getContext("2d")!;
  g.fillStyle = "#fff"; g.fillRect(0, 0, canvas.width, canvas.height);
  const [rows, cols] = s.shown;
  const l = place(canvas, rows, cols, keepAspect, 24);
  const image = g.createImageData(l.width, l.height);
  const v = s.values as Uint8Array;
  for (let py = 0; py < l.height; py++) {
    const r = elementAt(py, l.height, rows);
    for (let px = 0; px < l.width; px++) {
      const from = (r * cols + elementAt(px, l.width, cols)) * 3, at = (py * l.width + px) * 4;
      image.data[at] = v[from]; image.data[at + 1] = v[from + 1]; image.data[at + 2] = v[from + 2];
      image.data[at + 3] = 255;
    }
  }
  g.putImageData(image, l.x, l.y);
  drawAxes(g, l, s.x, cols, s.y!, rows, names[1], names[0]);
  return l;
}

// matplotlib's colour cycle (tab10): the lines of a plot of several.
export const CYCLE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
  "#7f7f7f", "#bcbd22", "#17becf"];

export interface Series { values: Numbers; colour: string; label?: string; }

// Line plots of one or more series of `count` values each along `x` (a series of `buckets`
// holds each bucket's least and greatest value, drawn as a stroke between them); a legend
// names the series when there are several. Returns the layout.
export function drawSeries(canvas: HTMLCanvasElement, series: Series[], x: Axis, count: number,
                           buckets: number | undefined, scale: Scale, name: string): Layout {
  const g = canvas.getContext("2d")!;
  g.fillStyle = "#fff"; g.fillRect(0, 0, canvas.width, canvas.height);
  const l: Layout = { x: 70, y: 10, width: canvas.width - 94, height: canvas.height - 58 };
  const rowOf = (v: number) => l.y + (1 - scale.position(v)) * (l.height - 1);
  const points = buckets ?? count;
  g.save(); g.beginPath(); g.rect(l.x, l.y, l.width, l.height); g.clip();
  for (const s of series) {
    const v = s.values;
    g.strokeStyle = s.colour; g.lineWidth = buckets ? 1 : series.length > 1 ? 1.5 : 2; g.beginPath();
    let drawing = false;
    for (let i = 0; i < points; i++) {
      const px = l.x + ((i + 0.5) * l.width) / points;
      if (buckets) {
        const lo = v[2 * i], hi = v[2 * i + 1];
        if (Number.isNaN(scale.position(lo)) || Number.isNaN(scale.position(hi))) { drawing = false; continue; }
        if (drawing) g.lineTo(px, rowOf(lo)); else g.moveTo(px, rowOf(lo));
        g.lineTo(px, rowOf(hi)); drawing = true;
      } else {
        if (Number.isNaN(scale.position(v[i]))) { drawing = false; continue; }
        if (drawing) g.lineTo(px, rowOf(v[i])); else g.moveTo(px, rowOf(v[i]));
        drawing = true;
      }
    }
    g.stroke();
  }
  g.restore();
  drawAxes(g, l, x, count, null, 0, name, "");
  g.fillStyle = INK; g.strokeStyle = INK; g.font = "12px sans-serif"; g.textAlign = "right"; g.textBaseline = "middle";
  for (const t of niceTicks(scale.vmin, scale.vmax, Math.max(2, Math.floor(l.height / 60)))) {
    const py = Math.round(rowOf(t)) + 0.5;
    if (py < l.y || py > l.y + l.height) continue;
    g.beginPath(); g.moveTo(l.x - 5, py); g.lineTo(l.x, py); g.stroke();
    g.fillText(tickText(t), l.x - 7, py);
  }
  if (series.length > 1) {
    g.textAlign = "left";
    series.forEach((s, i) => {
      const y = l.y + 12 + i * 16, x0 = l.x + l.width - 120;
      g.fillStyle = "rgba(255,255,255,0.85)"; g.fillRect(x0 - 4, y - 8, 120, 16);
      g.strokeStyle = s.colour; g.lineWidth = 2;
      g.beginPath(); g.moveTo(x0, y); g.lineTo(x0 + 20, y); g.stroke();
      g.fillStyle = INK; g.fillText(s.label ?? "", x0 + 26, y);
    });
  }
  return l;
}

// A line plot of a 1-D slice.
export function drawLine(canvas: HTMLCanvasElement, s: Slice, scale: Scale, name: string): Layout {
  return drawSeries(canvas, [{ values: s.values as Numbers, colour: LINE }], s.x, s.shown[0],
                    s.buckets, scale, name);
}
