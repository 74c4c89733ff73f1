"""Request bodies of the speech servers a producer may run Drama 3 on, one builder per wire style.

Each builder returns a `WireRequest`: the path, the extra headers and the body (JSON, msgpack
bytes or multipart fields) of one POST, plus what the answer must show (`expected_model`) and
where the server lists its model (`models_path`). Nothing here opens a connection; the
transport is `drama_cli.backends.speech_client`. The facts each builder relies on are in
docs/internals/servers.md.

Sampling is always sent explicitly (`Sampling`: temperature 1.0, top-p 0.9 and no top-k cap for
Drama 3), since some deployments default to other values (docs/internals/servers.md §1).
"""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence
from dataclasses import dataclass, field

import msgpack
import numpy as np
import soundfile as sf

from drama_cli.errors import ServerError
from engine.constants import SAMPLE_RATE, SPEAKER_TAG

SPEECH_PATH = "/v1/audio/speech"
MODELS_PATH = "/v1/models"
LLAMA_TTS_PATH = "/tts"
FISH_TTS_PATH = "/v1/tts"
FISH_INFILL_PATH = "/v1/audio/infill"
FISH_TTS_MODEL = "drama-3-preview"  # the `model` header of /v1/tts (absent: another model voices)
FISH_INFILL_MODEL = "drama-3"  # the `model` header of /v1/audio/infill
MSGPACK = "application/msgpack"
# The wire styles, as messages name the servers that speak them.
SGLANG, VLLM, LLAMA, FISH = "SGLang-Omni", "vLLM-Omni", "llama-server", "Fish Audio"


@dataclass(frozen=True)
class Sampling:
    """The sampling sent with every request: temperature, top-p, a top-k cap (None: no cap,
    sent as each server spells "no cap"), the most tokens to generate (None: the server's
    default) and a seed (None: none sent; only servers that take one get it)."""

    temperature: float = 1.0
    top_p: float = 0.9
    top_k: int | None = None
    max_new_tokens: int | None = None
    seed: int | None = None


@dataclass(frozen=True)
class Reference:
    """One reference clip of a voice: `wav` the bytes of a WAV file (`wav_bytes` makes one),
    `text` its transcript, `codes` its codec codes `[10, T]` int64 when known (SGLang-Omni takes
    them instead of the audio and skips its encoder)."""

    wav: bytes
    text: str
    codes: np.ndarray | None = field(default=None, compare=False)

    def __repr__(self) -> str:
        return f"Reference({len(self.wav)} bytes, {self.text[:30]!r})"


@dataclass(frozen=True)
class WireRequest:
    """One POST to a speech server.

    path: from the server's root. headers: the extra headers (Fish's `model`), never the key.
    Exactly one body: `json` (a dict), `content` (bytes, with `content_type`), or multipart
    `fields` (str values) plus `files` (name -> (file name, bytes, content type)).
    stream: the answer is read as it arrives. expected_model: the model the answer must come
    from (a `ServerError` of cause `model` otherwise); models_path: where the server lists its
    models (None: it has no such list). style: the wire style, for messages.
    """

    style: str
    path: str
    headers: dict[str, str] = field(default_factory=dict)
    json: dict | None = None
    content: bytes | None = None
    content_type: str | None = None
    fields: dict[str, str] | None = None
    files: dict[str, tuple[str, bytes, str]] | None = None
    stream: bool = False
    expected_model: str | None = None
    models_path: str | None = MODELS_PATH

    def __repr__(self) -> str:
        return f"WireRequest({self.style}, POST {self.path})"


def wav_bytes(audio: np.ndarray, sample_rate: int = SAMPLE_RATE) -> bytes:
    """A 16-bit PCM WAV file of `audio` (float32 mono [samples] at `sample_rate` Hz)."""
    buffer = io.BytesIO()
    sf.write(buffer, np.asarray(audio, dtype=np.float32), sample_rate, "PCM_16", format="WAV")
    return buffer.getvalue()


def data_url(wav: bytes) -> str:
    """`wav` as a `data:audio/wav;base64,...` URL."""
    return "data:audio/wav;base64," + base64.b64encode(wav).decode("ascii")


