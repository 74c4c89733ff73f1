"""Expert offload (engine/offload): a simulated device budget on the CPU gives the same codes as
full residency, alone and in a batch of streams of the decode loop, with real hit, miss and copy
counts; the memory plan and size parsing."""

from pathlib import Path

import numpy as np
import pytest
import torch

from engine.batch import EngineBatch
from engine.clip import AudioClip
from engine.conversation import Conversation, Reference
from engine.errors import EngineError
from engine.generate import Drama3
from engine.offload.cache import ExpertCache
from engine.offload.offload import OffloadSettings
from engine.offload.store import HostExpertStore
from engine.sampling import SamplingParams
from engine.testing.checkpoints import write_checkpoint

LINE = "<|speaker:0|> Hi there, how are you today?"
FRAMES = 24


def conversation() -> Conversation:
    rng = np.random.default_rng(1)
    codes = np.concatenate([rng.integers(0, 4096, (1, 12)), rng.integers(0, 1024, (9, 12))]).astype(
        np.int64
    )
    return Conversation(
        layout="clone",
        references=(Reference(0, "A short reference.", AudioClip(codes=codes)),),
        text=LINE,
    )


def preset_folder(factory, preset: str):
    path = factory.mktemp(preset)
    write_checkpoint(path, preset, seed=0, with_codec=False)
    return path


def full_take(path):
    model = Drama3.load(path, device="cpu")
    return model.generate(
        conversation(), SamplingParams(), seed=7, max_frames=FRAMES, ignore_eos=True
    ).codes


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return preset_folder(tmp_path_factory, "tiny")


@pytest.fixture(scope="module")
def reference(folder):
    return full_take(folder)


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    path = preset_folder(tmp_path_factory, "small")
    return path, full_take(path)


def take(folder, settings: OffloadSettings):
    model = Drama3.load(folder, device="cpu", offload=settings)
    codes = model.generate(
        conversation(), SamplingParams(), seed=7, max_frames=FRAMES, ignore_eos=True
    ).codes
    return model, codes


@pytest.mark.parametrize("share", [1.0, 0.5, 0.0])
@pytest.mark.parametrize("policy", ["lru", "lfu"])
def test_codes_under_a_budget_equal_full_residency(folder, reference, share, policy):
    check_budget(folder, reference, share, policy)


@pytest.mark.parametrize("policy", ["lru", "lfu"])
def test_small_preset_codes_at_a_quarter_of_the_experts(small, policy):
    check_budget(*small, 0.25, policy)


def check_budget(folder, reference, share: float, policy: str) -> None:
    config_experts, top_k = _experts(folder)
    slots = max(top_k, int(config_experts * share))
    model, codes = take(folder, OffloadSettings(slots, policy))
    assert torch.equal(codes, reference)
    counts = model.offload.counters()
    layers = len(model.offload.caches)
    assert model.offload.slots == slots
    assert (
        counts.misses == counts.copies
        and counts.bytes_copied == counts.copies * model.offload.store.expert_bytes
    )
    assert counts.hits + counts.misses > FRAMES * layers  # at least one lookup per layer and frame
    if slots == config_experts:
        assert counts.misses <= config_experts * layers and counts.evictions == 0
    else:
        assert counts.evictions > 0 and counts.misses > slots * layers


def test_with_all_experts_resident_nothing_is_copied_after_warm_up(folder, reference):
    experts, _ = _experts(folder)
    model, codes = take(folder, OffloadSettings(experts))
    model.offload.reset_counters()
    again = model.generate(
        conversation(), SamplingParams(), seed=7, max_frames=FRAMES, ignore_eos=True
    ).codes
    counts = model.offload.counters()
    assert torch.equal(again, reference) and torch.equal(codes, reference)
    assert (
        counts.misses == 0
        and counts.bytes_copied == 0
        and counts.hits > 0
        and counts.hit_rate == 1.0
    )


