// The viewer's page: the tree on the left, the chosen item's facts, its figure (a line, a
// heatmap of a 2-D slice, an RGB picture) and a table of its values on the right.
import { ApiError, Numbers, Slice, getJson, getSlice, query } from "./api";
import { CYCLE, Layout, drawHeatmap, drawLine, drawRgb, drawSeries, elementAt } from "./figure";
import { Scale, ScaleKind, fitScale } from "./scale";

interface Info { data: string; format: string; colormaps: Record<string, number[][]>; not_a_number: number[];
  masked: number[]; }
// A tree node as /api/tree and /api/members give it: a group lists the members sent so far and
// says how many it has ("members_count"); the rest come a page at a time (/api/members).
interface Node { kind: string; dtype?: string; shape?: number[]; members?: Record<string, Node>;
  members_count?: number; items?: Node[]; omitted?: number; attributes?: Record<string, unknown>;
  [key: string]: unknown; }
interface MembersPage { path: string; start: number; members_count: number; members: Record<string, Node>; }
interface SearchAnswer { matches: { path: string; kind: string }[]; complete: boolean; }

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
let info: Info;
let current: { path: string; node: Node } | null = null;
// Per dimension of the current array: "y", "x" or the index it is held at.
let dimChoice: ("y" | "x" | number)[] = [];
let tab: "plot" | "table" = "plot";
// The part of each drawn dimension shown, [first, end) in its indexes (zoomed); none: all.
let ranges: Record<number, [number, number]> = {};
// A 2-D slice drawn as a heatmap, or as one line per row (at most kMaxLines, every k-th).
let style: "heatmap" | "lines" = "heatmap";
const kMaxLines = 10;
let page = { row: 0, col: 0 };
let shown: { slice: Slice; layout: Layout; scale?: Scale } | null = null;
const look = { colormap: "viridis", reversed: false, scale: "linear" as ScaleKind, vmin: "", vmax: "",
  keepAspect: true, complex: "amplitude" };

function message(text: string) { $("message").textContent = text; }

// ---- the tree ---------------------------------------------------------------------------

