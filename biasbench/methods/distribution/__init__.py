"""Methods that compare a distribution over groups with a reference (DivDist)."""
