#!/usr/bin/env node
// Generates jsmath_vectors.json: golden Math.log / Math.pow results from node,
// used by tests/core/test_jsmath.py to check mem_core/jsmath.py bit-for-bit.
//
//   node tests/core/data/make_jsmath_vectors.js > tests/core/data/jsmath_vectors.json
//
// Every double (inputs and results) is stored as its 16-hex-digit IEEE-754 bit
// pattern, so Python reads exactly the same values. Inputs come from a seeded
// PRNG (mulberry32, 53-bit doubles built exactly), so reruns are reproducible.
'use strict';

const view = new DataView(new ArrayBuffer(8));
function hex(d) {
  view.setFloat64(0, d);
  return view.getBigUint64(0).toString(16).padStart(16, '0');
}

function mulberry32(seed) {
  let a = seed >>> 0;
  return function next32() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}
const next32 = mulberry32(20240521);
// uniform double in [0, 1) with 53 random bits; exact in binary64
function random() {
  return ((next32() >>> 5) * 67108864 + (next32() >>> 6)) / 9007199254740992;
}

const log = [];
const pow = [];
const addLog = (x) => log.push([hex(x), hex(Math.log(x))]);
const addPow = (x, y) => pow.push([hex(x), hex(y), hex(Math.pow(x, y))]);

// Math.log(f) for f = 1..5000
for (let f = 1; f <= 5000; f++) addLog(f);
// ~2000 random doubles in (0, 1e6)
for (let i = 0; i < 2000; i++) {
  let x = random() * 1e6;
  if (x === 0) x = 0.5;
  addLog(x);
}
// log special cases and edges
for (const x of [0, -0, -1, -Infinity, Infinity, NaN, 1, 5e-324, 1e-310,
  2.2250738585072014e-308, 2.225073858507201e-308, Number.MAX_VALUE,
  1 + Number.EPSILON, 1 - Number.EPSILON / 2, Math.E, 2, 0.5, Math.SQRT2,
  Math.SQRT1_2, 1.0000009536743164, 0.9999990463256836, 1e-300, 1e300,
  0.1, 10, 86400000, 1e11]) addLog(x);

// Math.pow(0.5, t), t = ms/86400000/30 and ms/86400000/90, ms integer in [0, 1e11]
for (let i = 0; i < 3000; i++) {
  const ms = Math.floor(random() * (1e11 + 1));
  addPow(0.5, i % 2 ? ms / 86400000 / 30 : ms / 86400000 / 90);
}
// Math.pow(10, t), t = (1200 - elo)/400, elo in [800, 1600] (integers and reals)
for (let i = 0; i < 3000; i++) {
  const elo = i % 2 ? 800 + Math.floor(random() * 801) : 800 + random() * 800;
  addPow(10, (1200 - elo) / 400);
}
// pow special cases (ES spec Number::exponentiate plus fdlibm paths)
const I = Infinity;
for (const [x, y] of [
  [NaN, 0], [NaN, -0], [NaN, 1], [NaN, NaN], [1, NaN], [0, NaN], [2, NaN],
  [1, I], [1, -I], [-1, I], [-1, -I], [2, I], [2, -I], [0.5, I], [0.5, -I],
  [-2, I], [-2, -I], [-0.5, I], [-0.5, -I], [1, 0], [0, 0], [I, 0],
  [I, 1], [I, -1], [I, 0.5], [I, -0.5], [I, 3], [I, -3],
  [-I, 3], [-I, 2], [-I, 2.5], [-I, -3], [-I, -2], [-I, -2.5], [-I, 0.5], [-I, -0.5],
  [0, 1.2], [0, -1.2], [0, 3], [0, -3], [0, 1], [0, -1], [0, 0.5], [0, -0.5], [0, 2],
  [-0, 3], [-0, 2], [-0, 2.5], [-0, -3], [-0, -2], [-0, -2.5], [-0, 0.5],
  [-0, -0.5], [-0, 1], [-0, -1], [-0, I], [-0, -I], [0, I], [0, -I],
  [-3, 2.5], [-3, 2], [-3, 3], [-3, -3], [-2, 0.5], [-8, 1 / 3], [-1, 0.5],
  [-1, 2], [-1, 3], [-1, -3], [-1, 2 ** 53], [-1, 2 ** 53 + 2], [-1, 1e300],
  [-2, 2 ** 31 + 1], [-1.0000001, 2 ** 52 + 1], [-0.9999999, 2 ** 52 + 1],
  [-0.5, 3], [-0.5, 2 ** 52 + 1], [-0.5, 2 ** 20 + 1], [-0.5, 2 ** 21 + 1],
  [-1.5, 1025], [-1.5, 1024], [-7, 5], [-7, 21],
  [2, 0.5], [4, -0.5], [0.5, 0.5], [3, 1], [3, -1], [3, 2], [-3, 1], [-3, -1],
  [2, 1023], [2, 1024], [2, -1022], [2, -1074], [2, -1075], [2, -1074.5],
  [2, -1076], [2, 1023.9999999999999], [2, -1073.9], [-2, 1023], [-2, -1075],
  [10, 308], [10, 308.5], [10, 309], [10, -308], [10, -323], [10, -324],
  [10, 22], [10, 23], [10, -5], [10, 0.1], [10, -0.1],
  [1e-320, 0.5], [1e-320, 2], [1e-320, 0.7], [5e-324, 2], [5e-324, 0.5],
  [5e-324, -1], [5e-324, -0.5], [Number.MAX_VALUE, 2], [Number.MAX_VALUE, 0.5],
  [Number.MAX_VALUE, -1], [1e300, 1.1], [1e-300, 1.1],
  [1.0000001, 1e10], [0.9999999, 1e10], [1.0000001, -1e10], [0.9999999, -1e10],
  [1 + Number.EPSILON, 2 ** 60], [1 - Number.EPSILON / 2, 2 ** 60],
  [1 + Number.EPSILON, 2 ** 70], [1 - Number.EPSILON / 2, -(2 ** 70)],
  [3, 1e20], [-3, 1e20], [0.3, 1e20], [1.5, -1e300], [1.5, 1e300],
  [0.5, 1e-300], [0.5, -1e-300], [0.5, 5e-324], [10, 5e-324],
  [Math.E, 1], [Math.E, 2.5], [Math.PI, Math.E], [7, 1 / 3],
]) addPow(x, y);

const lines = [];
lines.push('{');
lines.push('  "generator": "tests/core/data/make_jsmath_vectors.js",');
lines.push(`  "node": ${JSON.stringify(process.version)},`);
lines.push(`  "v8": ${JSON.stringify(process.versions.v8)},`);
lines.push('  "format": "IEEE-754 binary64 bit patterns as 16 hex digits (big-endian)",');
lines.push('  "log": [');
lines.push(log.map((r) => '    ' + JSON.stringify(r)).join(',\n'));
lines.push('  ],');
lines.push('  "pow": [');
lines.push(pow.map((r) => '    ' + JSON.stringify(r)).join(',\n'));
lines.push('  ]');
lines.push('}');
process.stdout.write(lines.join('\n') + '\n');
