from biasbench.methods.registry import REGISTRY
from biasbench.reports.cards import slug

#: the method cards' pages (results/cards/), one per registered method and their index
CARD_SLUGS = ["index", *(slug(m.name) for m in REGISTRY)]


rule method_cards:
    """One Markdown page per registered method: definition, inputs, conventions, what it agrees
    with, validity, cost and the pitfalls it avoids (results/cards/index.md links them).
    """
    input:
        league=paths.TABLE.format(table="synthesis_league"),
        agreement=paths.TABLE.format(table="synthesis_agreement"),
    output:
        [paths.METHOD_CARD.format(card=s) for s in CARD_SLUGS],
    log:
        "results/logs/method_cards.log",
    conda:
        ENV
    params:
        alpha=config["alpha"],
    script:
        "../workflow_scripts/method_cards.py"
