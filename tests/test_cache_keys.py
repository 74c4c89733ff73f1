"""Take cache keys are derived field by field: a new field is part of the key by default."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from drama_cli.takes.jobs import (
    JOB_NOT_IN_KEY,
    SETTINGS_NOT_IN_KEY,
    LineJob,
    RenderSettings,
    cache_key,
)
from drama_cli.takes.keys import (
    CONVERSATION_NOT_IN_KEY,
    ReferenceHasher,
    conversation_identity,
)
from engine.clip import AudioClip
from engine.conversation import Conversation, Exchange, Reference

ENGINE = {"engine": "drama3", "revision": "abc"}
SETTINGS = RenderSettings(mode="history", seed=7, sampling={"temperature": 0.7, "top_p": 0.9})
REFERENCES = (
    Reference(
        0,
        "<|speaker:0|> Hello there.",
        AudioClip(codes=np.arange(20, dtype=np.int64).reshape(10, 2)),
    ),
    Reference(11, None, AudioClip(path="/nonexistent/ref.wav", duration_s=2.0)),
)


def chunk(conversation_type=Conversation, **extra) -> Conversation:
    return conversation_type(
        "history",
        references=REFERENCES,
        text="<|speaker:0|> We leave at six.",
        context=(Exchange("<|speaker:11|> Go.", AudioClip(path="/x.wav")),),
        meta={"line_id": "l2"},
        **extra,
    )


def job(
    group: bool = False, job_type=LineJob, conversation: Conversation | None = None, **extra
) -> LineJob:
    scene = Conversation(
        "scene",
        references=REFERENCES,
        lines=("<|speaker:0|> A.", "<|speaker:11|> B."),
        descriptions=((0, "tired"), (11, "stubborn")),
    )
    return job_type(
        "s1",
        "l2",
        "MARGOT",
        "<|speaker:0|> We leave at six.",
        [conversation or chunk()],
        "v-test",
        {0: "MARGOT", 11: "DESMOND", 2: "ANN"},
        note="softer",
        pause_after_s=0.5,
        display_text="We leave at six.",
        group=1 if group else None,
        group_conversation=scene if group else None,
        **extra,
    )


def key(line_job: LineJob, settings: RenderSettings = SETTINGS) -> str:
    return cache_key(line_job, ENGINE, settings, ReferenceHasher())


def test_keys_written_by_earlier_releases_still_match():
    # computed with the hand-listed key of the first release: existing takes stay valid
    assert key(job()) == "140adca1a91e3a07ebaddfb8e6708615a5f738bfe25fb8844868c67e4c2b21ee"
    assert (
        key(job(group=True)) == "365b7b67451bfa243e3e69eb6efbdf951cc2677675fc60ab5eb285bf16a18ef9"
    )


def test_a_new_conversation_field_is_part_of_the_key():
    Paced = dataclasses.make_dataclass(
        "Paced", [("pace", float, 1.0)], bases=(Conversation,), frozen=True
    )
    slow, fast = chunk(Paced, pace=1.0), chunk(Paced, pace=1.5)
    assert conversation_identity(slow, ReferenceHasher())["pace"] == 1.0
    assert key(job(conversation=slow)) != key(job(conversation=fast))


def test_a_new_job_or_settings_field_is_part_of_the_key():
    Breathy = dataclasses.make_dataclass("Breathy", [("breath", str, "none")], bases=(LineJob,))
    assert key(job(job_type=Breathy, breath="none")) != key(job(job_type=Breathy, breath="heavy"))
    Warm = dataclasses.make_dataclass("Warm", [("warmth", int, 0)], bases=(RenderSettings,))
    assert key(job(), Warm(mode="history", seed=7, warmth=0)) != key(
        job(), Warm(mode="history", seed=7, warmth=3)
    )


@pytest.mark.case("C4")
def test_fields_that_do_not_shape_audio_leave_the_key_alone():
    base = key(job())
    other_context = chunk()
    other_context = dataclasses.replace(other_context, context=(), meta={"line_id": "x"})
    assert key(job(conversation=other_context)) == base  # case C4: earlier takes are not in the key
    assert (
        key(dataclasses.replace(job(), pause_after_s=2.0, display_text="x", overlap=True)) == base
    )
    assert key(job(), dataclasses.replace(SETTINGS, takes=3, retries=0, mix=False)) == base
    assert key(job(), dataclasses.replace(SETTINGS, sampling={"temperature": 0.8})) != base
    assert key(dataclasses.replace(job(), speaker="DESMOND")) != base


def test_every_exclusion_names_a_real_field():
    def names(cls):
        return {f.name for f in dataclasses.fields(cls)}

    assert set(CONVERSATION_NOT_IN_KEY) <= names(Conversation)
    assert set(JOB_NOT_IN_KEY) <= names(LineJob)
    assert set(SETTINGS_NOT_IN_KEY) <= names(RenderSettings)
