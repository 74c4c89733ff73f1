"""The sglang backend: Drama 3 on an SGLang-Omni server (`--engine sglang --server URL`).

SGLang-Omni voices one speaker per request, in the clone layout: the line's references travel
inline (codec codes when known, else the audio) with their transcripts. One speaker per
request (`multi_speaker=False`): a render including a line that switches to another speaker's
voice is refused while planning, naming the line; history mode renders as clone, revise and
scene mode are refused before any take is made. Wire facts:
docs/internals/servers.md §2.
"""

from __future__ import annotations

from drama_cli.backends.base import Capabilities
from drama_cli.backends.speech_backend import ServerBackend


class SglangBackend(ServerBackend):
    """Takes from an SGLang-Omni server (`/v1/audio/speech`, `references`)."""

    name = "sglang"
    capabilities = Capabilities(
        layouts=frozenset({"clone"}),
        multi_speaker=False,
        batch_streams=4,
        drama3_model=True,
        network=True,
    )

    def wire_request(self, request):
        # lazy: msgpack and soundfile (the wire module)
        from drama_cli.backends.speech_wire import sglang_speech

        text, references = self.one_voice(request)
        return sglang_speech(text, references, self.sampling(request), model=self.model_name())
