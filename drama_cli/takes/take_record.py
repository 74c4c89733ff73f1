"""A take record (`take-NNN.json`) read once into typed, frozen fields.

`TakeRecord.from_json` reads a record whose shape `record_problem` accepted, old records
included: a field an earlier release did not write reads as the value it has always meant
(no `slot`: slot 0; no `checks`: passed, severity ok; no `normalize`: None, the rule of
`made_for_written_line`; no `voice` or `quality`: None, not measured). The record keeps the
JSON it was read from, so `to_json` writes back exactly that object, keys no field reads
(backend info, timings of the edit) included; the store adds its own fields and writes
records (`TakeStore.add_take`)."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from drama_cli.script.spoken import Word

JsonObject = dict[str, object]


@dataclass(frozen=True)
class TakeChecks:
    """The checks a take passed or failed: `passed`, `severity` (ok, degraded or unusable),
    the names that failed, and every check result as stored (`{name, passed, message, ...}`)."""

    passed: bool = True
    severity: str = "ok"
    failures: tuple[str, ...] = ()
    results: tuple[JsonObject, ...] = ()

    @classmethod
    def from_json(cls, data: JsonObject) -> TakeChecks:
        return cls(
            passed=bool(data.get("passed", True)),
            severity=str(data.get("severity", "ok")),
            failures=tuple(data.get("failures") or ()),
            results=tuple(data.get("checks") or ()),
        )


@dataclass(frozen=True)
class TakeAsr:
    """What speech recognition heard in a take: word error rate against the line (None when
    not measured), its threshold, the transcript and each word with its time in the take."""

    wer: float | None = None
    threshold: float | None = None
    transcript: str | None = None
    words: tuple[Word, ...] = ()

    @classmethod
    def from_json(cls, data: JsonObject) -> TakeAsr:
        return cls(
            wer=data.get("wer"),
            threshold=data.get("threshold"),
            transcript=data.get("transcript"),
            words=tuple(Word.from_dict(word) for word in data.get("words") or ()),
        )


@dataclass(frozen=True)
class TakeVoice:
    """How close a take's voice is to its character's reference clips (`drama_cli.qc.voice`):
    cosine similarity of speaker embeddings in [0, 1] (None when not measurable), the threshold
    it was held against, the encoder and the seconds of speech scored."""

    similarity: float | None = None
    threshold: float | None = None
    model: str | None = None
    voiced_s: float | None = None

    @classmethod
    def from_json(cls, data: JsonObject) -> TakeVoice:
        return cls(
            similarity=data.get("similarity"),
            threshold=data.get("threshold"),
            model=data.get("model"),
            voiced_s=data.get("voiced_s"),
        )


@dataclass(frozen=True)
class TakeQuality:
    """A take's predicted naturalness (`drama_cli.qc.quality`, DNSMOS): overall, signal,
    background and P.808 scores on 1 to 5 (None when not scored), the producer's floor (None:
    shown only) and the model."""

    ovrl: float | None = None
    sig: float | None = None
    bak: float | None = None
    p808: float | None = None
    floor: float | None = None
    model: str | None = None

    @classmethod
    def from_json(cls, data: JsonObject) -> TakeQuality:
        return cls(**{name: data.get(name) for name in cls.__dataclass_fields__})


@dataclass(frozen=True)
class TakeEdit:
    """The edit that made a take (`drama edit`): the line's text before and after, the span
    asked for and regenerated in seconds of the source take, the words it covered and said
    over it, the new audio's span in seconds, whether the whole line was voiced again and
    whether the splice was flagged (a long silence)."""

    old_text: str | None = None
    new_text: str | None = None
    span_s: tuple[float, ...] | None = None
    covered_words: tuple[str, ...] | None = None
    middle_text: str | None = None
    middle_s: tuple[float, ...] | None = None
    whole_line: bool | None = None
    flagged: bool | None = None

    @classmethod
    def from_json(cls, data: JsonObject) -> TakeEdit:
        return cls(
            old_text=data.get("old_text"),
            new_text=data.get("new_text"),
            span_s=_tuple_or_none(data.get("span_s")),
            covered_words=_tuple_or_none(data.get("covered_words")),
            middle_text=data.get("middle_text"),
            middle_s=_tuple_or_none(data.get("middle_s")),
            whole_line=data.get("whole_line"),
            flagged=data.get("flagged"),
        )


@dataclass(frozen=True)
class AdoptedFrom:
    """The take a copy was made from when a line changed its id (`drama takes --adopt`)."""

    line: str | None = None
    take: int | None = None


@dataclass(frozen=True)
class TakeRecord:
    """One take's record. Sizes: `samples` at 44,100 Hz, `duration_s` in seconds. `slot` is
    None for an extra take (a revision or edit beside the render's takes). `chunks`: the
    chunks of a take made of several, each (spoken text, start s, end s) in the take.
    `text` (the model text), `engine`, `scratch`, `drama3_model` and `normalize` are None when
    the record does not say; whether the Drama 3 model voiced the take is `by_drama3_model`."""

    take: int = 0
    samples: int = 0
    duration_s: float = 0.0
    wav_sha256: str = ""
    codes_sha256: str | None = None
    has_codes: bool = False
    seed: int | None = None
    slot: int | None = 0
    attempt: int = 0
    parent_take: int | None = None
    cache_key: str | None = None
    engine: str | None = None
    model_revision: str | None = None
    scratch: bool | None = None
    drama3_model: bool | None = None
    mode: str | None = None
    layout: str | None = None
    layout_version: str | None = None
    sampling: JsonObject | None = None
    normalize: bool | None = None
    speaker: str | None = None
    text: str | None = None
    display_text: str | None = None
    prompt_text: str | None = None
    note: str | None = None
    notes: tuple[str, ...] | None = None
    status: str | None = None
    checks: TakeChecks = TakeChecks()
    asr: TakeAsr | None = None
    voice: TakeVoice | None = None
    quality: TakeQuality | None = None
    edit: TakeEdit | None = None
    chunks: tuple[tuple[str, float, float], ...] = ()
    adopted_from: AdoptedFrom | None = None
    json: JsonObject = field(default_factory=dict, repr=False, compare=False)

    @property
    def by_drama3_model(self) -> bool:
        """Whether the Drama 3 model voiced this take (its licence's credit and notice apply):
        the record's `drama3_model` fact, written from the backend's
        `Capabilities.drama3_model`; a record written before that fact counts when its engine
        is one of LEGACY_DRAMA3_MODEL_ENGINES. The one place that decides it."""
        if self.drama3_model is not None:
            return self.drama3_model
        return self.engine in LEGACY_DRAMA3_MODEL_ENGINES

    @classmethod
    def from_json(cls, data: JsonObject) -> TakeRecord:
        """The record of a parsed `take-NNN.json` that `record_problem` accepted."""
        asr, edit, adopted = data.get("asr"), data.get("edit"), data.get("adopted_from")
        voice, quality = data.get("voice"), data.get("quality")
        return cls(
            **{name: data[name] for name in _PLAIN_FIELDS if name in data},
            duration_s=float(data.get("duration_s", 0.0)),
            notes=_tuple_or_none(data.get("notes")),
            checks=TakeChecks.from_json(data.get("checks") or {}),
            asr=TakeAsr.from_json(asr) if isinstance(asr, dict) else None,
            voice=TakeVoice.from_json(voice) if isinstance(voice, dict) else None,
            quality=TakeQuality.from_json(quality) if isinstance(quality, dict) else None,
            edit=TakeEdit.from_json(edit) if isinstance(edit, dict) else None,
            chunks=tuple(
                (str(c.get("text", "")), float(c["start_s"]), float(c["end_s"]))
                for c in data.get("chunks") or ()
            ),
            adopted_from=AdoptedFrom(adopted.get("line"), adopted.get("take"))
            if isinstance(adopted, dict)
            else None,
            json=copy.deepcopy(data),
        )

    def to_json(self) -> JsonObject:
        """The record as a JSON object: the one it was read from, unchanged."""
        return copy.deepcopy(self.json)


# Engines whose takes were the Drama 3 model's before take records said so (`drama3_model`).
LEGACY_DRAMA3_MODEL_ENGINES = ("drama3",)

_PLAIN_FIELDS = (
    "take",
    "samples",
    "wav_sha256",
    "codes_sha256",
    "has_codes",
    "seed",
    "slot",
    "attempt",
    "parent_take",
    "cache_key",
    "engine",
    "model_revision",
    "scratch",
    "drama3_model",
    "mode",
    "layout",
    "layout_version",
    "sampling",
    "normalize",
    "speaker",
    "text",
    "display_text",
    "prompt_text",
    "note",
    "status",
)  # stored as read


def _tuple_or_none(items) -> tuple | None:
    return None if items is None else tuple(items)
