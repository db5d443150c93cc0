// Values to positions in [0, 1] as the program's scales place them (src/render/scale.cpp),
// and colours from the maps the server sends (matplotlib's tables).

export type ScaleKind = "linear" | "log" | "symlog";

export class Scale {
  constructor(
    public kind: ScaleKind,
    public vmin: number,
    public vmax: number,
    public linthresh = 1,
  ) {}

  private forward(v: number): number {
    if (this.kind === "log") return v > 0 ? Math.log10(v) : NaN;
    if (this.kind === "symlog") {
      const a = Math.abs(v);
      return a <= this.linthresh ? v / this.linthresh : Math.sign(v) * (1 + Math.log10(a / this.linthresh));
    }
    return v;
  }

  position(v: number): number {
    const lo = this.forward(this.vmin), hi = this.forward(this.vmax), x = this.forward(v);
    if (Number.isNaN(x)) return NaN;
    return hi === lo ? 0.5 : (x - lo) / (hi - lo);
  }

  valueAt(p: number): number {
    const lo = this.forward(this.vmin), hi = this.forward(this.vmax);
    const y = lo + p * (hi - lo);
    if (this.kind === "log") return Math.pow(10, y);
    if (this.kind === "symlog") {
      const a = Math.abs(y);
      return a <= 1 ? y * this.linthresh : Math.sign(y) * this.linthresh * Math.pow(10, a - 1);
    }
    return y;
  }
}

// A scale fitting `values`: limits given are kept, the others found (finite values; above 0
// for log), equal limits widened, as fit_scale does.
export function fitScale(kind: ScaleKind, values: ArrayLike<number>, vmin?: number, vmax?: number): Scale {
  let lo = Infinity, hi = -Infinity, small = Infinity;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (!Number.isFinite(v) || (kind === "log" && v <= 0)) continue;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
    if (v !== 0 && Math.abs(v) < small) small = Math.abs(v);
  }
  if (lo > hi) [lo, hi] = kind === "log" ? [1, 10] : [0, 1];
  let a = vmin ?? lo, b = vmax ?? hi;
  if (a > b) { if (vmin !== undefined) b = a; else a = b; }
  if (a === b) { if (kind === "log") { a /= 10; b *= 10; } else { a -= 0.5; b += 0.5; } }
  const largest = Math.max(Math.abs(a), Math.abs(b));
  const linthresh = Number.isFinite(small) ? Math.min(Math.max(small, largest * 1e-3), largest) : 1;
  return new Scale(kind, a, b, linthresh > 0 ? linthresh : 1);
}

// Colour of position t as matplotlib picks it: entry min(floor(t * 256), 255).
export function colourAt(map: number[][], t: number, reversed: boolean): number[] {
  let i = t >= 1 ? 255 : t > 0 ? Math.floor(t * 256) : 0;
  if (reversed) i = 255 - i;
  return map[i];
}

// Round tick values inside [lo, hi], about `wanted` of them (1, 2 or 5 times a power of ten).
export function niceTicks(lo: number, hi: number, wanted: number): number[] {
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return [];
  if (hi < lo) [lo, hi] = [hi, lo];
  if (hi === lo) return [lo];
  const rough = (hi - lo) / wanted;
  const power = Math.pow(10, Math.floor(Math.log10(rough)));
  let step = power;
  for (const m of [1, 2, 5, 10]) { step = m * power; if (step >= rough) break; }
  const out: number[] = [];
  for (let v = Math.ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9 && out.length < 1000; v += step) {
    out.push(Math.abs(v) < step * 1e-9 ? 0 : v);
  }
  return out;
}

export function tickText(v: number): string {
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return String(v);
  return Number(v.toPrecision(4)).toString();
}
