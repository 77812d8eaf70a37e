// Mastra's KeywordCoverageMetric (@mastra/evals 0.14.4) on Node, one pair per measure() call,
// driven by benchmarks/speed/per_call.py: each stdin line is {"warm": [[input, output], ...],
// "pairs": [...]}; for each line a NEW metric is made, warmed on "warm", then timed on "pairs"
// (this process's CPU time, user + system). Prints one line {"cpu_s", "mean"} per request.
// MASTRA_EVALS_DIR names a directory where `npm install @mastra/evals@0.14.4` was run.
"use strict";
const path = require("path");
const readline = require("readline");
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
  return total;
}

const lines = readline.createInterface({ input: process.stdin });
lines.on("line", async (line) => {
  lines.pause();
  const request = JSON.parse(line);
  const metric = new KeywordCoverageMetric();
  await run(metric, request.warm);
  const start = process.cpuUsage();
  const total = await run(metric, request.pairs);
  const used = process.cpuUsage(start);
  const cpu = (used.user + used.system) / 1e6;
  process.stdout.write(JSON.stringify({ cpu_s: cpu, mean: total / request.pairs.length }) + "\n");
  lines.resume();
});
