#!/usr/bin/env node
// Writes src/lexeval/data/compromise_en.json: the data of compromise 14.17.0 (the part-of-speech
// tagger inside @mastra/evals 0.14.4's CompletenessMetric) that lexeval's emulation of its
// first tagging passes uses (lexeval.metrics.nlp.compromise), taken from compromise itself:
//   lexicon:  every one-word entry of its lexicon -> its tags, comma-separated
//   switches: words that can take two parts of speech -> the kind of switch ('Plural|Verb'...)
//   clues:    per kind of switch, the neighbouring words and tags that decide it
//   parents:  each tag -> its ancestors in compromise's tag set
//   nots:     each tag -> the tags it removes when set (setTag's conflicts)
//   suffixes: the word endings that tag an unknown word (by ending length)
//   regexes:  the regular expressions that tag a word (regexText, regexNormal, regexNumbers, then
//             endsWith by last letter: [source, tag(s), flags]; \p{Currency_Symbol} written out,
//             other Unicode property classes left out)
//   neighbours: the words and tags beside an untagged word that tag it
//   abbreviations: the words whose period does not end a sentence
//   hyphenPrefixes, hyphenSuffixes: the first and last parts that keep a hyphenated word whole
//             (its tokenizer's hasHyphen: 're-do', 'flower-like')
//   models:   the suffix rules that turn a verb form into its infinitive
//             (fromPast, fromPresent, fromGerund, fromParticiple: suffix-thumb's fwd, both, ex)
// Run: node benchmarks/compromise_data.mjs > src/lexeval/data/compromise_en.json
// (NODE_DIR defaults to /tmp/mastra-nlp, where @mastra/evals 0.14.4 is installed).
import fs from 'node:fs';
import path from 'node:path';
const dir = process.env.NODE_DIR || '/tmp/mastra-nlp';
const nlp = (await import(path.join(dir, 'node_modules/compromise/src/three.js'))).default;
const { model } = nlp.world();
const lexicon = {};
for (const word of Object.keys(model.one.lexicon).sort()) {
  if (/\s/.test(word)) continue;
  const tag = model.one.lexicon[word];
  lexicon[word] = Array.isArray(tag) ? tag.join(',') : String(tag);
}
const parents = {};
const nots = {};
for (const [tag, info] of Object.entries(model.one.tagSet)) {
  parents[tag] = info.parents || [];
  nots[tag] = info.not || [];
}
const models = {};
for (const name of ['fromPast', 'fromPresent', 'fromGerund', 'fromParticiple']) {
  const { fwd = {}, both = {}, ex = {}, same = [] } = model.two.models[name];
  models[name] = { fwd, both, ex, same };
}
const unicode = (r) => r.flags.includes('u') || /\\p\{/.test(r.source);
// \p{Currency_Symbol} written out as the class of its characters (Python's re has no \p{})
let currency = '';
for (let c = 0; c < 0x10000; c += 1) {
  const ch = String.fromCharCode(c);
  if (/\p{Sc}/u.test(ch)) currency += '\\u' + c.toString(16).padStart(4, '0');
}
const tagOf = (tag) => (Array.isArray(tag) ? tag.join(',') : tag);
const regexes = {
  normal: model.two.regexNormal.filter((r) => !unicode(r[0])).map((r) => [r[0].source, r[1]]),
  text: model.two.regexText
    .filter((r) => !unicode(r[0]))
    .map((r) => [r[0].source, tagOf(r[1]), r[0].flags]),
  numbers: model.two.regexNumbers.map((r) => [
    r[0].source.replaceAll('\\p{Currency_Symbol}', `[${currency}]`),
    tagOf(r[1]),
    r[0].flags.replace('u', ''),
  ]),
  endsWith: Object.fromEntries(
    Object.entries(model.two.endsWith).map(([c, rs]) => [
      c,
      rs.filter((r) => !unicode(r[0])).map((r) => [r[0].source, r[1]]),
    ]),
  ),
};
const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'node_modules/compromise/package.json'), 'utf8'));
const data = {
  compromise: pkg.version,
  lexicon,
  switches: model.two.switches,
  clues: model.two.clues,
  parents,
  nots,
  suffixes: model.two.suffixPatterns.map((s) => s || {}),
  regexes,
  neighbours: model.two.neighbours,
  abbreviations: Object.keys(model.one.abbreviations).sort(),
  hyphenPrefixes: Object.keys(model.one.prefixes).sort(),
  hyphenSuffixes: Object.keys(model.one.suffixes).sort(),
  models,
};
process.stdout.write(JSON.stringify(data) + '\n');
