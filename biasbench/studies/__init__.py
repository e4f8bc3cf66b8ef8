"""Multi-step experiments that are not single scores (ground-truth fine-tuning, template
sensitivity, census validity)."""
