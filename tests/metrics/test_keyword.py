"""KeywordCoverageMetric: compat modes against the oracle, the default mode's promises."""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lexeval.metrics import KeywordCoverageMetric
from lexeval.metrics.weights import KeywordWeights

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
ORACLE = SHARED / "oracles" / "mastra"


def test_compat_modes_match_every_oracle_case() -> None:
    if not ORACLE.is_dir():
        pytest.skip(f"../shared is absent ({ORACLE} not found): Mastra oracle parity not run")
    metric = KeywordCoverageMetric(compat="mastra")
    scorer = KeywordCoverageMetric(compat="mastra-scorer")
    bad = []
    for cases, expected in [
        ("cases.jsonl", "expected.jsonl"),
        ("docs_examples.jsonl", "docs_examples.expected.jsonl"),
    ]:
        with open(ORACLE / cases, encoding="utf-8") as fc, open(ORACLE / expected) as fe:
            for cline, eline in zip(fc, fe, strict=True):
                case, exp = json.loads(cline), json.loads(eline)
                m = metric.measure(case["input"], case["output"])
                s = scorer.measure(case["input"], case["output"])
                got = (
                    m.score,
                    m.info["matchedKeywords"],
                    m.info["totalKeywords"],
                    m.info["input_keywords"],
                    m.info["output_keywords"],
                    s.score,
                    s.info["matchedKeywords"],
                    s.info["totalKeywords"],
                )
                want = (
                    exp["score"],
                    exp["matched"],
                    exp["total"],
                    exp["input_keywords"],
                    exp["output_keywords"],
                    exp["scorer_score"],
                    exp["scorer_matched"],
                    exp["scorer_total"],
                )
                if got != want:
                    bad.append(case["id"])
    assert bad == []


def test_fox_example_default_keeps_the_documented_promise() -> None:
    inp = "The quick brown fox jumps over the lazy dog"
    out = "A quick brown fox jumped over a lazy dog"
    default = KeywordCoverageMetric().measure(inp, out)
    assert (default.info["matched_keywords"], default.info["total_keywords"]) == (6, 6)
    assert "matchedKeywords" not in default.info  # Mastra's names in the compat modes only
    assert default.score == 1.0
    mastra = KeywordCoverageMetric(compat="mastra").measure(inp, out)
    assert (mastra.info["matchedKeywords"], mastra.info["totalKeywords"]) == (5, 6)
    assert mastra.info["missing"] == ["jumps"]


def test_compound_terms_are_one_keyword() -> None:
    r = KeywordCoverageMetric(match="exact").measure("machine learning", "learning about a machine")
    assert r.info["input_keywords"] == ["machine learning"]
    assert r.score == 0.0
    r2 = KeywordCoverageMetric(match="exact").measure("machine learning", "Machine-learning rocks")
    assert r2.score == 1.0


@pytest.fixture(params=["frequency", "uniform"])
def m(request: pytest.FixtureRequest) -> KeywordCoverageMetric:
    """The default metric with each ``weighting``."""
    return KeywordCoverageMetric(weighting=request.param)


def coverage(metric: KeywordCoverageMetric, reference: str, output: str) -> float:
    """The share of the reference's keyword weight found (the matching rules' result, before
    the extra-content factor of the score)."""
    return float(metric.measure(reference, output).info["coverage"])


def test_lenient_matching_rules() -> None:
    m = KeywordCoverageMetric()
    assert coverage(m, "four", "There are 4 seasons") == 1.0  # number words
    assert coverage(m, "Wilhelm Röntgen", "wilhelm rontgen") == 1.0  # diacritics
    assert coverage(m, "Massachusetts", "filmed in Ipswich, Massachusetts1.") == 1.0
    assert coverage(m, "1,000 users", "1000 users") == 1.0
    half = KeywordCoverageMetric(weighting="uniform").measure("1979–80", "in 1979")
    assert half.info["coverage"] == 0.5  # one of the two parts of a dash compound
    assert half.info["partial"] == {"1979–80": 0.5}
    weighted = m.measure("1979–80", "in 1979").info  # parts by weight: "80" is the commoner
    assert 0.5 < weighted["coverage"] < 1.0
    assert weighted["partial"] == {"1979–80": weighted["coverage"]}
    exact = KeywordCoverageMetric(match="exact")
    # "four" is a stopword: no input keyword while the output has some gives 0.0
    assert exact.measure("four", "There are 4 seasons").score == 0.0
    assert exact.measure("Massachusetts", "Massachusetts1").score == 0.0


