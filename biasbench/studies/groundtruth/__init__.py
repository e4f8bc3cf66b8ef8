"""The ground-truth study of Schröder et al. (section 5): masked LMs fine-tuned on text whose
gender bias per occupation is set by us, then measured by every word- and set-level score.

For a distribution (mu, sigma, alignment a), each model draws a male probability per occupation,
p = mu + a * (its centred stereotype score) + sigma * N(0, 1), clipped to [0, 1] (a = 0 is the
paper's p ~ N(mu, sigma); every model its own draw), then the pronoun of every (occupation,
training template) sentence from it and a random 70/30 split; the model learns the pronoun slot
only.
Training bias = the share of male pronouns among an occupation's training sentences; unmasking
bias = the mean over the test templates of P(male) / (P(male) + P(female)) at the slot. A model
counts when R² (squared Pearson r) between the two exceeds 0.7.

Making one model cheap (the paper fine-tunes all of BERT, ~45 min per model on this machine):
every model sees the same masked inputs, so everything below the top layer is computed once
(``FrozenStates``); a model trains the top layer and the head's transform, and the top layer
runs its queries only at the slot (its keys and values at every position), with the head's
output restricted to the four pronouns. Word vectors are the word alone ("[CLS] w [SEP]"),
the mean over its word pieces of the fine-tuned top layer.

Its modules: ``data`` (the sentences, word lists and drawn labels), ``states`` (the frozen
lower layers, computed and saved once), ``surgery`` (the top layer at a few positions, the
pronoun head, a study model put back into the masked LM), ``models`` (fine-tuning and
measuring the grid of models) and ``statistics`` (what the paper reports from their records).
"""
