// The ElectroDB side of examples/benches/electrodb.rs (run by that benchmark, not by hand).
//
//   node bench.cjs <node_modules home> <input.json> <output.json> [--quick]
//
// <home> is the directory the benchmark installed package.json's pinned packages into (npm ci).
// <input.json> holds `values`, the benchmark's Listing values as plain objects (what an
// ElectroDB user passes to `put`). This script declares the same entity in ElectroDB, writes to
// <output.json> the items it produces (`put(value).params().Item`, marshalled: what
// @aws-sdk/util-dynamodb sends) and the values it parses back from them, for the benchmark to
// compare with the library's, then times two operations per value, in µs per operation:
//
//   put:    entity.put(value).params() then marshall(params.Item), what a user of the low-level
//           client (or of @aws-sdk/lib-dynamodb's DocumentClient, which marshalls the same way)
//           runs before sending a PutItem;
//   decode: unmarshall(item) then entity.parse({ Item }), from the item as the SDK returns it.
//
// The last line on stdout is machine-readable:
//   electrodb put_us=A put_params_us=B marshall_us=C decode_us=D unmarshall_us=E parse_us=F
//   put_wall_us=G decode_wall_us=H
// A to F are medians of the process's CPU time (process.cpuUsage: user + system, so V8's
// garbage-collector threads count), G and H medians of wall time, over rounds of one pass each
// of about 40 ms (10 with --quick), after a warm-up. No collection is forced: a full collection
// (global.gc) before each slice made ElectroDB's put and decode figures 1.2 to 1.6 times larger
// (not investigated; a full collection also discards compiled code and feedback), which would
// favour the library.
"use strict";

const path = require("node:path");
const fs = require("node:fs");
const { createRequire } = require("node:module");

const [home, inputPath, outputPath, ...rest] = process.argv.slice(2);
if (!home || !inputPath || !outputPath) {
  console.error("usage: node bench.cjs <home> <input.json> <output.json> [--quick]");
  process.exit(2);
}
const quick = rest.includes("--quick");
const requireFrom = createRequire(path.join(home, "package.json"));
const { Entity } = requireFrom("electrodb");
const { marshall, unmarshall } = requireFrom("@aws-sdk/util-dynamodb");
const electrodbVersion = requireFrom("electrodb/package.json").version;

// The benchmark's `Listing` (examples/benches/electrodb.rs), declared the ElectroDB way: the
// same attribute names and types, the same key templates, upper case kept (`casing: "none"`),
// GSI1's sort key a number (`cast: "number"`) like the library's single integer placeholder.
// The entity name goes to `_type`, the library's entity type attribute (`setIdentifier`);
// ElectroDB also writes its model version (`__edb_v__`), which it has no option to leave out.
const listing = new Entity(
  {
    model: { entity: "Listing", version: "1", service: "bench" },
    attributes: {
      id: { type: "string", required: true },
      title: { type: "string", required: true },
      summary: { type: "string", required: true },
      category: { type: "string", required: true },
      seller_id: { type: "string", required: true },
      status: { type: ["draft", "pending", "approved"], required: true },
      downloads: { type: "number", required: true },
      price_cents: { type: "number", required: true },
      created_at: { type: "string", required: true },
      submitted_at: { type: "string" },
      seller_verified: { type: "boolean", required: true, field: "sellerVerified" },
      tags: { type: "list", items: { type: "string" }, required: true },
    },
    indexes: {
      listing: {
        pk: { field: "PK", composite: ["id"], template: "LISTING#${id}", casing: "none" },
        sk: { field: "SK", composite: [], template: "META", casing: "none" },
      },
      byCategory: {
        index: "GSI1",
        pk: { field: "GSI1PK", composite: ["category"], template: "CAT#${category}", casing: "none" },
        sk: { field: "GSI1SK", composite: ["downloads"], cast: "number", casing: "none" },
      },
      bySeller: {
        index: "GSI2",
        pk: { field: "GSI2PK", composite: ["seller_id"], template: "SELLER#${seller_id}", casing: "none" },
        sk: { field: "GSI2SK", composite: ["created_at"], template: "${created_at}", casing: "none" },
      },
      byStatus: {
        index: "GSI3",
        pk: { field: "GSI3PK", composite: ["status"], template: "STATUS#${status}", casing: "none" },
        sk: { field: "GSI3SK", composite: ["created_at"], template: "${created_at}", casing: "none" },
      },
    },
  },
  { table: "skill-exchange" },
);
listing.setIdentifier("entity", "_type");