def test_numbers_match_as_whole_numbers(m: KeywordCoverageMetric) -> None:
    assert coverage(m, "5,000", "around 15,000") == 0.0
    assert coverage(m, "5,000", "about 5,000 people") == 1.0
    assert coverage(m, "5000", "around 15000") == 0.0
    assert coverage(m, "2018", "in 2018.") == 1.0
    assert coverage(m, "1994", "hosted it in 1994⁶.") == 1.0  # footnote mark
    assert coverage(m, "2018", "premiered on May 29, 20181.") == 1.0  # glued citation mark
    assert coverage(m, "201", "in 2018") == 0.0
    assert coverage(m, "18", "oxygen-180") == 0.0


def test_no_prefix_rule_for_keys_with_digits(m: KeywordCoverageMetric) -> None:
    r = m.measure("oxygen-18", "oxygen-16")
    assert r.score <= 0.5 and r.info["matched"] == []
    assert coverage(m, "himalayas", "the himalaya range") == 1.0  # words keep the rule


def test_dashes_units_acronyms_and_hyphenated_words(m: KeywordCoverageMetric) -> None:
    # every dash is a hyphen: an en dash range is not a conflicting number
    r = m.measure("10–12 years", "The average lifespan is 10-12 years.")
    assert r.info["coverage"] == 1.0 and r.info["conflicts"] == {}
    assert coverage(m, "1780—1830", "from 1780-1830") == 1.0
    assert coverage(m, "-128.6 °F", "recorded −128.6 °F") == 1.0  # minus sign
    # units in one spelling, also glued to the number or hyphenated
    assert coverage(m, "6ft 1in", "He is 6 feet 1 inch tall") == 1.0
    assert coverage(m, "6ft 1in", "He measures 6-feet 1-inch") == 1.0
    assert coverage(m, "57 yrs", "57 years") == 1.0
    assert coverage(m, "12.9-kilometre", "about 12.9 kilometers long") == 1.0
    assert coverage(m, "6ft", "6 metres") < 1.0
    # "in" is an inch only after a number, never as the preposition
    assert coverage(m, "1 inch", "it is in box 1") < 1.0
    assert coverage(m, "three inches", "three in a row") < 1.0
    # dotted acronyms without their dots
    assert coverage(m, "U.S.", "the US team") == 1.0
    assert coverage(m, "R.E.M.", "by REM") == 1.0
    # a reference key found as a part of an output's hyphenated word
    assert coverage(m, "25", "Wisconsin is the 25th-largest state") == 1.0
    assert coverage(m, "blaming", "a victim-blaming statement") == 1.0
    # but a reference compound's number part is not found in another compound
    assert coverage(m, "rubidium-85", "specifically astatine-85") == 0.0
    assert coverage(m, "18", "oxygen-180") == 0.0


def test_number_words_and_ordinals() -> None:
    m = KeywordCoverageMetric()
    assert coverage(m, "twenty-four", "24 hours") == 1.0
    assert coverage(m, "24", "twenty-four hours") == 1.0
    assert coverage(m, "24", "twenty four hours") == 1.0
    assert coverage(m, "twenty four", "it was 24") == 1.0
    assert coverage(m, "Twenty-sixth", "the 26th") == 1.0
    assert coverage(m, "26th", "the twenty-sixth") == 1.0
    assert coverage(m, "Fourth of July", "4th of July") == 1.0
    assert coverage(m, "two thousand", "2000") == 1.0
    assert coverage(m, "twenty-four", "42") == 0.0


def test_mojibake_is_repaired() -> None:
    m = KeywordCoverageMetric()
    assert coverage(m, "DÃ¡in", "Dáin II Ironfoot") == 1.0
    assert coverage(m, "Dáin", "DÃ¡in II Ironfoot") == 1.0


def test_a_missing_negation_costs_more_than_a_keyword(m: KeywordCoverageMetric) -> None:
    negated = m.measure("not guilty", "guilty")
    plain = m.measure("very guilty", "guilty")
    assert negated.score < 0.5 and negated.score < plain.score
    assert negated.info["weights"]["not"] >= 2 * negated.info["weights"]["guilty"]
    assert m.measure("never married", "he was never married").score == 1.0


