"""Write a version of a prepared language model with the gender direction of Bolukbasi et al.'s
definitional pairs removed from its token embeddings (biasbench.models.projection): the
"debiased" model of the paired-comparison example (docs/models.md).

    .venv/bin/python scripts/project_out_gender.py results/models/smollm2-135m \
        results/examples/smollm2-135m-projected

A pair word counts in each form the tokenizer keeps as one token ("he", "He", " he", " He"); the
direction, the forms used and the base's files are written to projection.json beside the
weights.
"""

import argparse
import json
from pathlib import Path

import numpy as np
import yaml

from biasbench.io import sha256_of, write_text
from biasbench.models.load import is_decoder_type
from biasbench.models.projection import pair_direction, project_out

PAIRS = Path(__file__).resolve().parents[1] / "resources/lists/gender_definitional_pairs.yaml"


def one_token_pairs(tokenizer, pairs):
    """(male id, female id, the forms) of every pair form both words of which are one token:
    each pair as written and capitalised, alone (a sentence's first word) and after a space."""
    forms = {}
    for male, female in pairs:
        for a, b in (
            (male, female),
            (male.capitalize(), female.capitalize()),
            (f" {male}", f" {female}"),
            (f" {male.capitalize()}", f" {female.capitalize()}"),
        ):
            forms[(a, b)] = None
    out = []
    for a, b in forms:
        ids_a = tokenizer(a, add_special_tokens=False)["input_ids"]
        ids_b = tokenizer(b, add_special_tokens=False)["input_ids"]
        if len(ids_a) == 1 and len(ids_b) == 1:
            out.append((ids_a[0], ids_b[0], (a, b)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", type=Path, help="a prepared model directory (results/models/...)")
    parser.add_argument("out", type=Path)
    parser.add_argument("--pairs", type=Path, default=PAIRS)
    args = parser.parse_args()
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForMaskedLM, AutoTokenizer

    config = AutoConfig.from_pretrained(args.base)
    loader = AutoModelForCausalLM if is_decoder_type(config.model_type) else AutoModelForMaskedLM
    model = loader.from_pretrained(args.base, dtype=torch.float32)
    tokenizer = AutoTokenizer.from_pretrained(args.base)
    pairs = yaml.safe_load(args.pairs.read_text(encoding="utf-8"))["pairs"]
    found = one_token_pairs(tokenizer, pairs)
    if not found:
        raise SystemExit(f"{args.pairs}: no pair whose words are one token each")
    weight = model.get_input_embeddings().weight
    matrix = weight.detach().cpu().numpy()
    direction = pair_direction(matrix, [(a, b) for a, b, _ in found])
    keep = sorted({i for a, b, _ in found for i in (a, b)})
    with torch.no_grad():
        weight.copy_(torch.from_numpy(project_out(matrix, direction, keep)))
    args.out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(args.out)
    tokenizer.save_pretrained(args.out)
    base_files = sorted(p for p in args.base.iterdir() if p.is_file())
    write_text(
        args.out / "projection.json",
        json.dumps(
            {
                "base": str(args.base),
                "base_sha256": {p.name: sha256_of(p) for p in base_files},
                "pairs": [list(forms) for _, _, forms in found],
                "direction_norm_check": float(np.linalg.norm(direction)),
                "tied_output_embeddings": bool(getattr(config, "tie_word_embeddings", False)),
            },
            indent=1,
        )
        + "\n",
    )
    print(f"{args.out}: {len(found)} pair forms, {len(matrix) - len(keep)} rows projected")


if __name__ == "__main__":
    main()