const values = JSON.parse(fs.readFileSync(inputPath, "utf8")).values;

function put(v) {
  const params = listing.put(v).params();
  return marshall(params.Item);
}

function decode(item) {
  return listing.parse({ Item: unmarshall(item) }).data;
}

const items = values.map(put);
const parsed = items.map(decode);
fs.writeFileSync(outputPath, JSON.stringify({ electrodb: electrodbVersion, items, parsed }));

// ---------------------------------------------------------------------------------------------
// Timing. One pass = one call per value; the figures are per call.

let sink = 0;
const passes = {
  put: () => {
    for (const v of values) sink += Object.keys(put(v)).length;
  },
  put_params: () => {
    for (const v of values) sink += Object.keys(listing.put(v).params().Item).length;
  },
  marshall: () => {
    for (const v of plainItems) sink += Object.keys(marshall(v)).length;
  },
  decode: () => {
    for (const i of items) sink += Object.keys(decode(i)).length;
  },
  unmarshall: () => {
    for (const i of items) sink += Object.keys(unmarshall(i)).length;
  },
  parse: () => {
    for (const i of unmarshalled) sink += Object.keys(listing.parse({ Item: i }).data).length;
  },
};
const plainItems = values.map((v) => listing.put(v).params().Item);
const unmarshalled = items.map((i) => unmarshall(i));

const rounds = quick ? 7 : 30;
const sliceMs = quick ? 10 : 40;
const warmupMs = quick ? 150 : 1500;

function cpuMicros() {
  const u = process.cpuUsage();
  return u.user + u.system;
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

// Warm every pass up (the JIT compiles what runs hot); the warm-up's rate gives the number of
// passes that fill a slice.
function calibrate(pass) {
  const t = process.hrtime.bigint();
  let n = 0;
  let ms = 0;
  while (ms < warmupMs) {
    pass();
    n++;
    ms = Number(process.hrtime.bigint() - t) / 1e6;
  }
  return Math.max(1, Math.ceil((n * sliceMs) / ms));
}

const names = Object.keys(passes);
const calls = {};
for (const name of names) calls[name] = calibrate(passes[name]);
const cpu = Object.fromEntries(names.map((n) => [n, []]));
const wall = Object.fromEntries(names.map((n) => [n, []]));
// Rounds go through every pass in turn (order rotating), so the machine's load weighs alike.
for (let r = 0; r < rounds; r++) {
  for (let k = 0; k < names.length; k++) {
    const name = names[(k + r) % names.length];
    const pass = passes[name];
    const n = calls[name];
    const c0 = cpuMicros();
    const w0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) pass();
    const w = Number(process.hrtime.bigint() - w0) / 1e3;
    const c = cpuMicros() - c0;
    cpu[name].push(c / n / values.length);
    wall[name].push(w / n / values.length);
  }
}
const f = (x) => x.toFixed(3);
if (sink < 0) console.log(sink);
console.log(
  `electrodb ${electrodbVersion} values=${values.length} rounds=${rounds} ` +
    names.map((n) => `${n}=${calls[n]}x`).join(" "),
);
console.log(
  `electrodb put_us=${f(median(cpu.put))} put_params_us=${f(median(cpu.put_params))} ` +
    `marshall_us=${f(median(cpu.marshall))} decode_us=${f(median(cpu.decode))} ` +
    `unmarshall_us=${f(median(cpu.unmarshall))} parse_us=${f(median(cpu.parse))} ` +
    `put_wall_us=${f(median(wall.put))} decode_wall_us=${f(median(wall.decode))}`,
);
