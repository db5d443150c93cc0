// avsc's side of bench/avro_vs_peers.py, timed inside the process:
//   node avsc_bench.mjs record MIB     encode and decode one MIB-MiB float64 ndarray record
//   node avsc_bench.mjs records N FILE write N records of shape [3] float64 to a container,
//                                      then read them back (each data viewed as Float64Array)
// Prints "encode S decode S" or "write S read S".
import fs from "node:fs";
import { createRequire } from "node:module";

// avsc is installed beside the interop tests (tests/interop/node_modules).
const require = createRequire(new URL("../tests/interop/package.json", import.meta.url));
const avro = require("avsc");

const schema = {
  type: "record", name: "ndarray", fields: [
    { name: "shape", type: { type: "array", items: "int" } },
    { name: "typestr", type: "string" }, { name: "data", type: "bytes" },
    { name: "version", type: "int" }],
};
const type = avro.Type.forSchema(schema);
const now = () => Number(process.hrtime.bigint()) / 1e9;
const [mode, arg, file] = process.argv.slice(2);
if (mode === "record") {
  const n = (Number(arg) * (1 << 20)) / 8;
  const values = new Float64Array(n);
  for (let i = 0; i < n; i++) values[i] = i * 0.5;
  const data = Buffer.from(values.buffer);
  let t0 = now();
  const datum = type.toBuffer({ shape: [n], typestr: "<f8", data, version: 3 });
  const encode = now() - t0;
  t0 = now();
  const back = type.fromBuffer(datum);
  const decode = now() - t0;
  console.log(`encode ${encode} decode ${decode} ${back.data.length}`);
} else if (mode === "records") {
  const n = Number(arg);
  let t0 = now();
  const encoder = new avro.streams.BlockEncoder(type, { codec: "null" });
  const out = fs.createWriteStream(file);
  encoder.pipe(out);
  const values = new Float64Array(3);
  for (let r = 0; r < n; r++) {
    values[0] = r; values[1] = r + 0.5; values[2] = -r;
    encoder.write({ shape: [3], typestr: "<f8", data: Buffer.from(values.buffer.slice(0)), version: 3 });
  }
  encoder.end();
  await new Promise((resolve) => out.on("close", resolve));
  const write = now() - t0;
  t0 = now();
  let sum = 0;
  avro.createFileDecoder(file)
    .on("data", (r) => {
      sum += r.data.readDoubleLE(16);  // the data in place (a Float64Array needs alignment)
    })
    .on("end", () => {
      const read = now() - t0;
      console.log(`write ${write} read ${read} ${sum}`);
    });
}
