#!/usr/bin/env node
// Writes src/lexeval/data/compromise_en.json: what lexeval's emulation of compromise 14.17.0
// (the tagger inside @mastra/evals 0.14.4's CompletenessMetric) takes from compromise itself:
//   verbs:  every one-word verb form of compromise's lexicon -> [tense, compromise's infinitive]
//           (tense In|Pa|Pr|Ge|Pt: Infinitive, PastTense, PresentTense, Gerund, Participle)
//   others: the lexicon's other words ending in -ing, -ed or -s -> their first tag
//   models: compromise's suffix rules turning an unknown verb form into its infinitive
//           (fromPast, fromPresent, fromGerund, fromParticiple: suffix-thumb's fwd, both, ex)
// Run: node benchmarks/compromise_data.mjs > src/lexeval/data/compromise_en.json
// (NODE_DIR defaults to /tmp/mastra-nlp, where @mastra/evals 0.14.4 is installed).
import path from 'node:path';
const dir = process.env.NODE_DIR || '/tmp/mastra-nlp';
const nlp = (await import(path.join(dir, 'node_modules/compromise/src/three.js'))).default;
const world = nlp.world();
const lexicon = world.model.one.lexicon;
const toInfinitive = world.methods.two.transform.verb.toInfinitive;
const TENSES = { Infinitive: 'In', PastTense: 'Pa', PresentTense: 'Pr', Gerund: 'Ge', Participle: 'Pt' };
const verbs = {};
const others = {};
for (const word of Object.keys(lexicon).sort()) {
  if (/[^a-z'-]/.test(word)) continue;
  const tag = lexicon[word];
  const tags = Array.isArray(tag) ? tag : String(tag).split(',');
  const tense = Object.keys(TENSES).find((t) => tags.includes(t));
  if (tense && !tags.includes('PhrasalVerb')) {
    const inf = tense === 'Infinitive' ? word : toInfinitive(word, world.model, tense);
    verbs[word] = [TENSES[tense], inf];
  } else if (!tense && /(ing|ed|s)$/.test(word)) {
    others[word] = tags[0];
  }
}
const models = {};
for (const name of ['fromPast', 'fromPresent', 'fromGerund', 'fromParticiple']) {
  const { fwd = {}, both = {}, ex = {}, same = [] } = world.model.two.models[name];
  models[name] = { fwd, both, ex, same };
}
const version = JSON.parse(
  (await import('node:fs')).readFileSync(path.join(dir, 'node_modules/compromise/package.json'), 'utf8'),
).version;
process.stdout.write(JSON.stringify({ compromise: version, verbs, others, models }) + '\n');
