"""Speech servers' answers read as they arrive: raw PCM16, a WAV body or stream, or server-sent
events carrying base64 audio, turned into float32 mono at 44,100 Hz.

Each reader consumes an iterable of byte chunks (the HTTP body as it arrives) and feeds one
decoder (`PcmDecoder`, `WavDecoder`), which reports progress through `on_samples(n)` (samples at
the server's rate received so far). The server's own rate comes from the WAV header or the
`X-Sample-Rate` header; a missing or impossible one, or the two disagreeing, is a `ServerError`
of cause `format`. A body shorter than it said (WAV data short of its declared size, a PCM16
body of an odd byte count, events that end without their done event) is a `ServerError` of
cause `truncated`, never a short take. Facts: docs/internals/servers.md §1.
"""

from __future__ import annotations

import base64
import binascii
import json
import struct
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import soxr

from drama_cli.errors import ServerError
from engine.constants import SAMPLE_RATE

LOWEST_RATE, HIGHEST_RATE = 8_000, 384_000  # Hz: rates a speech server may plausibly answer at
UNKNOWN_SIZES = (0, 0xFFFFFFFF)  # a streamed WAV's RIFF or data size before its length is known
SampleCallback = Callable[[int], None]


@dataclass(frozen=True)
class ServerAudio:
    """Audio as a server answered it: `samples` float32 mono [samples] at 44,100 Hz,
    `native_rate` the server's rate (Hz) and `native_samples` its sample count there."""

    samples: np.ndarray
    native_rate: int
    native_samples: int

    @property
    def seconds(self) -> float:
        """The audio's length in seconds."""
        return self.native_samples / self.native_rate


def parse_rate(text: str | int | None, source: str) -> int:
    """A sample rate given as `text` (a header value or a header field) as an int in Hz.

    Raises ServerError (cause `format`) when it is missing, not an integer, or outside 8 kHz to
    384 kHz; `source` names where it came from in the message."""
    if text is None:
        raise ServerError(f"the answer gives no sample rate ({source} missing)", "format")
    try:
        rate = int(str(text).strip())
    except ValueError:
        raise ServerError(
            f"the answer's sample rate is not a number ({source} {text!r})", "format"
        ) from None
    if not LOWEST_RATE <= rate <= HIGHEST_RATE:
        raise ServerError(f"the answer's sample rate {rate} Hz ({source}) is impossible", "format")
    return rate


def to_model_rate(samples: np.ndarray, rate: int) -> np.ndarray:
    """float32 mono `samples` at `rate` Hz resampled with soxr to 44,100 Hz (as they are when
    already at 44,100 Hz)."""
    samples = np.asarray(samples, dtype=np.float32)
    if rate == SAMPLE_RATE or samples.size == 0:
        return samples
    return soxr.resample(samples, rate, SAMPLE_RATE, quality="HQ").astype(np.float32)


class PcmDecoder:
    """Raw little-endian PCM16 mono at `rate` Hz, fed in chunks of any size (a sample split
    between chunks is joined)."""

    def __init__(self, rate: int, on_samples: SampleCallback | None = None):
        self.rate, self.on_samples = rate, on_samples
        self._parts: list[np.ndarray] = []
        self._carry = b""
        self._count = 0

    def feed(self, chunk: bytes) -> None:
        """Decode the whole samples of `chunk` (an odd byte waits for the next chunk)."""
        data = self._carry + chunk
        whole = len(data) - len(data) % 2
        self._carry = data[whole:]
        if whole:
            self._parts.append(np.frombuffer(data[:whole], dtype="<i2").astype(np.float32) / 32768)
            self._count += whole // 2
            if self.on_samples:
                self.on_samples(self._count)

    def finish(self) -> ServerAudio:
        """The audio received. Raises ServerError (cause `truncated`) for a half sample left."""
        if self._carry:
            raise ServerError("the PCM16 stream ended inside a sample (cut short)", "truncated")
        native = np.concatenate(self._parts) if self._parts else np.zeros(0, np.float32)
        return ServerAudio(to_model_rate(native, self.rate), self.rate, native.size)


