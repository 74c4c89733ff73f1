"""The fish backend: Drama 3 on Fish Audio's hosted API (`--engine fish`; `--server URL` for
another deployment of the same API), with the API key from `$FISH_API_KEY` (or the variable
`--api-key-env` names, or the keyring entry `drama/fish`).

Every request carries the header `model: drama-3-preview` (without it the API voices the take
with another model, silently); an answer that says another model voiced it is refused. One
request may hold several speakers: one reference list per speaker, in `<|speaker:N|>` order.
`drama edit` goes to the infill endpoint: the take's audio, the seconds kept before and after
the span, and the full new transcript; the answer is the whole new take, of which the backend
returns the middle (the splice keeps the source's own audio around it). History renders as
clone; revise and scene are refused before any take. Wire facts: docs/internals/servers.md §5.
"""

from __future__ import annotations

from drama_cli.backends.base import Capabilities
from drama_cli.backends.speech_backend import ServerBackend, seconds_to_samples
from engine import EngineError
from engine.constants import SAMPLE_RATE
from engine.layouts import split_leading_tag

FISH_API = "https://api.fish.audio"
KEY_ENV = "FISH_API_KEY"


class FishBackend(ServerBackend):
    """Takes from Fish Audio's API (`/v1/tts`; edits through `/v1/audio/infill`)."""

    name = "fish"
    capabilities = Capabilities(
        infill=True,
        layouts=frozenset({"clone", "infill"}),
        multi_speaker=True,
        batch_streams=2,
        drama3_model=True,
        network=True,
    )
    default_server = FISH_API
    default_key_env = KEY_ENV
    key_required = True
    lists_models = False

    def reported_model(self, listed):
        # lazy: httpx (the client module)
        from drama_cli.backends.speech_client import ServerModel
        from drama_cli.backends.speech_wire import FISH_TTS_MODEL

        return ServerModel(FISH_TTS_MODEL, None)

    def wire_request(self, request):
        # lazy: msgpack and soundfile (the wire module)
        from drama_cli.backends.speech_wire import fish_infill, fish_tts

        conversation = request.conversation
        if conversation.layout == "infill":
            prefix, suffix = conversation.prefix, conversation.suffix
            wav = self.reference_wav(prefix, "the edited take")
            _, transcript = split_leading_tag(conversation.text)
            return fish_infill(
                wav,
                transcript.strip(),
                prefix.duration_s or 0.0,
                0.0 if suffix is None else suffix.duration_s or 0.0,
                self.sampling(request),
            )
        text, groups = self.voices(conversation)
        return fish_tts(text, groups, self.sampling(request))

    def answer_audio(self, request, samples):
        """For an infill, the middle of the new take (between the seconds kept before and
        after); else the whole answer."""
        conversation = request.conversation
        if conversation.layout != "infill":
            return samples
        start = seconds_to_samples(conversation.prefix.duration_s)
        kept_after = 0 if conversation.suffix is None else conversation.suffix.duration_s
        end = len(samples) - seconds_to_samples(kept_after)
        if end <= start:
            raise EngineError(
                f"{self.origin} answered the edit with {len(samples) / SAMPLE_RATE:.2f} s of audio, "
                "no longer than the audio kept around the span"
            )
        return samples[start:end]
