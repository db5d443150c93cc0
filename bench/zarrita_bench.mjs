// zarrita's side of bench/zarr_vs_peers.py, one timed call per process:
//   node zarrita_bench.mjs write RAW STORE ROWS COLS CROWS CCOLS CODEC   (zstd | blosc)
//   node zarrita_bench.mjs read STORE
// Prints the seconds of the call (reading RAW into memory first is not counted).
import * as fs from "node:fs";

// zarrita is installed beside the interop tests (tests/interop/package.json).
const modules = new URL("../tests/interop/node_modules/", import.meta.url);
const zarr = await import(new URL("zarrita/dist/src/index.js", modules));
const { default: FileSystemStore } =
    await import(new URL("@zarrita/storage/dist/src/fs.js", modules));

const [mode, a, b, ...rest] = process.argv.slice(2);
if (mode === "write") {
  const [rows, cols, crows, ccols] = rest.slice(0, 4).map(Number);
  const codec = rest[4];
  const buf = fs.readFileSync(a);
  const data = new Float64Array(buf.buffer, buf.byteOffset, buf.byteLength / 8);
  const codecs = [{ name: "bytes", configuration: { endian: "little" } },
    codec === "zstd" ? { name: "zstd", configuration: { level: 3, checksum: false } }
                     : { name: "blosc", configuration: { cname: "lz4", clevel: 5,
                         shuffle: "shuffle", typesize: 8, blocksize: 0 } }];
  const t0 = performance.now();
  const root = await zarr.create(zarr.root(new FileSystemStore(b)));
  const arr = await zarr.create(root.resolve("x"), {
    shape: [rows, cols], chunkShape: [crows, ccols], dtype: "float64", codecs, fillValue: 0 });
  await zarr.set(arr, null, { data, shape: [rows, cols], stride: [cols, 1] });
  console.log(((performance.now() - t0) / 1000).toFixed(6));
} else {
  const t0 = performance.now();
  const root = zarr.root(new FileSystemStore(a));
  const arr = await zarr.open(root.resolve("x"), { kind: "array" });
  const got = await zarr.get(arr);
  const seconds = (performance.now() - t0) / 1000;
  let sum = 0;
  for (let i = 0; i < got.data.length; i += 4096) sum += got.data[i];
  console.log(seconds.toFixed(6), sum);
}
