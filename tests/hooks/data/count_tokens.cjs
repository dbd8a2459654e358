// Count the tokens of each sample with the real cl100k_base and o200k_base
// vocabularies (npm package gpt-tokenizer 3.4.0); see make_token_samples.py.
const fs = require("fs");
const cl100k = require("gpt-tokenizer/cjs/encoding/cl100k_base");
const o200k = require("gpt-tokenizer/cjs/encoding/o200k_base");
const samples = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
for (const s of samples) {
  s.cl100k = cl100k.encode(s.text).length;
  s.o200k = o200k.encode(s.text).length;
}
process.stdout.write(JSON.stringify(samples, null, 1) + "\n");
