"""Building blocks of the Drama 3 backbone and tower: RMSNorms, RoPE, Gated DeltaNet, gated
attention, block-FP8 mixture of experts. Each module is one layer kind, written from docs/internals/model.md §3."""
