import numpy as np
import pytest
import torch
from transformers import AutoModelForCausalLM, AutoModelForMaskedLM, AutoTokenizer

from biasbench.data.templates import split_double_template
from biasbench.errors import InputError
from biasbench.methods.probability.lpbs import bias_scores, lpbs_test
from biasbench.models.logprobs import Engine
from biasbench.models.logprobs.causal import (
    causal_context_log_probs,
    causal_ids,
    causal_log_probs,
    continuation_log_probs,
    sentence_log_probs,
    sentence_pair_log_probs,
    shared_prefix_log_probs,
)
from biasbench.models.logprobs.common import check_output_head
from biasbench.models.logprobs.masked import mlm_context_log_probs, mlm_log_probs

from .tiny_models import tiny_bert, tiny_gpt2


def causal_lm(tmp_path):
    """A tiny random GPT-2 with its LM head, and its tokenizer (code-path checks only)."""
    path = tiny_gpt2(tmp_path, lm_head=True)
    return AutoModelForCausalLM.from_pretrained(path).eval(), AutoTokenizer.from_pretrained(path)


def test_bias_score_hand_computed():
    pt = np.log([[0.2, 0.1, 0.3]])
    pp = np.log([[0.1, 0.1, 0.1]])
    # log((.2+.1)/(.1+.1)) - log(.3/.1) = log(1.5) - log(3) = log(.5)
    np.testing.assert_allclose(bias_scores(pt, pp, n_x=2), [np.log(0.5)])


def test_log_space_survives_underflow():
    pt = np.array([[-800.0, -801.0, -805.0]])
    pp = np.array([[-790.0, -790.0, -790.0]])
    with np.errstate(divide="ignore", invalid="ignore"):
        naive = np.log(np.exp(pt[:, :2]).sum(1) / np.exp(pp[:, :2]).sum(1)) - np.log(
            np.exp(pt[:, 2:]).sum(1) / np.exp(pp[:, 2:]).sum(1)
        )
    assert np.isnan(naive).all()  # 0/0: the failure the paper reports for rare words
    got = bias_scores(pt, pp, n_x=2)
    # shift every log-probability by +790 by hand: log((e^-10 + e^-11) / 2) - log(e^-15 / 1)
    expected = (np.log(np.exp(-10) + np.exp(-11)) - np.log(2)) - (-15)
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, [expected])


def test_two_sided_permutation_hand_computed():
    # mean differences over the 6 splits of (2, 1 | 0, -1): 2, 1, 0, 0, -1, -2; |.| >= 2 twice
    res = lpbs_test(
        np.array([2.0, 1.0]), np.array([0.0, -1.0]), exact_max=100, n_samples=100, seed=0
    )
    assert res.p_value == pytest.approx(2 / 6) and res.exact
    assert res.effect_size == pytest.approx(2 / np.std([2, 1, 0, -1], ddof=1))
    flipped = lpbs_test(
        np.array([0.0, -1.0]), np.array([2.0, 1.0]), exact_max=100, n_samples=100, seed=0
    )
    assert flipped.p_value == res.p_value and flipped.effect_size == -res.effect_size


def test_templates():
    assert split_double_template("TTT likes AAA.", "TTT", "AAA") == ("", " likes ", ".")
    with pytest.raises(InputError, match="must precede"):
        split_double_template("AAA is TTT.", "TTT", "AAA")


def test_mlm_code_path_on_a_tiny_random_bert(tmp_path):
    path = tiny_bert(tmp_path, extra_words=("likes", "flowers", "insects"), mlm_head=True)
    model, tok = (
        AutoModelForMaskedLM.from_pretrained(path).eval(),
        AutoTokenizer.from_pretrained(path),
    )
    template = split_double_template("TTT likes AAA.", "TTT", "AAA")
    pt, pp = mlm_log_probs(
        model, tok, template, ["john", "anastasia", "amy"], ["flowers", "insects"]
    )
    assert pt.shape == pp.shape == (2, 3)
    assert np.all(pt < 0) and np.all(np.isfinite(pp))
    # the multi-token target sums one log-probability per subword: far below a single token's
    assert pt[:, 1].max() < pt[:, 0].min()
    enc = tok("[MASK] likes flowers.", return_tensors="pt")
    with torch.inference_mode():
        logp = torch.log_softmax(model(**enc).logits, -1)[0, 1, tok.convert_tokens_to_ids("john")]
    assert pt[0, 0] == pytest.approx(float(logp), abs=1e-5)


