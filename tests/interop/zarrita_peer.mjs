// The Zarr peer, zarrita (npm, pinned in package.json), driven by zarr_peer_test.py.
//   node zarrita_peer.mjs write DIR      writes one store per case of cases() under DIR
//   node zarrita_peer.mjs read STORE     prints every array of STORE's root group as JSON
// Values follow value(dtype, i, j), which the Python side computes too.
import * as zarr from "zarrita";
import FileSystemStore from "@zarrita/storage/fs";

const TYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
               "float32", "float64"];
const CODECS = {
  little: [{ name: "bytes", configuration: { endian: "little" } }],
  big: [{ name: "bytes", configuration: { endian: "big" } }],
  zstd: [{ name: "bytes", configuration: { endian: "little" } },
         { name: "zstd", configuration: { level: 3, checksum: false } }],
  blosc: [{ name: "bytes", configuration: { endian: "little" } },
          { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle",
                                             typesize: 4, blocksize: 0 } }],
  transpose: [{ name: "transpose", configuration: { order: [1, 0] } },
              { name: "bytes", configuration: { endian: "big" } },
              { name: "zstd", configuration: { level: 1, checksum: false } }],
};

// The value at (i, j) of an array of `dtype`: the same formula as zarr_peer_test.py.
function value(dtype, i, j) {
  const n = (i * 13 + j * 7) % 100;
  if (dtype === "bool") return n % 3 === 0;
  if (dtype.startsWith("float")) return n / 8 - 3.5;
  if (dtype.startsWith("uint")) return dtype === "uint64" ? BigInt(n) * 1000000000000n : n;
  return dtype === "int64" ? BigInt(n - 50) * 1000000000000n : n - 50;
}

const ARRAY = { bool: zarr.BoolArray, int8: Int8Array, int16: Int16Array, int32: Int32Array,
                int64: BigInt64Array, uint8: Uint8Array, uint16: Uint16Array,
                uint32: Uint32Array, uint64: BigUint64Array, float32: Float32Array,
                float64: Float64Array };

function fill(dtype) {
  if (dtype === "bool") return true;
  if (dtype.startsWith("float")) return "NaN";
  return dtype.startsWith("int") ? -7 : 9;
}

async function write(dir) {
  for (const [codecName, codecs] of Object.entries(CODECS)) {
    for (const dtype of TYPES) {
      // zarrita 0.7.5 swaps bool bytes in groups of four under endian "big" (and its reader
      // swaps them back); a one-byte element has no byte order, so those stores are not
      // Zarr's bytes: left out.
      if (dtype === "bool" && (codecName === "big" || codecName === "transpose")) continue;
      const store = new FileSystemStore(`${dir}/${codecName}_${dtype}.zarr`);
      const root = await zarr.create(zarr.root(store), { attributes: { peer: "zarrita" } });
      const shape = [10, 7];
      const arr = await zarr.create(root.resolve("x"), {
        shape, chunkShape: [4, 5], dtype, codecs, fillValue: fill(dtype),
        chunkSeparator: codecName === "zstd" ? "." : "/", dimensionNames: ["y", "x"],
        attributes: { units: "m" },
      });
      // Rows 4..7 of the second column of chunks are never written: those chunks are missing
      // and read as the fill value.
      const put = (rows, cols) => zarr.set(arr, [zarr.slice(...rows), zarr.slice(...cols)], {
        data: block(dtype, ...rows, ...cols), shape: [rows[1] - rows[0], cols[1] - cols[0]],
        stride: [cols[1] - cols[0], 1] });
      await put([0, 4], [0, 7]);
      await put([8, 10], [0, 7]);
      await put([4, 8], [0, 5]);
    }
  }
}

// The values of rows [i0, i1) and columns [j0, j1), C order, in zarrita's array type.
function block(dtype, i0, i1, j0, j1) {
  const out = new ARRAY[dtype]((i1 - i0) * (j1 - j0));
  let k = 0;
  for (let i = i0; i < i1; i++)
    for (let j = j0; j < j1; j++, k++) {
      if (dtype === "bool") out.set(k, value(dtype, i, j));
      else out[k] = value(dtype, i, j);
    }
  return out;
}

