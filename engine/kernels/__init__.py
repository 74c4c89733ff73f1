"""Triton kernels of the decode step (CUDA, or the Triton interpreter on CPU tensors)."""