def test_causal_code_path_on_a_tiny_random_gpt2(tmp_path):
    model, tok = causal_lm(tmp_path)
    sentences = ["Paul is kind.", "Joan is a person that is here."]
    batched = sentence_log_probs(model, tok, sentences)
    single = [sentence_log_probs(model, tok, [s])[0] for s in sentences]
    np.testing.assert_allclose(batched, single, atol=1e-4)  # right padding is masked out
    template = split_double_template("TTT is AAA.", "TTT", "AAA")
    pt, pp = causal_log_probs(model, tok, template, ["Paul", "Joan"], ["kind", "mean", "here"])
    assert pt.shape == (3, 2) and np.all(
        pt < pp
    )  # the full sentence is less likely than its prefix


def test_causal_continuations_match_whole_sentences_under_left_padding(tmp_path):
    """log P(prefix) + log P(continuation | prefix) = log P(sentence), batched with rows of
    different lengths (left padding, position ids from the mask, trimmed LM head)."""
    model, tok = causal_lm(tmp_path)
    prefixes = ["Paul is", "Joan is a person that"]
    continuations = [" kind.", " is here and there."]
    cont = continuation_log_probs(model, tok, prefixes, continuations)
    whole = sentence_log_probs(
        model, tok, [p + c for p, c in zip(prefixes, continuations, strict=True)]
    )
    head = sentence_log_probs(model, tok, prefixes)
    np.testing.assert_allclose(head + cont, whole, atol=1e-4)
    alone = [
        continuation_log_probs(model, tok, [p], [c])[0]
        for p, c in zip(prefixes, continuations, strict=True)
    ]
    np.testing.assert_allclose(cont, alone, atol=1e-4)


def test_mlm_context_probes_mask_by_character_span(tmp_path):
    path = tiny_bert(tmp_path, extra_words=("likes", "flowers"), mlm_head=True)
    model, tok = (
        AutoModelForMaskedLM.from_pretrained(path).eval(),
        AutoTokenizer.from_pretrained(path),
    )
    text = "john likes flowers ."
    pt, pp = mlm_context_log_probs(model, tok, [text, text], [(0, 4)] * 2, [(11, 18)] * 2)
    john = tok.convert_tokens_to_ids("john")
    for masked, got in (("[MASK] likes flowers .", pt[0]), ("[MASK] likes [MASK] .", pp[0])):
        enc = tok(masked, return_tensors="pt")
        with torch.inference_mode():
            expected = torch.log_softmax(model(**enc).logits, -1)[0, 1, john]
        assert got == pytest.approx(float(expected), abs=1e-5)
    assert pt[0] == pytest.approx(pt[1])  # batched rows agree


def test_context_log_probs_in_batches_equal_each_context_alone(tmp_path):
    """The contexts run shortest first in batches: each keeps its own numbers, in its place,
    as when scored alone (contexts of very different lengths, batches of two)."""
    path = tiny_bert(tmp_path, mlm_head=True)
    model = AutoModelForMaskedLM.from_pretrained(path).eval()
    tok = AutoTokenizer.from_pretrained(path)
    texts = [
        "john likes the flowers there and the person here .",
        "john is kind .",
        "the thing is that john likes a person .",
        "amy likes flowers .",
        "there amy is a person .",
    ]
    spans = [(t.index("john" if "john" in t else "amy"), 0) for t in texts]
    targets = [(a, a + (4 if t[a] == "j" else 3)) for t, (a, _) in zip(texts, spans, strict=True)]
    attributes = [
        (t.index(w), t.index(w) + len(w))
        for t, w in zip(texts, ["flowers", "kind", "person", "flowers", "person"], strict=True)
    ]
    pt, pp = mlm_context_log_probs(model, tok, texts, targets, attributes, batch=2)
    for i in range(len(texts)):
        alone = mlm_context_log_probs(model, tok, [texts[i]], [targets[i]], [attributes[i]])
        assert pt[i] == pytest.approx(alone[0][0], abs=1e-5)
        assert pp[i] == pytest.approx(alone[1][0], abs=1e-5)
    assert len(set(np.round(pt, 5))) == len(texts)  # distinct numbers: a swap would show


