// avsc (npm, under node) as an Avro peer for tests/interop/avro_peer_test.py.
//   node avsc_peer.mjs write FILE CODEC    container of the records of records.json (stdin)
//   node avsc_peer.mjs read FILE           the records of a container, as JSON (bytes in hex)
//   node avsc_peer.mjs datum               stdin {"schema": ..., "record": ...}: its datum in hex
// Records are JSON with bytes fields given as {"hex": "..."}.
import avro from "avsc";
import fs from "node:fs";

function revive(value) {
  if (Array.isArray(value)) return value.map(revive);
  if (value && typeof value === "object") {
    if (typeof value.hex === "string" && Object.keys(value).length === 1) {
      return Buffer.from(value.hex, "hex");
    }
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = revive(v);
    return out;
  }
  return value;
}

function plain(value) {
  if (Buffer.isBuffer(value)) return { hex: value.toString("hex") };
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === "object") {
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = plain(v);
    return out;
  }
  return value;
}

const [command, file, codec] = process.argv.slice(2);
if (command === "write") {
  const input = JSON.parse(fs.readFileSync(0, "utf8"));
  const type = avro.Type.forSchema(input.schema);
  const encoder = avro.createFileEncoder(file, type, { codec });
  for (const record of input.records) encoder.write(revive(record));
  encoder.end();
} else if (command === "read") {
  const records = [];
  avro.createFileDecoder(file)
    .on("data", (r) => records.push(plain(r)))
    .on("error", (e) => { console.error(String(e)); process.exit(1); })
    .on("end", () => process.stdout.write(JSON.stringify(records)));
} else if (command === "datum") {
  const input = JSON.parse(fs.readFileSync(0, "utf8"));
  const type = avro.Type.forSchema(input.schema);
  process.stdout.write(type.toBuffer(revive(input.record)).toString("hex"));
} else {
  console.error("usage: avsc_peer.mjs write|read|datum ...");
  process.exit(2);
}