_WAV_FORMATS = {(1, 16): "<i2", (1, 32): "<i4", (3, 32): "<f4", (1, 24): "int24"}


class WavDecoder:
    """A WAV file fed in chunks: its header read as soon as it has arrived, then its samples.

    A data size of 0 or 0xFFFFFFFF (a stream written before its length was known) reads to the
    end of the body; any other size must arrive whole. `header_rate`: the rate a header
    (`X-Sample-Rate`) gave, which must agree with the file's. Channels are averaged. PCM 16, 24
    and 32-bit and float 32-bit are read.
    """

    def __init__(self, header_rate: int | None = None, on_samples: SampleCallback | None = None):
        self.header_rate, self.on_samples = header_rate, on_samples
        self._head = b""
        self._pcm: _FrameDecoder | None = None
        self._left: int | None = None  # data bytes still to come (None: to the end)

    def feed(self, chunk: bytes) -> None:
        """Take the next bytes of the file."""
        if self._pcm is None:
            self._head += chunk
            chunk = self._parse_header()
            if self._pcm is None:
                return
        if self._left is not None:
            chunk = chunk[: self._left]
            self._left -= len(chunk)
        self._pcm.feed(chunk)

    def _parse_header(self) -> bytes:
        head = self._head
        if len(head) < 12:
            return b""
        if head[:4] != b"RIFF" or head[8:12] != b"WAVE":
            raise ServerError("the answer is not a WAV file (no RIFF/WAVE header)", "format")
        at, fmt = 12, None
        while len(head) >= at + 8:
            kind, size = head[at : at + 4], struct.unpack("<I", head[at + 4 : at + 8])[0]
            if kind == b"data":
                if fmt is None:
                    raise ServerError("the WAV answer has its data before its format", "format")
                self._start(fmt, None if size in UNKNOWN_SIZES else size)
                return head[at + 8 :]
            if len(head) < at + 8 + size:
                return b""
            if kind == b"fmt ":
                fmt = head[at + 8 : at + 8 + size]
            at += 8 + size + size % 2
        return b""

    def _start(self, fmt: bytes, data_size: int | None) -> None:
        if len(fmt) < 16:
            raise ServerError("the WAV answer's format chunk is too short", "format")
        code, channels, rate, _, _, bits = struct.unpack("<HHIIHH", fmt[:16])
        if code == 0xFFFE and len(fmt) >= 26:  # WAVE_FORMAT_EXTENSIBLE: the subformat's code
            code = struct.unpack("<H", fmt[24:26])[0]
        dtype = _WAV_FORMATS.get((code, bits))
        if dtype is None or channels < 1:
            raise ServerError(
                f"the WAV answer's samples cannot be read (format {code}, {bits}-bit)", "format"
            )
        rate = parse_rate(rate, "WAV header")
        if self.header_rate is not None and self.header_rate != rate:
            raise ServerError(
                f"the answer's X-Sample-Rate {self.header_rate} Hz disagrees with its WAV "
                f"header's {rate} Hz",
                "format",
            )
        self._left = data_size
        self._pcm = _FrameDecoder(dtype, bits // 8 * channels, channels, rate, self.on_samples)

    def finish(self) -> ServerAudio:
        """The audio received. Raises ServerError: cause `truncated` when the body ended before
        its header was whole or before the data size it declared; `format` when it was empty."""
        if self._pcm is None:
            if not self._head:
                raise ServerError("the answer holds no audio (an empty body)", "format")
            raise ServerError("the WAV answer ended inside its header (cut short)", "truncated")
        if self._left:
            raise ServerError(
                f"the WAV answer ended {self._left} bytes short of the size its header gives "
                "(cut short)",
                "truncated",
            )
        return self._pcm.finish()


class _FrameDecoder:
    """Interleaved frames of `frame_bytes` bytes in `dtype` ("int24" for packed 24-bit)."""

    def __init__(self, dtype: str, frame_bytes: int, channels: int, rate: int, on_samples):
        self.dtype, self.frame_bytes, self.channels = dtype, frame_bytes, channels
        self.rate, self.on_samples = rate, on_samples
        self._carry = b""
        self._parts: list[np.ndarray] = []
        self._count = 0

    def feed(self, chunk: bytes) -> None:
        data = self._carry + chunk
        whole = len(data) - len(data) % self.frame_bytes
        self._carry = data[whole:]
        if not whole:
            return
        raw = data[:whole]
        if self.dtype == "int24":
            bytes3 = np.frombuffer(raw, np.uint8).reshape(-1, 3).astype(np.int32)
            values = (bytes3[:, 0] | bytes3[:, 1] << 8 | bytes3[:, 2] << 16) << 8 >> 8
            samples = values.astype(np.float32) / 8388608
        else:
            values = np.frombuffer(raw, self.dtype)
            scale = {"<i2": 32768, "<i4": 2147483648, "<f4": 1}[self.dtype]
            samples = values.astype(np.float32) / scale
        samples = samples.reshape(-1, self.channels).mean(axis=1, dtype=np.float32)
        self._parts.append(samples)
        self._count += samples.size
        if self.on_samples:
            self.on_samples(self._count)

    def finish(self) -> ServerAudio:
        if self._carry:
            raise ServerError("the WAV answer ended inside a sample (cut short)", "truncated")
        native = np.concatenate(self._parts) if self._parts else np.zeros(0, np.float32)
        return ServerAudio(to_model_rate(native, self.rate), self.rate, native.size)


def read_pcm16(
    chunks: Iterable[bytes], rate: int, on_samples: SampleCallback | None = None
) -> ServerAudio:
    """Raw PCM16 mono at `rate` Hz read as it arrives. Raises ServerError (`truncated`) for a
    body cut inside a sample."""
    decoder = PcmDecoder(rate, on_samples)
    for chunk in chunks:
        decoder.feed(chunk)
    return decoder.finish()


def read_wav(
    chunks: Iterable[bytes],
    header_rate: int | None = None,
    on_samples: SampleCallback | None = None,
) -> ServerAudio:
    """A WAV body or stream read as it arrives (`WavDecoder`). Raises ServerError (`format`,
    `truncated`)."""
    decoder = WavDecoder(header_rate, on_samples)
    for chunk in chunks:
        decoder.feed(chunk)
    return decoder.finish()


DELTA_EVENTS = ("speech.audio.delta",)
DONE_EVENTS = ("speech.audio.done",)
ERROR_EVENTS = ("speech.audio.error", "error")


def sse_events(chunks: Iterable[bytes]) -> Iterable[tuple[str | None, str]]:
    """(event name or None, data) of each server-sent event in a body read as it arrives: `data:`
    lines joined with newlines, `event:` the name when the server writes one, comments and
    other fields skipped. An event not ended by a blank line before the body ends is dropped
    (it was cut short)."""
    buffer = b""
    name, data = None, []
    for chunk in chunks:
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        for raw in lines:
            line = raw.rstrip(b"\r").decode("utf-8", errors="replace")
            if not line:
                if data:
                    yield name, "\n".join(data)
                name, data = None, []
            elif line.startswith(":"):
                continue
            else:
                key, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                if key == "event":
                    name = value
                elif key == "data":
                    data.append(value)


def read_sse(
    chunks: Iterable[bytes],
    header_rate: int | None = None,
    on_samples: SampleCallback | None = None,
) -> ServerAudio:
    """Server-sent events whose `data:` JSON carries base64 audio, with or without `event:`
    lines (the event's name is its `event:` line, else the JSON's `type`).

    `speech.audio.delta` events carry audio in `audio` (or `delta`): PCM16 at `header_rate` (or
    at the rate the event's `sample_rate` gives), or a WAV stream when the first bytes are a
    RIFF header. `speech.audio.done` (or `data: [DONE]`) ends the audio; events after it are
    ignored. Raises ServerError: cause `refused` for an error event (its message), `truncated`
    when the events end without the done event, `format` for a missing rate or undecodable
    event.
    """
    decoder: PcmDecoder | WavDecoder | None = None
    for name, data in sse_events(chunks):
        if data.strip() == "[DONE]":
            break
        try:
            event = json.loads(data)
        except ValueError:
            raise ServerError("an event of the answer is not JSON", "format") from None
        if not isinstance(event, dict):
            raise ServerError("an event of the answer is not a JSON object", "format")
        kind = name or event.get("type")
        if kind in ERROR_EVENTS or "error" in event:
            raise ServerError(f"the server stopped: {_event_message(event)}", "refused")
        if kind in DONE_EVENTS:
            break
        if kind not in DELTA_EVENTS:
            continue
        encoded = event.get("audio", event.get("delta"))
        try:
            audio = base64.b64decode(encoded or "", validate=True)
        except (binascii.Error, TypeError, ValueError):
            raise ServerError("an audio event of the answer is not base64", "format") from None
        if decoder is None:
            if audio[:4] == b"RIFF":
                decoder = WavDecoder(header_rate, on_samples)
            else:
                rate = event.get("sample_rate", header_rate)
                decoder = PcmDecoder(parse_rate(rate, "X-Sample-Rate"), on_samples)
        decoder.feed(audio)
    else:
        raise ServerError("the event stream ended without its done event (cut short)", "truncated")
    if decoder is None:
        raise ServerError("the event stream holds no audio", "format")
    return decoder.finish()


def _event_message(event: dict) -> str:
    error = event.get("error", event)
    if isinstance(error, dict):
        return str(error.get("message") or error.get("detail") or "no message")
    return str(error)


def audio_kind(content_type: str | None) -> str | None:
    """Which reader a content type calls for: `pcm`, `wav`, `sse`, or None for anything else
    (an unexpected content type)."""
    media = (content_type or "").split(";")[0].strip().lower()
    if media in ("audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave"):
        return "wav"
    if media in ("audio/pcm", "audio/l16", "application/octet-stream", "audio/raw"):
        return "pcm"
    if media == "text/event-stream":
        return "sse"
    return None


def read_answer(
    content_type: str | None,
    headers: Mapping[str, str],
    chunks: Iterable[bytes],
    on_samples: SampleCallback | None = None,
) -> ServerAudio:
    """An audio answer read as it arrives, by its content type: WAV (its header gives the
    rate), raw PCM16 (`X-Sample-Rate` gives it), or server-sent events. A raw body that starts
    with a RIFF header is read as WAV whatever its type says.

    Raises ServerError: cause `format` for an unexpected content type, a missing or wrong rate
    or unreadable audio; `truncated` for a body cut short; `refused` for an error event.
    """
    kind = audio_kind(content_type)
    if kind is None:
        raise ServerError(
            f"the answer is {content_type or 'of no content type'}, not audio", "format"
        )
    raw_rate = headers.get("x-sample-rate")
    header_rate = None if raw_rate is None else parse_rate(raw_rate, "X-Sample-Rate")
    if kind == "sse":
        return read_sse(chunks, header_rate, on_samples)
    iterator = iter(chunks)
    first = b""
    for chunk in iterator:
        first += chunk
        if len(first) >= 4:
            break
    rest = _prepend(first, iterator)
    if kind == "wav" or first[:4] == b"RIFF":
        return read_wav(rest, header_rate, on_samples)
    return read_pcm16(rest, parse_rate(raw_rate, "X-Sample-Rate"), on_samples)


def _prepend(first: bytes, rest: Iterable[bytes]) -> Iterable[bytes]:
    if first:
        yield first
    yield from rest