def test_shared_prefix_equals_separate_continuations(tmp_path):
    """The cached-prefix path gives the same log-probabilities as running every sentence."""
    model, tok = causal_lm(tmp_path)
    prefixes = ["Paul is", "Joan is a person that"]
    continuations = [" kind.", " a person that is here.", " mean", " here and there."]
    for rows in (2, 4, 8, 100):  # continuations split, one prefix per batch, two, all at once
        shared = shared_prefix_log_probs(model, tok, prefixes, continuations, rows)
        separate = continuation_log_probs(
            model, tok, [p for p in prefixes for _ in continuations], continuations * 2
        ).reshape(2, 4)
        np.testing.assert_allclose(shared, separate, atol=1e-4)


def test_sentence_pairs_equal_scoring_each_sentence_apart(tmp_path):
    """p-CEAT's shared-prefix path gives every sentence its sentence_log_probs: pairs that
    share some tokens, none, all of the shorter one, or all (one sentence a prefix of the
    other, both ways), in batches and rest chunks of any size."""
    model, tok = causal_lm(tmp_path)
    first = [
        "Paul is kind and here.",
        "Joan is a person that is here.",
        "It is.",
        "They are there.",
        "Amy is mean.",
        "Here is John.",
    ]
    second = [
        "Paul is and here.",
        "Joan is a person.",
        "It is. It is here and there.",
        "Here they are.",
        "Amy is mean.",
        "Here is",
    ]
    expected = sentence_log_probs(model, tok, first), sentence_log_probs(model, tok, second)
    for batch, rows in ((1, 1), (2, 1), (4, 2), (64, 16)):
        got = sentence_pair_log_probs(model, tok, first, second, batch, rows)
        np.testing.assert_allclose(got, expected, atol=1e-4)
    text = "Paul is kind and here."
    pt, pp = causal_context_log_probs(model, tok, [text], [(0, 4)], [(8, 12)])
    assert pt[0] == pytest.approx(expected[0][0], abs=1e-4)
    assert pp[0] == pytest.approx(expected[1][0], abs=1e-4)  # "Paul is and here."


def test_sentence_log_probs_against_the_models_own_logits(tmp_path):
    """The body + packed output head reproduce a plain forward pass: the sum over every token
    of the sentence, the first included, of log_softmax(logits)[token] given the tokens before
    it after the start token (GPT-2's BOS is its end-of-text token, as in the reference code),
    each sentence run alone, unpadded."""
    model, tok = causal_lm(tmp_path)
    sentences = ["Paul is kind.", "Joan is a person that is here.", "It is."]
    got = sentence_log_probs(model, tok, sentences, batch=2)
    engine = Engine(model, tok, False, batch=2)
    ids_of, tokens = engine.sentence_tokens(sentences)
    for sentence, value, ids, token_lp in zip(sentences, got, ids_of, tokens, strict=True):
        words = tok(sentence, add_special_tokens=False)["input_ids"]
        row = torch.tensor([[tok.convert_tokens_to_ids("<|endoftext|>"), *words]])
        with torch.inference_mode():
            logp = torch.log_softmax(model(input_ids=row).logits.double(), -1)[0]
        per_token = [float(logp[j, row[0, j + 1]]) for j in range(len(words))]
        assert value == pytest.approx(sum(per_token), abs=1e-4)
        assert ids == row[0].tolist() and len(token_lp) == len(words)  # the first one too
        np.testing.assert_allclose(token_lp, per_token, atol=1e-5)


