"""Tiny randomly initialised models built in the tests: code-path checks, never results."""

from pathlib import Path

import torch
from tokenizers import (
    Tokenizer,
    decoders,
    models,
    normalizers,
    pre_tokenizers,
    processors,
    trainers,
)
from transformers import (
    BertConfig,
    BertForMaskedLM,
    BertModel,
    GPT2Config,
    GPT2LMHeadModel,
    GPT2Model,
    PreTrainedTokenizerFast,
)

WORDS = ["this", "is", "that", "there", "here", "a", "an", "the", "person", "thing", "it"]
WORDS += ["are", "they", "john", "paul", "amy", "joan", "kind", "mean"]
CORPUS = [
    "This is John.",
    "That is Amy.",
    "There is a person.",
    "Here is the thing.",
    "It is kind.",
    "Joan is mean.",
    "Paul is here.",
    "They are there.",
    "Anastasia is a person.",
] * 20


def tiny_tokenizer(path: Path) -> Path:
    """A word-level tokenizer.json of WORDS in ``path``: a directory faked for planning (empty
    weights) still needs a tokenizer that loads."""
    vocab = {t: i for i, t in enumerate(["[UNK]", *WORDS])}
    Tokenizer(models.WordLevel(vocab, unk_token="[UNK]")).save(str(path / "tokenizer.json"))
    return path


def tiny_bert(
    path: Path,
    extra_words: tuple[str, ...] = (),
    mlm_head: bool = False,
    hidden_size: int = 16,
    intermediate_size: int = 32,
) -> Path:
    """A 2-layer BERT with a WordPiece vocabulary of WORDS (+ extra_words, lowercased)."""
    words = list(dict.fromkeys(WORDS + [w.lower() for w in extra_words]))
    special = [
        "[PAD]",
        "[UNK]",
        "[CLS]",
        "[SEP]",
        "[MASK]",
        ".",
        "'",
        "-",
        "##s",
        "ana",
        "##sta",
        "##sia",
    ]
    vocab = {t: i for i, t in enumerate(special + words)}
    tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])],
    )
    tok.decoder = decoders.WordPiece()
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
    )
    torch.manual_seed(0)
    model = (BertForMaskedLM if mlm_head else BertModel)(
        BertConfig(
            vocab_size=len(vocab),
            hidden_size=hidden_size,
            num_hidden_layers=2,
            num_attention_heads=2,
            intermediate_size=intermediate_size,
            max_position_embeddings=64,
        )
    )
    model.save_pretrained(path)
    fast.save_pretrained(path)
    return path


def tiny_gpt2(path: Path, lm_head: bool = False) -> Path:
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=True)
    tok.train_from_iterator(
        CORPUS,
        trainers.BpeTrainer(
            vocab_size=300,
            special_tokens=["<|endoftext|>"],
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        ),
    )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token="<|endoftext|>", bos_token="<|endoftext|>"
    )
    torch.manual_seed(0)
    model = (GPT2LMHeadModel if lm_head else GPT2Model)(
        GPT2Config(vocab_size=tok.get_vocab_size(), n_embd=16, n_layer=2, n_head=2, n_positions=64)
    )
    model.save_pretrained(path)
    fast.save_pretrained(path)
    return path
