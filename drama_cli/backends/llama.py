"""The llama backend: Drama 3 on llama.cpp's llama-server (`--engine llama --server URL`).

Takes go through llama-server's native `/tts` (its OpenAI-style route carries no reference):
the text, the line's speaker's first reference clip as a WAV file and its transcript. One
speaker per request, the clone layout only (history renders as clone; revise and scene are
refused before any take). The model recorded is the one `/v1/models` lists. Wire facts:
docs/internals/servers.md §4.
"""

from __future__ import annotations

from drama_cli.backends.base import Capabilities
from drama_cli.backends.speech_backend import ServerBackend


class LlamaBackend(ServerBackend):
    """Takes from llama-server (`/tts`, `speaker_ref`)."""

    name = "llama"
    capabilities = Capabilities(
        layouts=frozenset({"clone"}),
        multi_speaker=False,
        batch_streams=1,  # llama-server serves one request per slot; --batch N for more slots
        drama3_model=True,
        network=True,
    )

    def wire_request(self, request):
        # lazy: msgpack and soundfile (the wire module)
        from drama_cli.backends.speech_wire import llama_tts

        text, references = self.one_voice(request)
        return llama_tts(text, references[:1], self.sampling(request))
