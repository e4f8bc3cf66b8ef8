"""Which model: specs and one-time preparation, loaders, embedding extraction to HDF5, and the
one log-probability engine (masked and causal LMs) every probability method uses."""