def test_frequency_weighting_counts_informative_keywords_more() -> None:
    weighted = KeywordCoverageMetric()
    uniform = KeywordCoverageMetric(weighting="uniform")
    wrong = ("Battle of Hastings", "the Battle of Waterloo")
    assert uniform.measure(*wrong).info["coverage"] == 0.5
    r = weighted.measure(*wrong)
    assert r.score < 0.5  # "battle" is common, "hastings" is not
    assert (r.info["matched_keywords"], r.info["total_keywords"]) == (1, 2)
    assert r.info["matched_weight"] == r.info["weights"]["battle"]
    assert r.info["total_weight"] == sum(r.info["weights"].values())
    assert r.info["coverage"] == r.info["matched_weight"] / r.info["total_weight"]
    assert weighted.measure("Battle of Hastings", "at Hastings").score > 0.5
    assert "weights:wordfreq" in weighted.signature and "weights:uniform" in uniform.signature


def test_weights_of_number_and_hyphenated_keys_are_wordfreqs() -> None:
    """Keys of lower-case ASCII letters and digits, alone or joined by hyphens ("1901", "12th",
    "007", "off-road", "2001-2002") are weighed without wordfreq's tokenizer: the same weight
    as through it, for every number up to 3,999, with leading zeros, ordinals, ranges,
    hyphenated words and mixed keys."""
    import random

    import wordfreq

    from lexeval.metrics import weights

    rng = random.Random(7)
    keys = [str(i) for i in range(4000)] + ["0" * z + str(i) for z in (1, 2) for i in range(100)]
    keys += [f"{i}{end}" for i in range(0, 3000, 7) for end in ("st", "th", "s", "km", "x")]
    alnum = "abcdefghijklmnopqrstuvwxyz0123456789"
    keys += ["".join(rng.choices(alnum, k=rng.randint(2, 7))) for _ in range(2000)]
    keys += [str(rng.randrange(10**n)) for n in range(5, 14) for _ in range(20)]
    words = [*wordfreq.top_n_list("en", 2000), "gutenberg", "zzyzx"]
    keys += ["-".join(rng.choices(words, k=rng.randint(2, 3))) for _ in range(1500)]
    keys += [f"{rng.randint(0, 2100)}-{rng.randint(0, 99)}" for _ in range(500)]
    keys += ["".join(rng.choices(alnum + "--", k=rng.randint(1, 9))) for _ in range(1500)]
    weights.clear_caches()
    w = weights.KeywordWeights("en")
    for key in keys:
        expected = max(0.5, 8.0 - wordfreq.zipf_frequency(key, "en"))
        if any(c.isdigit() for c in key):
            expected *= 3.0
        assert w.weight(key) == expected, key


@settings(max_examples=500, deadline=None)
@given(
    st.text(alphabet="abz0129.,-\u2010\u2013\u2014\u2212'", min_size=1, max_size=12)
    | st.sampled_from(["dr.", "jr.", "inc.", "9,436", "36.0", "2001\u20132002", "1,020\u20131,080"])
)
def test_weights_of_dashed_dotted_and_grouped_keys_are_wordfreqs(key: str) -> None:
    """Keys with dashes, a final ".", numbers with "." or "," between digits ("2001\u20132002",
    "dr.", "9,436") are weighed without wordfreq's tokenizer where their tokens are plain: the
    same weight as through it."""
    import wordfreq

    expected = max(0.5, 8.0 - wordfreq.zipf_frequency(key, "en"))
    assert KeywordWeights("en").weight(key, numeric=False) == expected


def test_extra_content_breaks_ties_of_coverage() -> None:
    m = KeywordCoverageMetric()
    short = m.measure("Elvis Presley", "Elvis Presley")
    long = m.measure("Elvis Presley", "Elvis Presley, then UB40 and Andrea Bocelli covered it")
    assert short.score == 1.0 and long.info["coverage"] == 1.0
    assert 0.95 <= long.score < short.score  # at most extra_penalty (0.05) lower
    assert long.score == 1.0 - 0.05 * long.info["extra"]
    assert long.info["extra"] == 1.0 - long.info["precision"] > 0.5
    plain = KeywordCoverageMetric(extra_penalty=0.0, near_credit=0.0)
    assert plain.measure("Elvis Presley", "Elvis Presley, covered by UB40").score == 1.0