def test_a_causal_lm_without_bos_or_end_of_text_token_is_refused(tmp_path):
    model, tok = causal_lm(tmp_path)
    tok.bos_token, tok.eos_token = None, None
    with pytest.raises(InputError, match="BOS or end-of-text"):
        sentence_log_probs(model, tok, ["Paul is kind."])


def test_without_a_bos_token_the_end_of_text_token_starts_the_sentence(tmp_path):
    model, tok = causal_lm(tmp_path)
    eos = tok.eos_token_id
    tok.bos_token = None
    assert causal_ids(tok, ["It is."])[0][0] == eos


def test_output_head_check_refuses_logits_it_cannot_reproduce(tmp_path):
    model, tok = causal_lm(tmp_path)
    check_output_head(model, tok)  # GPT-2: body + head = the model's logits
    model.config.final_logit_softcapping = 0.5  # GPT-2's forward never caps: a mismatch
    with pytest.raises(InputError, match="not supported"):
        check_output_head(model, tok)


def tiny_mlm(path):
    where = tiny_bert(path, mlm_head=True)
    return AutoModelForMaskedLM.from_pretrained(where).eval(), AutoTokenizer.from_pretrained(where)


def test_shared_positions_of_a_minimal_pair():
    from biasbench.models.logprobs.masked import shared_token_positions

    a = [101, 7, 8, 9, 10, 102]  # [CLS] the poor are ignorant [SEP]
    b = [101, 7, 11, 9, 10, 102]  # [CLS] the rich are ignorant [SEP]
    assert shared_token_positions(a, b) == ([1, 3, 4], [1, 3, 4])


def test_pseudo_log_likelihood_equals_masking_one_token_at_a_time(tmp_path):
    from biasbench.models.logprobs.masked import mlm_pseudo_log_likelihood

    model, tok = tiny_mlm(tmp_path)
    ids = tok(["this is a person .", "that is the thing ."])["input_ids"]
    positions = [[1, 2, 4], [2, 3]]
    got = mlm_pseudo_log_likelihood(model, tok, ids, positions, batch=2)
    for i, pos in enumerate(positions):
        total = 0.0
        for j in pos:
            masked = list(ids[i])
            masked[j] = tok.mask_token_id
            with torch.inference_mode():
                logits = model(input_ids=torch.tensor([masked])).logits
            total += float(torch.log_softmax(logits[0, j].double(), -1)[ids[i][j]])
        assert got[i] == pytest.approx(total, abs=1e-5)  # float32 logits, batched


def test_masked_slot_with_a_prior_mask_realigned_to_word_pieces(tmp_path):
    """A prior read at the person's slot with the profession masked as well, here one [MASK]
    per word piece of the profession (the variant mlm-pieces; "anastasia" is three pieces)."""
    from biasbench.models.logprobs.masked import mlm_masked_slot_log_probs

    model, tok = tiny_mlm(tmp_path)
    text = ("", "john", " is anastasia .")
    with_prior = mlm_masked_slot_log_probs(model, tok, [text], masked_too=[[(8, 17)]])
    plain = mlm_masked_slot_log_probs(model, tok, [text])
    enc = tok("[MASK] is [MASK] [MASK] [MASK] .", return_tensors="pt")
    with torch.inference_mode():
        logits = model(**enc).logits
    expected = float(
        torch.log_softmax(logits[0, 1].double(), -1)[tok.convert_tokens_to_ids("john")]
    )
    assert with_prior[0] == pytest.approx(expected, abs=1e-6)
    assert plain[0] != pytest.approx(expected, abs=1e-6)  # the profession in view changes it


def test_p_word_is_the_papers_p_value_its_items_are_the_attribute_words():
    from biasbench.methods.contract import Settings, TemplateLogProbs
    from biasbench.methods.probability.lpbs import LPBS

    gen = np.random.default_rng(0)
    inputs = TemplateLogProbs(gen.normal(size=(3, 4, 2)), gen.normal(size=(3, 4, 2)), 1, 2)
    res = LPBS(inputs, Settings(), 0)
    assert res.p_word == res.p_value


