"""Runs the registered methods on what the models extracted and returns score rows
(``biasbench.rows``): every method of a family, every encoding and variant it declares."""