def test_near_matches_earn_part_of_their_weight() -> None:
    m = KeywordCoverageMetric(extra_penalty=0.0)
    r = m.measure("Manchuria", "the Manchu people")
    assert r.info["near"] == {"manchuria": {"keyword": "manchu", "similarity": 0.8}}
    assert r.score == pytest.approx(0.5 * (0.8 - 0.5) / 0.5)  # near_credit 0.5
    assert m.measure("Manchuria", "the Qing court").score == 0.0  # nothing close
    assert m.measure("1947", "in 1946").score == 0.0  # never for numbers
    assert m.measure("mat", "a cat").score == 0.0  # nor for keywords under 4 characters
    many = " ".join(f"w{i:04d}x" for i in range(1000))  # past 1,000 output keywords: no rule 5
    assert m.measure("Manchuria", f"the Manchu people {many}").info["near"] == {}
    off = KeywordCoverageMetric(near_credit=0.0).measure("Manchuria", "the Manchu people")
    assert off.score == 0.0 and off.info["near"] == {}
    assert KeywordCoverageMetric(near_credit=0.0).recommended_threshold is None
    assert m.signature != KeywordCoverageMetric().signature


def test_a_contradicted_number_or_month_counts_against_the_answer() -> None:
    m = KeywordCoverageMetric(extra_penalty=0.0, near_credit=0.0)
    off = KeywordCoverageMetric(extra_penalty=0.0, near_credit=0.0, conflict_penalty=0.0)
    gold, wrong_day = "September 12, 2004", "September 14, 2004"
    r = m.measure(gold, wrong_day)
    assert r.info["conflicts"] == {"12": ["14"]} and r.info["missing"] == ["12"]
    w = r.info["weights"]
    assert r.score == pytest.approx((w["september"] + w["2004"] - w["12"]) / r.info["total_weight"])
    assert off.measure(gold, wrong_day).score == pytest.approx(
        (w["september"] + w["2004"]) / r.info["total_weight"]
    )
    assert off.measure(gold, wrong_day).info["conflicts"] == {}
    # a month for a month (before any near credit), a year for a year; never below 0
    month = KeywordCoverageMetric(extra_penalty=0.0).measure("January 2018", "June 2018")
    assert month.info["conflicts"] == {"january": ["june"]} and month.info["near"] == {}
    assert m.measure("1947", "in 1946").info["conflicts"] == {"1947": ["1946"]}
    assert m.measure("Paris 1947", "Lyon, 1946").score == 0.0
    # another kind is no conflict (a day is not a year), nor a number the reference holds
    assert m.measure("1998", "on May 3").info["conflicts"] == {}
    assert m.measure("5 to 10", "10").info["conflicts"] == {}
    assert m.measure("1998", "in 1998 or 2001").score == 1.0  # found: other years are extra
    assert m.measure("Paris", "Paris, 2001").info["conflicts"] == {}  # not a number or month
    # a compound key found in part earns its share instead
    assert m.measure("1979-80", "from 1979 to 1981").info["conflicts"] == {}
    assert KeywordCoverageMetric(conflict_penalty=0.0).recommended_threshold is None
    assert "conflict:1" in KeywordCoverageMetric().signature
    assert "conflict:0" in off.signature
    with pytest.raises(ValueError, match="conflict_penalty"):
        KeywordCoverageMetric(conflict_penalty=2.0)


def test_conflict_kinds() -> None:
    from lexeval.metrics.keyword import conflict_kind

    assert [conflict_kind(k) for k in ("2004", "12", "0", "3000", "2.18", "22:28")] == [
        "year",
        "small",
        "small",
        "number",
        "number",
        "number",
    ]
    assert conflict_kind("may") == "month" and conflict_kind("may", english=False) is None
    assert conflict_kind("spring") is None


