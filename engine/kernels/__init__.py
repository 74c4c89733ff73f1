"""Kernels of the decode step: Triton kernels (CUDA, or the Triton interpreter on CPU tensors)
and float32 products over weights packed for oneDNN on the CPU (`cpu_linear`)."""