// A member's path as items are written: a name holding '.', '[', ']', '"' or '\' (a field or
// a selection otherwise) quoted, '"' and '\' escaped, as `dump '/"run.ini"/x'` takes it.
function childPath(parent: string, name: string) {
  const quoted = /[.[\]"\\]/.test(name) ? `"${name.replace(/["\\]/g, (c) => `\\${c}`)}"` : name;
  return parent === "/" ? `/${quoted}` : `${parent}/${quoted}`;
}

function nodeLabel(name: string, node: Node): HTMLElement {
  const span = document.createElement("span");
  span.className = "node";
  span.textContent = name;
  const kind = document.createElement("span");
  kind.className = "kind";
  kind.textContent = node.kind === "array" ? `${node.dtype ?? ""} ${JSON.stringify(node.shape ?? [])}` :
    node.kind === "group" && node.members_count !== undefined ? `group of ${node.members_count}` : node.kind;
  span.append(kind);
  return span;
}

// Whether every member of every group has been sent (then a search looks at the page's tree;
// otherwise the server searches).
let wholeTree = true;

// Appends `children` (members or items of the node at `path`) to `ul`.
function addChildren(ul: HTMLElement, path: string, children: [string, Node][], items: boolean) {
  for (const [name, child] of children) {
    const li = document.createElement("li");
    const p = items ? `${path}[${name}]` : childPath(path, name);
    li.dataset.path = p;
    li.dataset.name = name.toLowerCase();
    const label = nodeLabel(name, child);
    li.append(label);
    if (child.kind === "array") {
      li.className = "array";
      label.addEventListener("click", () => select(p, child, label));
    } else if (child.members || child.items || (child.members_count ?? 0) > 0) {
      li.className = "group";
      const sub = document.createElement("ul");
      li.append(sub);
      const sent = buildTree(sub, p, child);
      // A group none of whose members came with the tree: closed, its first page asked for
      // when it is opened.
      let loaded = sent > 0 || !child.members_count;
      if (!loaded) li.classList.add("closed");
      label.addEventListener("click", () => {
        li.classList.toggle("closed");
        if (!loaded && !li.classList.contains("closed")) {
          loaded = true;
          void morePage(sub, p, 0);
        }
      });
    } else {
      li.className = "other";
    }
    ul.append(li);
  }
}

// Fills `ul` with `node`'s members or items as sent; a "more" entry when the group has more.
// How many were sent.
function buildTree(ul: HTMLElement, path: string, node: Node): number {
  const items = !!node.items;
  const children: [string, Node][] = node.members ? Object.entries(node.members)
    : node.items ? node.items.map((n, i) => [String(i), n]) : [];
  addChildren(ul, path, children, items);
  const total = items ? children.length + (node.omitted ?? 0) : node.members_count ?? children.length;
  if (total > children.length) {
    wholeTree = false;
    if (items) {
      const li = document.createElement("li");
      li.className = "other";
      li.textContent = `… ${total - children.length} more items (not shown)`;
      ul.append(li);
    } else if (children.length > 0) {
      moreEntry(ul, path, children.length, total);
    }
  }
  return children.length;
}

// A "… N more" entry at the end of `ul` that asks for the group's next page.
function moreEntry(ul: HTMLElement, path: string, start: number, total: number) {
  const li = document.createElement("li");
  li.className = "more";
  const button = document.createElement("button");
  button.textContent = `… ${total - start} more`;
  button.addEventListener("click", () => { li.remove(); void morePage(ul, path, start); });
  li.append(button);
  ul.append(li);
}

// Members [start, start + a page) of the group at `path`, appended to `ul`.
async function morePage(ul: HTMLElement, path: string, start: number) {
  try {
    const page = await getJson<MembersPage>(`/api/members?${query({ path, start })}`);
    const members = Object.entries(page.members);
    addChildren(ul, path, members, false);
    const end = start + members.length;
    if (members.length > 0 && end < page.members_count) moreEntry(ul, path, end, page.members_count);
  } catch (e) {
    message(String(e));
  }
}

function search(text: string) {
  const t = text.trim().toLowerCase();
  const items = Array.from(document.querySelectorAll<HTMLLIElement>("#tree li"));
  for (const li of items) li.hidden = t !== "";
  if (t === "") return;
  for (const li of items) {
    if (!(li.dataset.name ?? "").includes(t)) continue;
    // The match and the groups above it show.
    for (let e: HTMLElement | null = li; e && e.id !== "tree"; e = e.parentElement) {
      if (e.tagName === "LI") { e.hidden = false; e.classList.remove("closed"); }
    }
    li.querySelectorAll<HTMLLIElement>("li").forEach((d) => (d.hidden = false));
  }
}

// A tree the page holds in part is searched by the server: its matches listed by path, each
// opened as its item.
let searchTimer = 0;
let searchAsked = "";
function searchServer(text: string) {
  const t = text.trim();
  window.clearTimeout(searchTimer);
  const results = $("search-results");
  if (t === "") {
    results.hidden = true;
    $("tree").hidden = false;
    return;
  }
  searchTimer = window.setTimeout(async () => {
    searchAsked = t;
    try {
      const answer = await getJson<SearchAnswer>(`/api/search?${query({ q: t })}`);
      if (searchAsked !== t) return;  // a later search was asked for meanwhile
      results.replaceChildren();
      for (const m of answer.matches) {
        const li = document.createElement("li");
        li.className = m.kind === "array" ? "array" : "other";
        li.dataset.path = m.path;
        const label = document.createElement("span");
        label.className = "node";
        label.textContent = m.path;
        li.append(label);
        if (m.kind === "array") {
          label.addEventListener("click", async () => {
            try {
              const item = await getJson<{ path: string; item: Node }>(`/api/item?${query({ path: m.path })}`);
              select(m.path, item.item, label);
            } catch (e) {
              message(String(e));
            }
          });
        }
        results.append(li);
      }
      if (!answer.complete) {
        const li = document.createElement("li");
        li.className = "other";
        li.textContent = `the first ${answer.matches.length} matches; narrow the search for others`;
        results.append(li);
      } else if (answer.matches.length === 0) {
        const li = document.createElement("li");
        li.className = "other";
        li.textContent = "no name holds this";
        results.append(li);
      }
      results.hidden = false;
      $("tree").hidden = true;
    } catch (e) {
      message(String(e));
    }
  }, 250);
}

// ---- one item ---------------------------------------------------------------------------

function dimNames(node: Node): string[] {
  const names = (node.attributes?.["dimension_names"] as (string | null)[] | undefined) ?? [];
  return (node.shape ?? []).map((_, d) => names[d] ?? `axis ${d}`);
}

function infoRows(node: Node): [string, string][] {
  const rows: [string, string][] = [["type", node.dtype ?? ""], ["shape", JSON.stringify(node.shape ?? [])]];
  const names = node.attributes?.["dimension_names"];
  if (names) rows.push(["dimensions", JSON.stringify(names)]);
  const storage = node["storage"] as Record<string, unknown> | undefined;
  if (storage) {
    for (const key of ["layout", "chunks", "codecs", "compressor", "filters", "byteorder", "fill_value"]) {
      if (storage[key] !== undefined) rows.push([key === "byteorder" ? "byte order" : key, JSON.stringify(storage[key])]);
    }
  }
  for (const [k, v] of Object.entries(node.attributes ?? {})) {
    if (k === "dimension_names") continue;
    rows.push([k === "fill_value" ? "fill value" : `@${k}`, JSON.stringify(v)]);
  }
  return rows;
}

function select(path: string, node: Node, label: HTMLElement) {
  document.querySelectorAll("#tree .selected").forEach((e) => e.classList.remove("selected"));
  label.classList.add("selected");
  current = { path, node };
  const shape = node.shape ?? [];
  // The last two dimensions drawn, the others at index 0 (an H x W x 3 uint8 array: whole).
  dimChoice = shape.map((_, d) => (shape.length === 1 ? "x" : d === shape.length - 2 ? "y" :
    d === shape.length - 1 ? "x" : 0));
  page = { row: 0, col: 0 };
  ranges = {};
  $("welcome").hidden = true;
  $("item").hidden = false;
  $("item-path").textContent = path;
  const table = $("item-info");
  table.replaceChildren();
  for (const [k, v] of infoRows(node)) {
    const tr = document.createElement("tr");
    const a = document.createElement("td"); a.textContent = k;
    const b = document.createElement("td"); b.textContent = v;
    tr.append(a, b); table.append(tr);
  }
  buildDims();
  refresh();
}

function buildDims() {
  const box = $("dims");
  box.replaceChildren();
  if (!current) return;
  const shape = current.node.shape ?? [];
  const names = dimNames(current.node);
  if (shape.length < 2 || isRgb(current.node)) return;  // an RGB picture is drawn whole
  shape.forEach((extent, d) => {
    const row = document.createElement("div");
    row.className = "dim";
    const name = document.createElement("span");
    name.textContent = `${names[d]} (${extent})`;
    const role = document.createElement("select");
    role.dataset.dim = String(d);
    role.setAttribute("aria-label", `role of ${names[d]}`);
    for (const r of ["y", "x", "index"]) {
      const o = document.createElement("option");
      o.value = r; o.textContent = r === "index" ? "at index" : `${r} axis`;
      role.append(o);
    }
    const choice = dimChoice[d];
    role.value = typeof choice === "number" ? "index" : choice;
    const slider = document.createElement("input");
    slider.type = "range"; slider.min = "0"; slider.max = String(Math.max(0, extent - 1));
    slider.value = String(typeof choice === "number" ? choice : 0);
    slider.dataset.dim = String(d);
    slider.setAttribute("aria-label", `index of ${names[d]}`);
    slider.hidden = typeof choice !== "number";
    const value = document.createElement("span");
    value.textContent = typeof choice === "number" ? String(choice) : "";
    role.addEventListener("change", () => {
      const r = role.value;
      if (r === "index") dimChoice[d] = Number(slider.value);
      else {
        // One dimension per axis: the one that had this axis is held at 0.
        dimChoice = dimChoice.map((c, e) => (c === r && e !== d ? 0 : c));
        dimChoice[d] = r as "x" | "y";
      }
      buildDims(); refresh();
    });
    slider.addEventListener("input", () => {
      dimChoice[d] = Number(slider.value);
      value.textContent = slider.value;
      refresh();
    });
    row.append(name, role, slider, value);
    box.append(row);
  });
}

// The numpy selection of what is shown: "[3, :, :]", the y axis before the x axis (a
// transposed choice reads the same values; the figure takes them as they come).
function isRgb(node: Node): boolean {
  const shape = node.shape ?? [];
  return shape.length === 3 && shape[2] === 3 && node.dtype === "|u1";
}

function selection(): string {
  if (!current || isRgb(current.node)) return "";
  const shape = current.node.shape ?? [];
  if (shape.length === 0) return "";
  const part = (d: number) => (ranges[d] ? `${ranges[d][0]}:${ranges[d][1]}` : ":");
  if (shape.length === 1) return ranges[0] ? `[${part(0)}]` : "";
  return "[" + dimChoice.map((c, d) => (typeof c === "number" ? String(c) : part(d))).join(", ") + "]";
}

// Zooms the drawn dimension d around element `at` (of its shown range) by `factor` (< 1:
// in), or pans it by `shift` elements; the range stays inside the dimension.
function zoom(d: number, at: number, factor: number, shift = 0) {
  const extent = (current?.node.shape ?? [])[d];
  if (extent === undefined) return;
  const [lo, hi] = ranges[d] ?? [0, extent];
  const width = Math.min(extent, Math.max(2, Math.round((hi - lo) * factor)));
  let first = Math.round(at - ((at - lo) * width) / (hi - lo) + shift);
  first = Math.max(0, Math.min(extent - width, first));
  if (first === 0 && width === extent) delete ranges[d];
  else ranges[d] = [first, first + width];
}

function transposed(): boolean {
  return dimChoice.indexOf("x") < dimChoice.indexOf("y");
}

// ---- the figure -------------------------------------------------------------------------

function buildControls() {
  const box = $("plot-controls");
  const select = (label: string, id: string, options: string[], value: string, set: (v: string) => void) => {
    const l = document.createElement("label"); l.textContent = label;
    const s = document.createElement("select"); s.id = id;
    for (const o of options) { const e = document.createElement("option"); e.value = o; e.textContent = o; s.append(e); }
    s.value = value;
    s.addEventListener("change", () => { set(s.value); redraw(); });
    l.append(s); box.append(l);
  };
  select("colour map", "colormap", Object.keys(info.colormaps), look.colormap, (v) => (look.colormap = v));
  const rev = document.createElement("label"); rev.textContent = "reversed";
  const cb = document.createElement("input"); cb.type = "checkbox"; cb.id = "reverse";
  cb.addEventListener("change", () => { look.reversed = cb.checked; redraw(); });
  rev.prepend(cb); box.append(rev);
  select("scale", "scale", ["linear", "log", "symlog"], look.scale, (v) => (look.scale = v as ScaleKind));
  for (const k of ["vmin", "vmax"] as const) {
    const l = document.createElement("label"); l.textContent = k;
    const i = document.createElement("input"); i.type = "number"; i.id = k; i.placeholder = "auto"; i.step = "any";
    i.addEventListener("change", () => { look[k] = i.value; redraw(); });
    l.append(i); box.append(l);
  }
  select("aspect", "aspect", ["keep", "fill"], "keep", (v) => (look.keepAspect = v === "keep"));
  const draw = document.createElement("label"); draw.textContent = "draw 2-D as";
  const ds = document.createElement("select"); ds.id = "style";
  for (const o of ["heatmap", "lines"]) { const e = document.createElement("option"); e.value = o; e.textContent = o; ds.append(e); }
  ds.addEventListener("change", () => { style = ds.value as "heatmap" | "lines"; refresh(); });
  draw.append(ds); box.append(draw);
  select("complex", "complex", ["amplitude", "phase"], "amplitude", (v) => { look.complex = v; refresh(); });
}

function names(): string[] {
  if (!current) return ["", ""];
  const n = dimNames(current.node);
  const y = dimChoice.indexOf("y"), x = dimChoice.indexOf("x");
  return [y >= 0 ? n[y] : "", x >= 0 ? n[x] : n[0] ?? ""];
}

function redraw() {
  if (!shown) return;
  const s = shown.slice;
  const canvas = $<HTMLCanvasElement>("canvas");
  const vmin = look.vmin === "" ? undefined : Number(look.vmin);
  const vmax = look.vmax === "" ? undefined : Number(look.vmax);
  try {
    if (s.kind === "rgb") {
      shown.layout = drawRgb(canvas, s, look.keepAspect, names());
    } else if (s.kind === "line") {
      let scale = fitScale(look.scale, s.values as Numbers, vmin, vmax);
      if (vmin === undefined && vmax === undefined && look.scale === "linear") {
        const pad = (scale.vmax - scale.vmin) * 0.05;
        scale = new Scale("linear", scale.vmin - pad, scale.vmax + pad);
      }
      shown.scale = scale;
      shown.layout = drawLine(canvas, s, scale, names()[1]);
    } else if (style === "lines") {
      // One line per row of the slice (every k-th row of the y dimension), along x.
      let scale = fitScale(look.scale, s.values as Numbers, vmin, vmax);
      if (vmin === undefined && vmax === undefined && look.scale === "linear") {
        const pad = (scale.vmax - scale.vmin) * 0.05;
        scale = new Scale("linear", scale.vmin - pad, scale.vmax + pad);
      }
      shown.scale = scale;
      const [rows, cols] = s.shown, v = s.values as Numbers, y = s.y!;
      const series = Array.from({ length: rows }, (_, r) => ({
        values: v.subarray(r * cols, (r + 1) * cols), colour: CYCLE[r % CYCLE.length],
        label: `${names()[0]} ${y.start + r * y.step}${y.coordinates ? ` (${y.coordinates[r]})` : ""}` }));
      shown.layout = drawSeries(canvas, series, s.x, cols, undefined, scale, names()[1]);
    } else {
      const scale = fitScale(look.scale, s.values as Numbers, vmin, vmax);
      shown.scale = scale;
      shown.layout = drawHeatmap(canvas, s, { map: info.colormaps[look.colormap], reversed: look.reversed,
        scale, keepAspect: look.keepAspect, notANumber: info.not_a_number, masked: info.masked }, names());
    }
    canvas.dataset.vmin = String(shown.scale?.vmin ?? "");
    canvas.dataset.vmax = String(shown.scale?.vmax ?? "");
    canvas.dataset.layout = JSON.stringify(shown.layout);
    const notes = [];
    if (s.not_numbers) notes.push(`${s.not_numbers} NaN values shown in magenta`);
    if (s.masked) notes.push(`${s.masked} masked values shown in cyan`);
    message(notes.join("; "));
  } catch (e) {
    message(String(e));
  }
  updateExports();
}

let request = 0;
async function refresh() {
  if (!current) return;
  updateExports();
  if (tab === "table") return loadTable();
  const mine = ++request;
  const canvas = $<HTMLCanvasElement>("canvas");
  const started = performance.now();
  try {
    const lines = style === "lines" && (current.node.shape ?? []).length >= 2 && !transposed();
    const s = await getSlice({ path: current.path, sel: selection(), rows: lines ? kMaxLines : canvas.height,
      cols: canvas.width, complex: look.complex === "phase" ? "phase" : undefined });
    if (mine !== request) return;  // a later choice is already on its way
    if (s.kind === "heatmap" && transposed()) transpose(s);
    shown = { slice: s, layout: { x: 0, y: 0, width: 0, height: 0 } };
    redraw();
    canvas.dataset.item = s.item;
    canvas.dataset.kind = s.kind === "heatmap" && style === "lines" ? "lines" : s.kind;
    canvas.dataset.ms = String(Math.round(performance.now() - started));
    canvas.dataset.drawn = String(Number(canvas.dataset.drawn ?? 0) + 1);
  } catch (e) {
    if (mine !== request) return;
    shown = null;
    const g = canvas.getContext("2d")!; g.fillStyle = "#fff"; g.fillRect(0, 0, canvas.width, canvas.height);
    message(e instanceof ApiError ? e.message : String(e));
  }
}

// A heatmap whose x dimension comes before its y dimension: rows and columns swapped.
function transpose(s: Slice) {
  const [r, c] = s.shown, v = s.values as Numbers;
  const out = v instanceof Float32Array ? new Float32Array(v.length) : new Float64Array(v.length);
  for (let i = 0; i < r; i++) for (let j = 0; j < c; j++) out[j * r + i] = v[i * c + j];
  if (s.mask) {
    const m = s.mask, mt = new Uint8Array(m.length);
    for (let i = 0; i < r; i++) for (let j = 0; j < c; j++) mt[j * r + i] = m[i * c + j];
    s.mask = mt;
  }
  s.values = out; s.shown = [c, r];
  [s.x, s.y] = [s.y!, s.x];
}

// The drawn dimensions (the array's) under the figure's axes: x, and y for a heatmap.
function drawnDims(): { x: number; y: number | null } {
  const x = (current?.node.shape ?? []).length === 1 ? 0 : dimChoice.indexOf("x");
  const lines = shown?.slice.kind === "line" || style === "lines";
  return { x, y: lines ? null : dimChoice.indexOf("y") };
}

// The array index under a pixel of the plot area along a shown axis.
function indexAt(p: number, pixels: number, count: number, axis: { start: number; step: number }): number {
  return axis.start + elementAt(Math.max(0, Math.min(pixels - 1, Math.floor(p))), pixels, count) * axis.step;
}

let zoomTimer = 0;
function wheel(ev: WheelEvent) {
  if (!shown || shown.slice.kind === "rgb" || !current) return;
  ev.preventDefault();
  const canvas = $<HTMLCanvasElement>("canvas"), rect = canvas.getBoundingClientRect();
  const l = shown.layout, s = shown.slice, dims = drawnDims();
  const px = ((ev.clientX - rect.left) * canvas.width) / rect.width - l.x;
  const py = ((ev.clientY - rect.top) * canvas.height) / rect.height - l.y;
  const factor = ev.deltaY > 0 ? 1.25 : 0.8;
  const xCount = s.kind === "line" ? s.shown[0] : s.shown[1];
  zoom(dims.x, indexAt(px, l.width, xCount, s.x), factor);
  if (dims.y !== null && s.y) zoom(dims.y, indexAt(py, l.height, s.shown[0], s.y), factor);
  window.clearTimeout(zoomTimer);
  zoomTimer = window.setTimeout(refresh, 60);
}

let dragFrom: { x: number; y: number } | null = null;
function dragEnd(ev: MouseEvent) {
  if (!dragFrom || !shown || !current) return;
  const canvas = $<HTMLCanvasElement>("canvas"), rect = canvas.getBoundingClientRect();
  const dx = ((ev.clientX - dragFrom.x) * canvas.width) / rect.width;
  const dy = ((ev.clientY - dragFrom.y) * canvas.height) / rect.height;
  dragFrom = null;
  if (Math.abs(dx) < 3 && Math.abs(dy) < 3) return;
  const shape = current.node.shape ?? [], dims = drawnDims(), l = shown.layout;
  const pan = (d: number, pixels: number, delta: number) => {
    const [lo, hi] = ranges[d] ?? [0, shape[d]];
    zoom(d, lo, 1, (-delta * (hi - lo)) / pixels);
  };
  pan(dims.x, l.width, dx);
  if (dims.y !== null) pan(dims.y, l.height, dy);
  refresh();
}

// A value as the page shows it: float32 data in the shortest text that reads back as the
// same float32 (0.3, not 0.30000001192092896), as numpy prints it.
function valueText(v: number, single: boolean): string {
  if (!single || !Number.isFinite(v)) return String(v);
  for (let p = 1; p <= 9; p++) {
    const t = Number(v.toPrecision(p));
    if (Math.fround(t) === v) return String(t);
  }
  return String(v);
}

function hover(ev: MouseEvent) {
  if (!shown) return;
  const canvas = $<HTMLCanvasElement>("canvas");
  const rect = canvas.getBoundingClientRect();
  const px = ((ev.clientX - rect.left) * canvas.width) / rect.width - shown.layout.x;
  const py = ((ev.clientY - rect.top) * canvas.height) / rect.height - shown.layout.y;
  const l = shown.layout, s = shown.slice;
  if (px < 0 || py < 0 || px >= l.width || py >= l.height) { $("hover").textContent = ""; return; }
  const at = (axis: { start: number; step: number; coordinates?: number[] }, e: number) =>
    `${axis.start + e * axis.step}${axis.coordinates ? ` (${axis.coordinates[e]})` : ""}`;
  if (s.kind === "line") {
    const points = s.buckets ?? s.shown[0];
    const b = elementAt(Math.floor(px), l.width, points);
    const v = s.values as Numbers, single = v instanceof Float32Array;
    $("hover").textContent = s.buckets
      ? `around ${s.x.start + Math.floor((b * s.shown[0]) / points) * s.x.step}: ` +
        `${valueText(v[2 * b], single)} to ${valueText(v[2 * b + 1], single)}`
      : `[${at(s.x, b)}] = ${valueText(v[b], single)}`;
    return;
  }
  const r = elementAt(Math.floor(py), l.height, s.shown[0]), c = elementAt(Math.floor(px), l.width, s.shown[1]);
  const value = s.kind === "rgb"
    ? Array.from((s.values as Uint8Array).slice((r * s.shown[1] + c) * 3, (r * s.shown[1] + c) * 3 + 3)).join(", ")
    : s.mask && s.mask[r * s.shown[1] + c] ? "-- (masked)"
    : valueText((s.values as Numbers)[r * s.shown[1] + c], s.values instanceof Float32Array);
  $("hover").textContent = `${names()[0]} ${at(s.y!, r)}, ${names()[1]} ${at(s.x, c)}: ${value}`;
}

// ---- the table --------------------------------------------------------------------------

// The page asked for; the server answers fewer rows or columns when the elements are large
// (as many as one read may hold), and pages move by what it answered.
const PAGE_ROWS = 50, PAGE_COLS = 20;
let pageSize = [PAGE_ROWS, PAGE_COLS];

async function loadTable() {
  if (!current) return;
  const two = (current.node.shape ?? []).length >= 2;
  try {
    const r = await getJson<{ values: unknown; selected: number[]; page: number[]; stored_start: number[] }>(
      `/api/values?${query({ path: current.path, sel: selection(), row: page.row, rows: PAGE_ROWS,
        col: two ? page.col : undefined, cols: two ? PAGE_COLS : undefined })}`);
    const table = $("values");
    table.replaceChildren();
    const rows: unknown[] = Array.isArray(r.values) ? r.values : [r.values];
    const head = document.createElement("tr");
    head.append(document.createElement("th"));
    const first = rows[0];
    const fields = first && typeof first === "object" && !Array.isArray(first) ? Object.keys(first as object) : null;
    const columns = two && Array.isArray(first) ? (first as unknown[]).length : fields ? fields.length : 1;
    for (let c = 0; c < columns; c++) {
      const th = document.createElement("th");
      th.textContent = fields && !two ? fields[c] : two ? String(page.col + c) : "value";
      head.append(th);
    }
    table.append(head);
    rows.forEach((row, i) => {
      const tr = document.createElement("tr");
      const th = document.createElement("th"); th.textContent = String(page.row + i); tr.append(th);
      const cells = two ? (row as unknown[]) : fields ? fields.map((f) => (row as Record<string, unknown>)[f]) : [row];
      for (const v of cells) {
        const td = document.createElement("td");
        td.textContent = v === null ? "--" : typeof v === "string" ? v : JSON.stringify(v);  // null: masked
        tr.append(td);
      }
      table.append(tr);
    });
    const total = r.selected[0] ?? 1;
    pageSize = r.page;
    $("page-info").textContent = `rows ${page.row} to ${Math.min(total, page.row + pageSize[0]) - 1} of ${total}` +
      (two ? `, columns ${page.col} to ${Math.min(r.selected[1], page.col + pageSize[1]) - 1} of ${r.selected[1]}` : "");
    message("");
  } catch (e) {
    message(e instanceof ApiError ? e.message : String(e));
  }
}

function updateExports() {
  if (!current) return;
  const sel = selection();
  $<HTMLAnchorElement>("export-csv").href = `/api/export?${query({ path: current.path, sel, format: "csv" })}`;
  $<HTMLAnchorElement>("export-npy").href = `/api/export?${query({ path: current.path, sel, format: "npy" })}`;
  $<HTMLAnchorElement>("export-png").href = `/api/plot?${query({ path: current.path, sel,
    colormap: look.colormap, reverse: look.reversed ? 1 : undefined, scale: look.scale,
    vmin: look.vmin, vmax: look.vmax, fill: look.keepAspect ? undefined : 1 })}`;
}

function setTab(t: "plot" | "table") {
  tab = t;
  $("tab-plot").setAttribute("aria-selected", String(t === "plot"));
  $("tab-table").setAttribute("aria-selected", String(t === "table"));
  $("plot-panel").hidden = t !== "plot";
  $("table-panel").hidden = t !== "table";
  refresh();
}

async function start() {
  try {
    info = await getJson<Info>("/api/info");
    $("source").textContent = `${info.data} (${info.format})`;
    document.title = `${info.data} - dudley view`;
    const tree = await getJson<{ root: Node }>("/api/tree");
    buildTree($("tree"), "/", tree.root);
    if (tree.root.kind === "array") {
      const li = document.createElement("li");
      const label = nodeLabel("/", tree.root);
      label.addEventListener("click", () => select("/", tree.root, label));
      li.className = "array"; li.dataset.path = "/"; li.dataset.name = "/"; li.append(label);
      $("tree").append(li);
    }
    buildControls();
    $("search").addEventListener("input", (e) => {
      const text = (e.target as HTMLInputElement).value;
      if (wholeTree) search(text); else searchServer(text);
    });
    $("tab-plot").addEventListener("click", () => setTab("plot"));
    $("tab-table").addEventListener("click", () => setTab("table"));
    $("canvas").addEventListener("mousemove", hover);
    // Zoom with the wheel, pan by dragging, all again with a double click.
    $("canvas").addEventListener("wheel", wheel, { passive: false });
    $("canvas").addEventListener("mousedown", (e) => { dragFrom = { x: e.clientX, y: e.clientY }; });
    window.addEventListener("mouseup", dragEnd);
    $("canvas").addEventListener("dblclick", () => { ranges = {}; refresh(); });
    $("page-down").addEventListener("click", () => { page.row += pageSize[0]; loadTable(); });
    $("page-up").addEventListener("click", () => { page.row = Math.max(0, page.row - pageSize[0]); loadTable(); });
    $("page-right").addEventListener("click", () => { page.col += pageSize[1]; loadTable(); });
    $("page-left").addEventListener("click", () => { page.col = Math.max(0, page.col - pageSize[1]); loadTable(); });
    document.body.dataset.ready = "1";
  } catch (e) {
    message(String(e));
    $("item").hidden = false;
  }
}

start();