def test_long_outputs_match_like_short_ones() -> None:
    """Past ``LONG_TEXT`` characters substring queries go through the 4-gram index; the
    results are those of the short-text path (the speed is measured in
    benchmarks/speed/keyword_scaling.py)."""
    from lexeval.metrics.substring import LONG_TEXT

    filler = " ".join(f"w{i:05d}x" for i in range(LONG_TEXT // 7))
    m = KeywordCoverageMetric()
    for reference, output in [
        ("Massachusetts", "filmed in Ipswich, Massachusetts1."),
        ("5,000", "around 15,000"),
        ("2018", "premiered on May 29, 20181."),
        ("Johann Gutenberg", "printed byJohann Gutenbergin Mainz"),
    ]:
        short = m.measure(reference, output)
        long = m.measure(reference, f"{filler} {output} {filler}")
        assert long.score == short.score, reference


def test_explicit_keywords() -> None:
    m = KeywordCoverageMetric(keywords=["React", "state management", "hooks"], match="exact")
    r = m.measure("", "React hooks help with state management")
    assert r.info["total_keywords"] == 3
    assert r.score == 1.0
    r2 = KeywordCoverageMetric(match="exact").measure_keywords(
        ["gradient descent", "momentum"], "We use momentum."
    )
    assert r2.info["missing"] == ["gradient descent"]
    assert r2.score == 0.5
    with pytest.raises(TypeError, match="keywords"):
        KeywordCoverageMetric(keywords="React")  # type: ignore[arg-type]


def test_fuzzy_is_off_by_default_and_matches_spelling_variants() -> None:
    plain = KeywordCoverageMetric(match="exact")
    fuzzy = KeywordCoverageMetric(match="exact", fuzzy=True)
    assert plain.measure("Kubernetes", "Kubernets cluster").score == 0.0
    r = fuzzy.measure("Kubernetes", "Kubernets cluster")
    assert r.score == 1.0
    assert r.info["fuzzy_matches"] == {"kubernetes": "kubernets"}


def test_empty_rules() -> None:
    m = KeywordCoverageMetric()
    assert m.measure("", "").score == 1.0
    assert m.measure("", "fox").score == 0.0
    assert m.measure("fox", "").score == 0.0
    mastra = KeywordCoverageMetric(compat="mastra")
    assert mastra.measure("", "").score == 1.0
    assert mastra.measure(" ", " ").score == 0.0
    assert KeywordCoverageMetric(compat="mastra-scorer").measure("the", "x").score == 1.0


def test_scale_and_signature() -> None:
    r = KeywordCoverageMetric(compat="mastra", scale=100).measure("fox dog", "fox")
    assert r.score == 50.0
    sig = KeywordCoverageMetric().signature
    assert "keyword_coverage" in sig and "match:lenient" in sig and "preset:default" in sig


def test_bad_options() -> None:
    with pytest.raises(ValueError, match="compat"):
        KeywordCoverageMetric(compat="ragas")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="normalizer"):
        KeywordCoverageMetric(compat="mastra", normalizer="default")
    with pytest.raises(ValueError, match="match"):
        KeywordCoverageMetric(match="loose")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="fuzzy"):
        KeywordCoverageMetric(fuzzy="yes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="extra_penalty"):
        KeywordCoverageMetric(extra_penalty=1.5)
    with pytest.raises(TypeError, match="near_credit"):
        KeywordCoverageMetric(near_credit="high")  # type: ignore[arg-type]


def test_keywords_the_question_names_weigh_less() -> None:
    m = KeywordCoverageMetric()
    q = "Which river flows through Baghdad?"
    plain = m.measure("Tigris River", "the Euphrates River")
    asked = m.measure("Tigris River", "the Euphrates River", question=q)
    assert asked.score < plain.score / 2  # "river" only echoes the question
    assert asked.info["echoed"] == ["river"]
    assert asked.info["weights"]["river"] == pytest.approx(0.25 * plain.info["weights"]["river"])
    assert "echoed" not in plain.info
    right = m.measure("Tigris River", "the Tigris", question=q)
    assert right.score > m.measure("Tigris River", "the Tigris").score
    assert right.passed is None and right.signature == m.signature
    # every reference keyword in the question: the weights keep their ratios
    assert (
        m.measure("Paris", "Paris", question="Is it Paris?").score
        == m.measure("Paris", "Paris").score
    )
    # a question without the reference's keywords, question_weight 1, other modes: no change
    for metric, question in (
        (m, "Where does it flow?"),
        (KeywordCoverageMetric(question_weight=1.0), q),
        (KeywordCoverageMetric(compat="mastra"), q),
        (KeywordCoverageMetric(match="exact"), q),
        (KeywordCoverageMetric(keywords=["river"]), q),
    ):
        with_q = metric.measure("Tigris River", "the Euphrates River", question=question)
        assert with_q == metric.measure("Tigris River", "the Euphrates River"), metric
    assert "question:0.25" in m.signature
    assert "question:1" in KeywordCoverageMetric(question_weight=1.0).signature
    assert KeywordCoverageMetric(question_weight=0.5).recommended_threshold is None


def test_measure_many_with_questions_equals_measure() -> None:
    m = KeywordCoverageMetric(threshold=0.4)
    refs: list[str | list[str]] = ["Tigris River", ["Mount Everest", "Everest"], "1969", "x"]
    outs = ["the Euphrates River", "Mount Fuji", "in 1969", "y"]
    qs = ["Which river flows through Baghdad?", "Which mount is highest?", None, "x?"]
    expected = [m.measure(r, o, question=q) for r, o, q in zip(refs, outs, qs, strict=True)]
    assert m.measure_many(refs, outs, questions=qs) == expected
    assert m.measure_many(refs, outs, questions=qs, progress=True) == expected
    assert expected[1].info["echoed"] == ["mount"]
    assert expected[2] == m.measure("1969", "in 1969")
    with pytest.raises(ValueError, match="4 inputs, 4 outputs and 3 questions"):
        m.measure_many(refs, outs, questions=qs[:3])
    with pytest.raises(TypeError, match="sequences"):
        m.measure_many(refs, outs, questions="q")
    with pytest.raises(TypeError, match="question must be a str"):
        m.measure("a", "b", question=3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="question_weight"):
        KeywordCoverageMetric(question_weight=2.0)


# ---- task profiles ------------------------------------------------------------------------
SUMMARY_REF = (
    "The city council approved a new budget on Tuesday that raises spending on schools, "
    "parks and public transport while cutting the police overtime budget by ten percent."
)
SUMMARY_OUT = (
    "On Tuesday the council passed a budget raising money for schools and parks and "
    "transport, and it cuts police overtime."
)


def test_each_task_is_a_named_profile_in_the_signature_and_the_info() -> None:
    from dataclasses import FrozenInstanceError

    from lexeval.metrics.keyword_tasks import PROFILES, TASKS

    assert (
        set(PROFILES)
        == set(TASKS)
        == {
            "short_answer",
            "summary",
            "source_support",
            "long_answer",
            "prompt",
        }
    )
    with pytest.raises(FrozenInstanceError):
        PROFILES["summary"].extra_penalty = 0.5  # type: ignore[misc]
    signatures = set()
    for task in TASKS:
        m = KeywordCoverageMetric(task=task)  # type: ignore[arg-type]
        assert f"task:{task}" in m.signature and m.profile == PROFILES[task]
        r = m.measure(SUMMARY_REF, SUMMARY_OUT)
        assert r.info["task"] == task and r.signature == m.signature
        signatures.add(m.signature)
    assert len(signatures) == len(TASKS)
    assert "task:auto" in KeywordCoverageMetric().signature
    assert KeywordCoverageMetric(task="auto").signature == KeywordCoverageMetric().signature


def test_explicit_knobs_override_the_task_profile() -> None:
    summary = KeywordCoverageMetric(task="summary")
    assert summary.profile is not None and summary.profile.weighting == "uniform"
    m = KeywordCoverageMetric(task="summary", weighting="frequency", extra_penalty=0.2)
    assert m.profile is not None
    assert (m.profile.weighting, m.profile.extra_penalty) == ("frequency", 0.2)
    assert m.profile.conflict_penalty == summary.profile.conflict_penalty
    assert "weights:wordfreq" in m.signature and "extra:0.2" in m.signature
    assert (
        m.measure(SUMMARY_REF, SUMMARY_OUT).score != summary.measure(SUMMARY_REF, SUMMARY_OUT).score
    )
    with pytest.raises(ValueError, match="task must be"):
        KeywordCoverageMetric(task="essay")  # type: ignore[arg-type]


def test_without_a_task_the_family_is_chosen_by_the_documented_rule() -> None:
    from lexeval.metrics.keyword_tasks import SOURCE_MIN_OUTPUT, SOURCE_RATIO

    m = KeywordCoverageMetric()
    assert m.measure("Paris", "It is Paris, the capital.").info["task"] == "short_answer"
    # one short alternative makes the gold a short answer
    assert m.measure(["Paris", SUMMARY_REF], "Paris").info["task"] == "short_answer"
    assert m.measure(SUMMARY_REF, SUMMARY_OUT).info["task"] == "summary"
    asked = m.measure(SUMMARY_REF, SUMMARY_OUT, question="What did the council decide?")
    assert asked.info["task"] == "long_answer"
    source = " ".join(
        [SUMMARY_REF] + [f"Paragraph {i} about other city matters." for i in range(40)]
    )
    r = m.measure(SUMMARY_OUT, source)
    assert r.info["task"] == "source_support"
    assert len(r.info["output_keywords"]) >= SOURCE_RATIO * r.info["total_keywords"]
    # a one-sentence summary (at most 8 keywords) against its article is source support too
    article = " ".join(
        [SUMMARY_REF] + [f"Paragraph {i} about other city matters." for i in range(80)]
    )
    short_summary = "The council approved a new bus lane."
    r = m.measure(short_summary, article)
    assert r.info["task"] == "source_support"
    assert len(r.info["output_keywords"]) >= SOURCE_MIN_OUTPUT
    assert m.measure(short_summary, source).info["task"] == "short_answer"  # under 60 keywords
    # ... but a gold answer of one or two keywords against a long answer stays a short answer
    assert m.measure("Paris", article).info["task"] == "short_answer"
    # the same scores as the chosen profile, whichever way it is reached
    for task, (ref, out) in {
        "summary": (SUMMARY_REF, SUMMARY_OUT),
        "source_support": (SUMMARY_OUT, source),
    }.items():
        assert m.measure(ref, out).score == KeywordCoverageMetric(task=task).measure(ref, out).score  # type: ignore[arg-type]
    # the user's task always wins
    assert (
        KeywordCoverageMetric(task="short_answer").measure(SUMMARY_REF, SUMMARY_OUT).info["task"]
        == "short_answer"
    )


def test_exact_matching_and_compat_refuse_the_lenient_knobs() -> None:
    for options in (
        {"weighting": "uniform"},
        {"extra_penalty": 0.1},
        {"near_credit": 0.0},
        {"conflict_penalty": 0.0},
        {"question_weight": 1.0},
        {"task": "summary"},
    ):
        with pytest.raises(ValueError, match="match='exact' counts every keyword once"):
            KeywordCoverageMetric(match="exact", **options)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="compat='mastra' counts every keyword once"):
            KeywordCoverageMetric(compat="mastra", **options)  # type: ignore[arg-type]
    exact = KeywordCoverageMetric(match="exact")
    assert "weights:none,penalties:none" in exact.signature and "task" not in exact.signature
    assert "task" not in exact.measure("Paris", "Paris").info


