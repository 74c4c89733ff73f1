"""The vllm backend: Drama 3 on a vLLM-Omni server (`--engine vllm --server URL`).

vLLM-Omni takes one reference per request (`ref_audio` and `ref_text`): the line's speaker's
first reference clip is sent. One speaker per request, the clone layout only (history renders
as clone; revise and scene are refused before any take). Its answers stream as server-sent
events (`stream: true`, `stream_format: sse`, PCM16 deltas with `event:` lines), read as they
arrive: a stream that stalls for `--timeout` seconds fails that try, and one that ends without
its done event is a take cut short, never a short take. Wire facts:
docs/internals/servers.md §3.
"""

from __future__ import annotations

from drama_cli.backends.base import Capabilities
from drama_cli.backends.speech_backend import ServerBackend


class VllmBackend(ServerBackend):
    """Takes from a vLLM-Omni server (`/v1/audio/speech`, `ref_audio` / `ref_text`)."""

    name = "vllm"
    capabilities = Capabilities(
        layouts=frozenset({"clone"}),
        multi_speaker=False,
        batch_streams=4,
        streaming=True,
        drama3_model=True,
        network=True,
    )

    def wire_request(self, request):
        # lazy: msgpack and soundfile (the wire module)
        from drama_cli.backends.speech_wire import vllm_speech

        text, references = self.one_voice(request)
        return vllm_speech(
            text,
            references[:1],
            self.sampling(request),
            model=self.model_name(),
            stream=True,
            stream_format="sse",
        )