def test_p_word_is_calibrated_where_templates_share_their_attribute_word():
    """A null with strongly correlated templates within each attribute word: log p_t of the
    X target is the word's own u_a (drawn alike for A and B) plus a little template noise.
    LPBS averages a word's templates into one bias score and permutes words, so its p (= p_word)
    rejects at 5%; a test that took every (template, attribute) pair as an item would not."""
    from scipy.stats import binom

    from biasbench.methods.contract import Settings, TemplateLogProbs
    from biasbench.methods.probability.lpbs import LPBS
    from biasbench.stats import permutation_test_mean_difference

    draws, gen, n_t, n_attr = 300, np.random.default_rng(5), 8, 10
    p_word, per_template = [], []
    for draw in range(draws):
        u = gen.normal(size=n_attr)
        log_pt = 0.1 * gen.normal(size=(n_t, n_attr, 2))
        log_pt[:, :, 0] += u
        log_pp = np.zeros_like(log_pt)
        res = LPBS(TemplateLogProbs(log_pt, log_pp, 1, 5), Settings(), draw)
        p_word.append(res.p_word)
        bs = np.stack([bias_scores(pt, pp, 1) for pt, pp in zip(log_pt, log_pp, strict=True)])
        items = np.concatenate([bs[:, :5].ravel(), bs[:, 5:].ravel()])  # (template, word) items
        p = permutation_test_mean_difference(
            items, 5 * n_t, exact_max=0, n_samples=2000, seed=draw, alternative="two-sided"
        )
        per_template.append(p.p_value)
    low, high = binom.interval(0.95, draws, 0.05)
    assert low <= np.sum(np.array(p_word) < 0.05) <= high
    assert np.mean(np.array(per_template) < 0.05) > 0.5


@pytest.mark.parametrize("kind", ["masked", "causal"])
def test_a_template_or_context_longer_than_the_context_is_refused(tmp_path, kind):
    """The tiny models read 64 positions. A longer template or corpus context ended in
    "IndexError: index out of range in self" (GPT-2) or a tensor-size RuntimeError (BERT);
    it is refused naming its length and the context, and the job names its input and model
    (:func:`naming_too_long`). A masked LM's corpus context is cut to the context as to its
    tokenizer's length: a stimulus past the cut is the error."""
    from biasbench.errors import TooLong
    from biasbench.models.logprobs.common import naming_too_long

    if kind == "masked":
        path = tiny_bert(tmp_path, extra_words=("likes", "flowers", "and"), mlm_head=True)
        model, tok = (
            AutoModelForMaskedLM.from_pretrained(path).eval(),
            AutoTokenizer.from_pretrained(path),
        )
        templates, contexts = mlm_log_probs, mlm_context_log_probs
    else:
        model, tok = causal_lm(tmp_path)
        templates, contexts = causal_log_probs, causal_context_log_probs
    long = "john is here and " * 20
    template = split_double_template(long + "TTT likes AAA.", "TTT", "AAA")
    too_long = r"a text of \d+ tokens, longer than the model's context of 64"
    with pytest.raises(TooLong, match=too_long):
        templates(model, tok, template, ["john"], ["flowers"])
    text = long + "john likes flowers ."
    spans = [(len(long), len(long) + 4)], [(len(long) + 11, len(long) + 18)]
    with pytest.raises(TooLong if kind == "causal" else InputError) as error:
        contexts(model, tok, [text], *spans)
    if kind == "masked":
        assert "a stimulus lost to truncation (the text is cut to 64 tokens" in str(error.value)
    where = "LPBS templates t.txt on tiny"
    with pytest.raises(InputError) as error, naming_too_long(where, "Fix."):
        templates(model, tok, template, ["john"], ["flowers"])
    assert str(error.value).startswith(f"{where}: a text of ")
    assert str(error.value).endswith("; the model cannot read it. Fix.")
    # a text within the context is scored as before
    short = contexts(model, tok, ["john likes flowers ."], [(0, 4)], [(11, 18)])
    assert np.isfinite(short[0]).all()