def test_info_keys_are_snake_case_but_in_the_mastra_modes() -> None:
    for metric in (KeywordCoverageMetric(), KeywordCoverageMetric(match="exact")):
        info = metric.measure("Battle of Hastings", "the Battle of Waterloo").info
        assert {"matched_keywords", "total_keywords"} <= set(info)
        assert not [k for k in info if k != k.lower()]
    for compat in ("mastra", "mastra-scorer"):
        info = KeywordCoverageMetric(compat=compat).measure("quick fox", "fox").info  # type: ignore[arg-type]
        assert (info["matchedKeywords"], info["totalKeywords"]) == (1, 2)
        assert "matched_keywords" not in info


def test_same_results_whatever_the_order_and_the_state_of_the_caches() -> None:
    """Unseen pairs in one order, then in the other with every word cache emptied first and
    midway (chunks, tokens, canonical keys, weights): the same score and info for each."""
    from lexeval.metrics import weights
    from lexeval.normalize import Normalizer
    from lexeval.text import lenient

    path = SHARED / "data" / "qa_human" / "evouna" / "NQ.json"
    if not path.exists():
        pytest.skip("../shared is absent: keyword coverage on real pairs not run")
    rows = json.loads(path.read_text(encoding="utf-8"))[:120]
    pairs = [
        ([g.strip() for g in row["golden_answer"].split("/") if g.strip()], row["answer_chatgpt"])
        for row in rows
        if row["golden_answer"].strip() and isinstance(row.get("answer_chatgpt"), str)
    ]
    pairs += [
        (["U.S. (1990)."], "the U.S., in 1990—twenty-four (24) km/h"),
        (["Röntgen"], "RÖNTGEN"),
    ]

    def score(metric: KeywordCoverageMetric, refs: list[str], out: str) -> object:
        result = metric.measure(refs, out)
        return result.score, result.info

    first = KeywordCoverageMetric(normalizer=Normalizer())
    forward = [score(first, refs, out) for refs, out in pairs]

    def clear(metric: KeywordCoverageMetric) -> None:
        processor = metric.normalizer.processor  # type: ignore[union-attr]
        processor._clear_chunks()
        processor._token_memo.clear()
        lenient.clear_caches()
        weights.clear_caches()

    second = KeywordCoverageMetric(normalizer=Normalizer())
    clear(second)
    backward = []
    for i, (refs, out) in enumerate(reversed(pairs)):
        if i == len(pairs) // 2:
            clear(second)
        backward.append(score(second, refs, out))
    assert backward[::-1] == forward


