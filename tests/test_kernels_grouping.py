"""Grouping of (row, expert) pairs for the grouped prefill kernels (engine/kernels/fp8_grouped.py),
on plain torch tensors: each expert's pairs in order, padded to whole row blocks, and the row
blocks' experts."""

import torch

from engine.kernels.fp8_grouped import group_by_expert, row_block


def test_pairs_are_grouped_by_expert_and_padded_to_row_blocks():
    ids = torch.tensor([[1, 0], [1, 2], [0, 1]])  # pairs 0..5 = row * 2 + slot
    pairs, block_expert = group_by_expert(ids, num_experts=4, block_rows=2)
    # blocks: expert 0 {1, 4}; expert 1 {0, 2} {5, pad}; expert 2 {3, pad}; then 3 spare blocks
    assert pairs.tolist() == [1, 4, 0, 2, 5, -1, 3, -1, -1, -1, -1, -1, -1, -1]
    assert block_expert.tolist() == [0, 1, 1, 2, 4, 4, 4]


def test_every_pair_appears_once_in_a_block_of_its_expert():
    generator = torch.Generator().manual_seed(0)
    ids = torch.stack([torch.randperm(32, generator=generator)[:4] for _ in range(200)])
    pairs, block_expert = group_by_expert(ids, num_experts=32, block_rows=16)
    placed = pairs >= 0
    assert sorted(pairs[placed].tolist()) == list(range(800))
    expert_of_slot = block_expert.repeat_interleave(16)
    assert torch.equal(expert_of_slot[placed], ids.reshape(-1)[pairs[placed].long()])


def test_row_block_follows_the_mean_group():
    assert row_block(17 * 2, 8) == 16
    assert row_block(200 * 4, 32) == 32
    assert row_block(200 * 2, 8) == 64
    assert row_block(4096 * 8, 256) == 64
