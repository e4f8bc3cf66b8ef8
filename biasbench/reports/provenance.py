"""The report's provenance page: the configuration, where each model's weights came from,
and each score's seed, settings and signature."""

from __future__ import annotations

from html import escape

import pandas as pd
import yaml

from biasbench.rows import KEY_COLUMNS

STYLE = (
    "<style>body{font-family:sans-serif;font-size:13px} table{border-collapse:collapse}"
    " td,th{border:1px solid #ccc;padding:2px 6px} pre{background:#f6f6f6;padding:8px}</style>"
)


def provenance_page(scores: pd.DataFrame, models: list[dict], config: dict) -> str:
    """One HTML page: the configuration as run, each model's source and version, and per
    score row the seed of its random stream, the settings it was computed with and the
    signature of its inputs and settings."""
    model_table = pd.DataFrame(models)[
        [
            c
            for c in ("name", "kind", "source", "revision", "package_version", "weights")
            if c in pd.DataFrame(models)
        ]
    ]
    rows = scores[[*KEY_COLUMNS, "paper", "seed", "settings", "signature"]]
    return (
        "<!doctype html><meta charset='utf-8'><title>Provenance</title>"
        + STYLE
        + "<h2>Configuration</h2><pre>"
        + escape(yaml.safe_dump(config, sort_keys=False, allow_unicode=True))
        + "</pre><h2>Models</h2>"
        + model_table.to_html(index=False, na_rep="", border=0)
        + f"<h2>Scores ({len(rows)} rows): seed, settings and signature</h2>"
        + rows.to_html(index=False, na_rep="", border=0)
        + "\n"
    )