def _refuse(style: str, what: str) -> ServerError:
    return ServerError(f"the {style} server cannot {what}", "request")


def _one_reference(style: str, references: Sequence[Reference]) -> Reference | None:
    if len(references) > 1:
        raise _refuse(style, f"take {len(references)} reference clips in one request (one only)")
    return references[0] if references else None


def sglang_speech(
    text: str,
    references: Sequence[Reference],
    sampling: Sampling = Sampling(),
    *,
    model: str = "drama-3",
    stream: bool = False,
) -> WireRequest:
    """SGLang-Omni's `/v1/audio/speech`: references inline (`vq_codes` when the codes are known,
    else the audio as a data URL) with their transcripts; explicit sampling with
    `repetition_penalty` 1.0 and `top_k` -1 (no cap); no seed (refused by the server). With
    `stream` the answer is raw PCM16 with `X-Sample-Rate`, else a WAV body.

    Raises ServerError (cause `request`) when the text or a transcript names a speaker other
    than 0 (the server voices one speaker per request).
    """
    for written in (text, *(ref.text for ref in references)):
        others = sorted({int(n) for n in SPEAKER_TAG.findall(written)} - {0})
        if others:
            raise _refuse(SGLANG, f"voice speaker {others[0]} (one speaker, 0, per request)")
    body = {
        "model": model,
        "input": text,
        "response_format": "pcm" if stream else "wav",
        "stream": stream,
        "references": [
            {"vq_codes": np.asarray(ref.codes).tolist(), "text": ref.text}
            if ref.codes is not None
            else {"audio": data_url(ref.wav), "text": ref.text}
            for ref in references
        ],
        "temperature": sampling.temperature,
        "top_p": sampling.top_p,
        "top_k": -1 if sampling.top_k is None else sampling.top_k,
        "repetition_penalty": 1.0,
    }
    if sampling.max_new_tokens is not None:
        body["max_new_tokens"] = sampling.max_new_tokens
    return WireRequest(SGLANG, SPEECH_PATH, json=body, stream=stream)


def vllm_speech(
    text: str,
    references: Sequence[Reference],
    sampling: Sampling = Sampling(),
    *,
    model: str = "drama-3",
    stream: bool = False,
    stream_format: str = "audio",
) -> WireRequest:
    """vLLM-Omni's `/v1/audio/speech`: one reference as `ref_audio` (a data URL) and
    `ref_text`; sampling in `extra_params` (temperature, top_p, top_k -1: no cap), seed and
    `max_new_tokens` at the top level. With `stream` the answer is PCM (`stream_format`
    `audio`: raw PCM16 with `X-Sample-Rate`; `sse`: events with base64 PCM16 deltas).

    Raises ServerError (cause `request`) for more than one reference or an unknown
    `stream_format`.
    """
    if stream_format not in ("audio", "sse"):
        raise _refuse(VLLM, f"stream as {stream_format!r} (audio or sse)")
    reference = _one_reference(VLLM, references)
    body = {
        "model": model,
        "input": text,
        "response_format": "pcm" if stream else "wav",
        "stream": stream,
        "extra_params": {
            "temperature": sampling.temperature,
            "top_p": sampling.top_p,
            "top_k": -1 if sampling.top_k is None else sampling.top_k,
        },
    }
    if stream:
        body["stream_format"] = stream_format
    if reference is not None:
        body["ref_audio"] = data_url(reference.wav)
        body["ref_text"] = reference.text
    if sampling.max_new_tokens is not None:
        body["max_new_tokens"] = sampling.max_new_tokens
    if sampling.seed is not None:
        body["seed"] = sampling.seed
    return WireRequest(VLLM, SPEECH_PATH, json=body, stream=stream)


def llama_speech(
    text: str, sampling: Sampling = Sampling(), *, model: str = "drama-3", voice: str = "default"
) -> WireRequest:
    """llama-server's OpenAI-style `/v1/audio/speech`: the core fields and the sampling
    (`top_k` 0: no cap, llama.cpp's spelling); no reference (the OpenAI fields carry none). The
    answer is a WAV body."""
    body = {
        "model": model,
        "input": text,
        "voice": voice,
        "response_format": "wav",
        "temperature": sampling.temperature,
        "top_p": sampling.top_p,
        "top_k": 0 if sampling.top_k is None else sampling.top_k,
    }
    return WireRequest(LLAMA, SPEECH_PATH, json=body)