def test_prefetch_keeps_the_codes_and_counts_its_copies(folder, reference):
    experts, top_k = _experts(folder)
    model, codes = take(folder, OffloadSettings(max(top_k, experts // 2), "lru", prefetch=True))
    counts = model.offload.counters()
    assert torch.equal(codes, reference)
    assert counts.prefetches > 0 and 0 <= counts.prefetch_hits <= counts.prefetches
    assert counts.copies == counts.misses + counts.prefetches


def test_a_batch_of_streams_under_a_budget_decodes_the_resident_codes(folder):
    """Offload is a branch in the MoE layer inside the one decode loop: several streams in one
    step read their chosen experts through the cache and keep the resident model's codes."""
    seeds = (7, 8, 9)

    def batched(model):
        batch = EngineBatch(model, len(seeds))
        tickets = {
            batch.submit(
                model.request(conversation(), SamplingParams(), seed, max_frames=8, ignore_eos=True)
            ): seed
            for seed in seeds
        }
        return {tickets[done.ticket]: done.generation.codes for done in batch.run()}

    experts, top_k = _experts(folder)
    offloaded = Drama3.load(folder, device="cpu", offload=OffloadSettings(max(top_k, experts // 4)))
    with pytest.raises(EngineError, match="graph"):
        offloaded.set_decode_mode("graph")
    resident = batched(Drama3.load(folder, device="cpu"))
    cached = batched(offloaded)
    assert all(torch.equal(cached[seed], resident[seed]) for seed in seeds)
    assert offloaded.offload.counters().misses > 0


def test_fewer_slots_than_experts_per_token_are_refused(folder):
    _, top_k = _experts(folder)
    with pytest.raises(ValueError, match=f"at least {top_k} slots"):
        Drama3.load(folder, device="cpu", offload=OffloadSettings(top_k - 1))


def _experts(folder) -> tuple[int, int]:
    from engine.config import Drama3Config

    text = Drama3Config.from_file(folder).text
    return text.num_experts, text.num_experts_per_tok


def _store(experts: int = 4) -> HostExpertStore:
    def expert(e):
        return {
            "gate_proj": torch.full((2, 2), e, dtype=torch.float8_e4m3fn),
            "gate_proj_scale": torch.ones(1, 1),
            "up_proj": torch.zeros(2, 2, dtype=torch.float8_e4m3fn),
            "up_proj_scale": torch.ones(1, 1),
            "down_proj": torch.zeros(2, 2, dtype=torch.float8_e4m3fn),
            "down_proj_scale": torch.ones(1, 1),
        }

    return HostExpertStore([[expert(e) for e in range(experts)]])


def _resident(cache: ExpertCache) -> set[int]:
    return {int(cache.pool.gate_proj[slot, 0, 0].float()) for slot in range(cache.slots)}


@pytest.mark.parametrize("policy, kept", [("lru", {2, 3}), ("lfu", {0, 3})])
def test_eviction_policies(policy, kept):
    cache = ExpertCache(
        _store(), 0, slots=2, top_k=1, block=(128, 128), device=torch.device("cpu"), policy=policy
    )
    for expert in (0, 0, 1, 2, 3):  # 0 is used most; 2 and 3 most recently
        pool, places = cache.fetch(torch.tensor([expert]))
        assert int(pool.gate_proj[places[0], 0, 0].float()) == expert
    resident = {e for e in range(4) if int(cache.table[e]) >= 0}
    assert resident == kept and resident <= _resident(cache) | {0}
    assert cache.counters.hits == 1 and cache.counters.misses == 4
    assert cache.counters.bytes_copied == 4 * cache.store.expert_bytes == 4 * (3 * 4 + 3 * 4)


def test_a_request_larger_than_the_cache_is_refused():
    cache = ExpertCache(_store(), 0, slots=2, top_k=1, block=(128, 128), device=torch.device("cpu"))
    with pytest.raises(ValueError, match="3 distinct experts"):
        cache.fetch(torch.tensor([0, 1, 2]))


@pytest.mark.skipif(
    not Path("/proc/self/maps").exists(), reason="needs Linux's /proc to see the mappings"
)
def test_host_store_reads_the_experts_in_place_from_the_mapped_shards(folder):
    from engine.checkpoint import Checkpoint

    store = HostExpertStore.from_checkpoint(Checkpoint(folder))
    pointer = store.expert(0, 1)["down_proj"].data_ptr()
    spans = [
        line.split()[0].split("-")
        for line in Path("/proc/self/maps").read_text().splitlines()
        if line.endswith(".safetensors")
    ]
    assert any(int(start, 16) <= pointer < int(end, 16) for start, end in spans)
    assert not store.pinned and store.total_bytes == store.expert_bytes * 8 * 4


def test_cpu_plans_only_with_a_budget(folder):
    from engine.config import Drama3Config
    from engine.offload.plan import offload_settings

    config, cpu = Drama3Config.from_file(folder), torch.device("cpu")
    assert offload_settings(config, folder, cpu, torch.float32, None) is None
    assert offload_settings(config, folder, cpu, torch.float32, "auto") is None
    settings = offload_settings(config, folder, cpu, torch.float32, 10**12)
    assert settings is None  # everything fits