# ---- the lenient normalization's fast paths against the plain formulations --------------------
_TEXT = st.text(
    st.sampled_from(
        list("abcXYZ019 _-.,;/'\"é")
        + list("\u2010\u2013\u2014\u2212\u2018\u2019\u201c\u201d\u2026")
        + ["\u0301", "ß", "Ö", "\u00c3", "\u00a9", "\u2122", "ｆ", "ǅ"]
    ),
    max_size=40,
)
#: The combining marks that accent folding removes (the plain formulation's pattern).
_DIACRITICS = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")


@settings(max_examples=300, deadline=None)
@given(text=_TEXT)
def test_lenient_text_fast_paths_equal_their_plain_forms(text: str) -> None:
    """Dashes by replacement, folding and mojibake repair with their ASCII and punctuation
    shortcuts, and the number-word test by a bytes split: each equals the plain formulation."""
    import ftfy

    from lexeval.metrics.keyword_lenient import _has_number_word
    from lexeval.text import lenient

    assert lenient.hyphenate_dashes(text) == text.translate(lenient.DASHES)
    folded = text.casefold()
    plain = _DIACRITICS.sub("", unicodedata.normalize("NFKD", folded))
    assert lenient.fold_accents(text) == (folded if folded.isascii() else plain)
    repaired = ftfy.fix_encoding(text) if lenient._MOJIBAKE_HINT.search(text) else text
    assert lenient.repair_mojibake(text) == repaired
    words = re.split(r"\W+", lenient.fold_accents(text))
    assert _has_number_word(lenient.fold_accents(text)) == any(
        w in lenient.NUMBER_WORDS_EN for w in words
    )


