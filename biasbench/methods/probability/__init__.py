"""Methods on a language model's probabilities: template fills and sampled contexts."""