def llama_tts(
    text: str, references: Sequence[Reference], sampling: Sampling = Sampling()
) -> WireRequest:
    """llama-server's native `/tts`: multipart `input` plus one reference as the `speaker_ref`
    WAV file and its transcript as `ref_text` (the transcript field is an assumption:
    docs/internals/servers.md §4), and the sampling as form fields. The answer streams raw
    PCM16 at the model's rate (`X-Sample-Rate`).

    Raises ServerError (cause `request`) for more than one reference.
    """
    reference = _one_reference(LLAMA, references)
    fields = {
        "input": text,
        "temperature": repr(float(sampling.temperature)),
        "top_p": repr(float(sampling.top_p)),
        "top_k": str(0 if sampling.top_k is None else sampling.top_k),
    }
    files = None
    if reference is not None:
        fields["ref_text"] = reference.text
        files = {"speaker_ref": ("reference.wav", reference.wav, "audio/wav")}
    return WireRequest(
        LLAMA, LLAMA_TTS_PATH, fields=fields, files=files, stream=True, models_path=None
    )


def fish_tts(
    text: str,
    speakers: Sequence[Sequence[Reference]],
    sampling: Sampling = Sampling(),
    *,
    audio_format: str = "wav",
    sample_rate: int = SAMPLE_RATE,
) -> WireRequest:
    """Fish Audio's `/v1/tts` as msgpack (inline reference audio needs it), with the header
    `model: drama-3-preview` always sent (without it the hosted API voices with another model,
    silently). `speakers`: the reference clips of each speaker in `<|speaker:N|>` order; one
    speaker is sent as a flat list, several as one list per speaker. Sampling: temperature and
    top_p (the API has no top-k). The answer streams audio bytes (`audio_format` wav or pcm).

    Raises ServerError (cause `request`) for another `audio_format`.
    """
    if audio_format not in ("wav", "pcm"):
        raise _refuse(FISH, f"be read as {audio_format!r} (wav or pcm)")
    groups = [[{"audio": ref.wav, "text": ref.text} for ref in refs] for refs in speakers]
    body = {
        "text": text,
        "references": groups[0] if len(groups) == 1 else groups,
        "format": audio_format,
        "sample_rate": sample_rate,
        "temperature": sampling.temperature,
        "top_p": sampling.top_p,
        "normalize": False,
    }
    if sampling.max_new_tokens is not None:
        body["max_new_tokens"] = sampling.max_new_tokens
    return WireRequest(
        FISH,
        FISH_TTS_PATH,
        headers={"model": FISH_TTS_MODEL},
        content=msgpack.packb(body),
        content_type=MSGPACK,
        stream=True,
        expected_model=FISH_TTS_MODEL,
        models_path=None,
    )


def fish_infill(
    audio_wav: bytes,
    transcript: str,
    prefix_s: float,
    suffix_s: float,
    sampling: Sampling = Sampling(),
) -> WireRequest:
    """Fish Audio's `/v1/audio/infill` as msgpack, header `model: drama-3`: the take's audio
    (WAV bytes), the seconds kept before (`prefix_s`) and after (`suffix_s`) the span voiced
    again, and the full new transcript. The answer is the whole new take as audio bytes."""
    body = {
        "audio": audio_wav,
        "transcript": transcript,
        "prefix_seconds": float(prefix_s),
        "suffix_seconds": float(suffix_s),
        "format": "wav",
        "temperature": sampling.temperature,
        "top_p": sampling.top_p,
    }
    return WireRequest(
        FISH,
        FISH_INFILL_PATH,
        headers={"model": FISH_INFILL_MODEL},
        content=msgpack.packb(body),
        content_type=MSGPACK,
        stream=True,
        expected_model=FISH_INFILL_MODEL,
        models_path=None,
    )