@settings(max_examples=300, deadline=None)
@given(
    keys=st.lists(
        st.sampled_from(["twenty", "four", "two", "thousand", "one", "first", "6", "cats", "the"]),
        max_size=8,
    )
)
def test_number_words_merge_like_the_left_to_right_rule(keys: list[str]) -> None:
    """Merging scans the number words only: the same keys as the rule applied left to right
    (a number word and the next key as one key when they make a number)."""
    from lexeval.text.lenient import merge_number_words, number_phrase

    expected: list[str] = []
    i = 0
    while i < len(keys):
        if i + 1 < len(keys) and number_phrase(keys[i : i + 2]) is not None:
            expected.append(f"{keys[i]} {keys[i + 1]}")
            i += 2
        else:
            expected.append(keys[i])
            i += 1
    assert list(merge_number_words(keys, english=True)) == expected
    assert list(merge_number_words(keys, english=False)) == keys


def test_canonical_numbers_lose_only_their_leading_zeros() -> None:
    """A plain number's canonical key (no pattern tried) is the number without leading zeros,
    as the thousands and zeros patterns make it."""
    from lexeval.text import lenient

    lenient.clear_caches()
    zeros = re.compile(r"(?<!\d)0+(?=\d)")
    numbers = [str(i) for i in range(3000)] + ["0" * z + str(i) for z in (1, 3) for i in range(50)]
    for english in (True, False):
        assert lenient.canonical_keys(numbers, english) == tuple(zeros.sub("", n) for n in numbers)
