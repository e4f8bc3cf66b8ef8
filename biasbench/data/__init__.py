"""What the measures are run on: word sets, templates, pinned external files, corpora, and the
contexts sampled from them."""
