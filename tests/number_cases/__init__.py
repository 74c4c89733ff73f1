"""Hand-made written -> said cases per class of number expression (`bench/numbers.py` scores them)."""
