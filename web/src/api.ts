// The viewer's API (src/view/api.hpp): JSON answers, and slices in binary.

export interface Axis {
  name: string | null;
  start: number;
  step: number;
  coordinates?: number[];
}

// Values of a slice as they come: float64, or float32 where that holds them exactly.
export type Numbers = Float64Array | Float32Array;

export interface Slice {
  item: string;
  kind: "line" | "heatmap" | "rgb";
  dtype: string;
  selected: number[];
  shown: number[];
  step: number[];
  x: Axis;
  y?: Axis;
  min?: number | null;
  max?: number | null;
  not_numbers?: number;
  buckets?: number;
  masked?: number;
  values: Float64Array | Float32Array | Uint8Array;
  mask?: Uint8Array;  // one byte per value, 1 where a mask hides it
}

export class ApiError extends Error {}

export async function getJson<T>(url: string): Promise<T> {
  const r = await fetch(url);
  const body = await r.json();
  if (!r.ok) throw new ApiError(body.error ?? `${r.status} ${r.statusText}`);
  return body as T;
}

export function query(params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") q.set(k, String(v));
  return q.toString();
}

// A slice: a 4-byte little-endian length, that much JSON, padding to 8 bytes, the values.
export async function getSlice(params: Record<string, string | number | undefined>): Promise<Slice> {
  const r = await fetch(`/api/slice?${query(params)}`);
  if (!r.ok) {
    const body = await r.json();
    throw new ApiError(body.error ?? `${r.status} ${r.statusText}`);
  }
  const bytes = await r.arrayBuffer();
  const length = new DataView(bytes).getUint32(0, true);
  const head = JSON.parse(new TextDecoder().decode(new Uint8Array(bytes, 4, length)));
  const at = Math.ceil((4 + length) / 8) * 8;
  if (head.data === "uint8") {
    head.values = new Uint8Array(bytes, at);
  } else {
    const width = head.data === "float32" ? 4 : 8;
    const n = (bytes.byteLength - at) / (head.mask ? width + 1 : width);
    head.values = width === 4 ? new Float32Array(bytes, at, n) : new Float64Array(bytes, at, n);
    if (head.mask) head.mask = new Uint8Array(bytes, at + width * n, n);
  }
  return head as Slice;
}
