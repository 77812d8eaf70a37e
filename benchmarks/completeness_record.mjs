#!/usr/bin/env node
// Records what the real @mastra/evals 0.14.4 CompletenessMetric (compromise 14.17.0 inside)
// makes of fresh pairs, for benchmarks/completeness_parity.py (lexeval itself never needs Node).
// stdin : JSONL {"id", "input", "output"}
// stdout: JSONL {"id", "score", "input_elements", "output_elements"} in the same order; an
//         exception becomes {"id", "error"}.
// With --tags, stdin is JSONL {"id", "text"} and stdout {"id", "terms": [[text, [tags]]...],
//   "elements"} (for looking at a difference: compromise's tags of each term).
// NODE_DIR names a folder where `npm install @mastra/evals@0.14.4` was run (default
// /work/wt/mastra).
import path from 'node:path';
import readline from 'node:readline';
import { createRequire } from 'node:module';

const dir = path.resolve(process.env.NODE_DIR || '/work/wt/mastra');
const nlp = await import(path.join(dir, 'node_modules/@mastra/evals/dist/metrics/nlp/index.js'));
const metric = new nlp.CompletenessMetric();
const tags = process.argv.includes('--tags');
const compromise = tags ? createRequire(path.join(dir, 'package.json'))('compromise') : null;

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (!line.trim()) continue;
  const c = JSON.parse(line);
  let out;
  try {
    if (tags) {
      const doc = compromise(c.text);
      const terms = doc.json({ terms: { normal: true } }).flatMap((s) =>
        s.terms.map((t) => [t.text, t.tags]),
      );
      const elements = metric.extractElements(compromise(c.text));
      out = { id: c.id, terms, elements };
    } else {
      const r = await metric.measure(c.input, c.output);
      out = {
        id: c.id,
        score: r.score,
        input_elements: r.info.inputElements,
        output_elements: r.info.outputElements,
      };
    }
  } catch (e) {
    out = { id: c.id, error: String((e && e.message) || e) };
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}
