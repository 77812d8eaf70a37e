// Mastra's NLP metrics (@mastra/evals 0.14.4) on Node, timed batch by batch for
// benchmarks/quality/mastra_nlp.py, which interleaves them with lexeval's (lexeval never needs Node).
// MASTRA_EVALS_DIR names a directory where `npm install @mastra/evals@0.14.4 @mastra/core@0.24.9
// zod@3 ai@5` was run. stdin: one JSON line per batch {"metric", "pairs": [[input, output], ...]};
// stdout: one JSON line per batch {"cpu_s", "wall_s", "mean"} (this process's CPU time).
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
const nlp = load("@mastra/evals/nlp");
const metrics = {
  completeness: new nlp.CompletenessMetric(),
  content_similarity: new nlp.ContentSimilarityMetric(),
  textual_difference: new nlp.TextualDifferenceMetric(),
  tone_consistency: new nlp.ToneConsistencyMetric(),
};

(async () => {
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of rl) {
    if (!line.trim()) continue;
    const batch = JSON.parse(line);
    const metric = metrics[batch.metric];
    const cpu = process.cpuUsage();
    const start = process.hrtime.bigint();
    let total = 0;
    for (const [input, output] of batch.pairs) {
      total += (await metric.measure(input, output)).score;
    }
    const wall = Number(process.hrtime.bigint() - start) / 1e9;
    const used = process.cpuUsage(cpu);
    const cpu_s = (used.user + used.system) / 1e6;
    process.stdout.write(JSON.stringify({ cpu_s, wall_s: wall, mean: total / batch.pairs.length }) + "\n");
  }
})();