function plain(v) {
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number" && !Number.isFinite(v)) return String(v);
  return v;
}

// The values of `got` (zarr.get of `arr`) in C order, whatever strides zarrita returns (a
// transposed array comes back F-ordered).
function cOrder(arr, got) {
  const values = [];
  const index = new Array(got.shape.length).fill(0);
  const count = got.shape.reduce((a, b) => a * b, 1);
  for (let n = 0; n < count; n++) {
    let offset = 0;
    for (let d = 0; d < index.length; d++) offset += index[d] * got.stride[d];
    values.push(plain(arr.dtype === "bool" ? got.data.get(offset) : got.data[offset]));
    for (let d = index.length - 1; d >= 0; d--) {
      if (++index[d] < got.shape[d]) break;
      index[d] = 0;
    }
  }
  return values;
}

async function read(path) {
  const store = new FileSystemStore(path);
  const root = await zarr.open(zarr.root(store), { kind: "group" });
  const out = { attributes: root.attrs, arrays: {} };
  for (const name of process.argv.slice(4)) {
    const arr = await zarr.open(root.resolve(name), { kind: "array" });
    const got = await zarr.get(arr);
    const values = cOrder(arr, got);
    out.arrays[name] = { shape: got.shape, dtype: arr.dtype, attributes: arr.attrs, values };
  }
  console.log(JSON.stringify(out));
}

// Every array named (paths from the store's root; "/" is a root array) with its type,
// shape, attributes, fill value and values in C order: the conversion matrix's reader.
async function items(path) {
  const store = new FileSystemStore(path);
  const out = {};
  for (const name of process.argv.slice(4)) {
    const location = name === "/" ? zarr.root(store) : zarr.root(store).resolve(name.slice(1));
    const arr = await zarr.open(location, { kind: "array" });
    const got = await zarr.get(arr);
    const values = cOrder(arr, got);
    out[name] = { shape: got.shape, dtype: arr.dtype, attributes: arr.attrs,
                  fill_value: plain(arr.fillValue), values };
  }
  console.log(JSON.stringify(out));
}

// The matrix's source written by zarrita: /grid/x (float64, units m), /grid/i (int16,
// fill -7) and /be (int32 stored big-endian), values as matrix_values() gives them.
async function matrix(dir) {
  const store = new FileSystemStore(dir);
  const root = await zarr.create(zarr.root(store), { attributes: {} });
  const grid = await zarr.create(root.resolve("grid"), { attributes: {} });
  // Codecs and fill values given: left out, zarrita 0.7.5 writes `codecs: []` and
  // `fill_value: null`, which the v3 specification does not allow.
  const bytes = [{ name: "bytes", configuration: { endian: "little" } }];
  const x = await zarr.create(grid.resolve("x"), { shape: [5], chunkShape: [2], dtype: "float64",
                                                   codecs: bytes, fillValue: 0,
                                                   attributes: { units: "m" } });
  await zarr.set(x, null, { data: new Float64Array([0, 0.25, 0.5, 0.75, 1]), shape: [5],
                            stride: [1] });
  const i = await zarr.create(grid.resolve("i"), { shape: [2, 3], chunkShape: [1, 3],
                                                   dtype: "int16", fillValue: -7,
                                                   codecs: bytes });
  await zarr.set(i, null, { data: new Int16Array([-3, -2, -1, 0, 1, 2]), shape: [2, 3],
                            stride: [3, 1] });
  const be = await zarr.create(root.resolve("be"), { shape: [4], chunkShape: [4], dtype: "int32",
    fillValue: 0, codecs: [{ name: "bytes", configuration: { endian: "big" } }] });
  await zarr.set(be, null, { data: new Int32Array([0, 1, 2, 3]), shape: [4], stride: [1] });
}

const [mode, target] = process.argv.slice(2);
if (mode === "write") await write(target);
else if (mode === "read") await read(target);
else if (mode === "items") await items(target);
else if (mode === "matrix") await matrix(target);
else {
  console.error("usage: zarrita_peer.mjs write DIR | read STORE ARRAY... | items STORE PATH... | " +
                "matrix DIR");
  process.exit(2);
}
