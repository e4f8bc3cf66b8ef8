"""Methods on vectors: word encodings, sentence encodings or static word embeddings."""
