rule method_cards:
    """One Markdown page per registered method: definition, inputs, conventions, what it agrees
    with, validity, cost and the pitfalls it avoids (results/cards/index.md links them).
    """
    input:
        TABLES["synthesis_league"].inputs(PLAN),
    output:
        [f"results/cards/{s}.md" for s in CARD_SLUGS],
    log:
        "results/logs/method_cards.log",
    conda:
        ENV
    params:
        inputs_sha256=own_input_digests("method_cards"),
        settings=REPORT_SETTINGS,
    script:
        "../workflow_scripts/method_cards.py"
