// Mastra's KeywordCoverageMetric (@mastra/evals 0.14.4) on Node: pairs/s, cold and warm.
//
// Called by benchmarks/speed/keyword_speed.py when MASTRA_EVALS_DIR names a directory where
// `npm install @mastra/evals@0.14.4` was run (lexeval never needs Node itself):
//   node benchmarks/speed/mastra_keyword_speed.cjs PAIRS.json
// PAIRS.json is a list of [input, output]; prints {"pairs", "cold_s", "warm_s", "mean"}.
"use strict";
const fs = require("fs");
const path = require("path");
const { createRequire } = require("module");

const dir = process.env.MASTRA_EVALS_DIR;
if (!dir) {
  console.error("MASTRA_EVALS_DIR is not set");
  process.exit(2);
}
const load = createRequire(path.join(path.resolve(dir), "package.json"));
const { KeywordCoverageMetric } = load("@mastra/evals/nlp");

async function run(metric, pairs) {
  let total = 0;
  for (const [input, output] of pairs) {
    total += (await metric.measure(input, output)).score;
  }
  return total / pairs.length;
}

(async () => {
  const pairs = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
  const metric = new KeywordCoverageMetric();
  let start = process.hrtime.bigint();
  const mean = await run(metric, pairs);
  const cold = Number(process.hrtime.bigint() - start) / 1e9;
  let warm = Infinity;
  for (let i = 0; i < 3; i++) {
    start = process.hrtime.bigint();
    await run(metric, pairs);
    warm = Math.min(warm, Number(process.hrtime.bigint() - start) / 1e9);
  }
  console.log(JSON.stringify({ pairs: pairs.length, cold_s: cold, warm_s: warm, mean }));
})();
