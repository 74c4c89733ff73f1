"""The speech-server transport against fake servers on 127.0.0.1: each wire format's request
and answer, each fault turned into one line, retries that honour Retry-After, the API key kept
out of every message, and several requests in flight."""

from __future__ import annotations

import base64
import pickle
import sys
import types
from datetime import UTC, datetime
from email.utils import format_datetime

import numpy as np
import pytest
from fake_speech_servers import FakeSpeechServer, refusing_port, serving, tone, wav_header

from drama_cli.backends.speech_client import (
    RetryPolicy,
    SpeechClient,
    Timeouts,
    envelope_message,
    retry_after_s,
    server_label,
)
from drama_cli.backends.speech_keys import ApiKey, find_api_key
from drama_cli.backends.speech_pool import RequestPool, as_finished
from drama_cli.backends.speech_stream import read_sse, read_wav
from drama_cli.backends.speech_wire import (
    Reference,
    Sampling,
    WireRequest,
    fish_infill,
    fish_tts,
    llama_speech,
    llama_tts,
    sglang_speech,
    vllm_speech,
    wav_bytes,
)
from drama_cli.errors import ServerError, UsageError

SR = 44_100
KEY = "sk-test-0123456789-secret"
REF = Reference(wav_bytes(tone(SR, 0.1)), "A reference line.")


def sleeps():
    """A sleep function that records the waits asked for instead of waiting."""
    asked: list[float] = []
    return asked, asked.append


@pytest.fixture
def server(request):
    """A fake server of the style the test is parametrised with (default sglang)."""
    style, options = getattr(request, "param", ("sglang", {}))
    with serving(FakeSpeechServer(style, **options)) as fake:
        yield fake


def client_for(fake, **options) -> SpeechClient:
    options.setdefault("sleep", sleeps()[1])
    return SpeechClient(fake.url, **options)


def expected_tone(rate: int, seconds: float = 0.5) -> np.ndarray:
    return np.trunc(tone(rate, seconds) * 32767) / 32768  # as the fake writes PCM16


# --- wire formats ---------------------------------------------------------------------------


def test_sglang_speech_sends_references_and_drama3_sampling_and_reads_a_wav_body(server):
    with client_for(server) as client:
        answer = client.speak(sglang_speech("<|speaker:0|>Hello there.", [REF], Sampling()))
    body = server.requests[0].body
    assert server.requests[0].path == "/v1/audio/speech"
    assert body["input"] == "<|speaker:0|>Hello there."
    assert body["references"] == [
        {"audio": "data:audio/wav;base64," + base64.b64encode(REF.wav).decode(), "text": REF.text}
    ]
    assert (body["temperature"], body["top_p"], body["top_k"]) == (1.0, 0.9, -1)
    assert body["repetition_penalty"] == 1.0 and "seed" not in body and body["stream"] is False
    assert answer.audio.native_rate == SR and answer.audio.samples.dtype == np.float32
    np.testing.assert_allclose(answer.audio.samples, expected_tone(SR), atol=1e-6)
    assert (answer.model.id, answer.model.version) == ("drama-3", "fake-1.0")
    assert answer.finish_reason == "stop" and answer.attempts == 1


def test_sglang_sends_known_codes_instead_of_the_audio(server):
    codes = np.arange(20, dtype=np.int64).reshape(10, 2)
    with client_for(server) as client:
        client.speak(sglang_speech("Hi.", [Reference(REF.wav, "ref", codes)]))
    assert server.requests[0].body["references"] == [{"vq_codes": codes.tolist(), "text": "ref"}]


def test_sglang_refuses_a_speaker_other_than_zero_before_sending():
    with pytest.raises(ServerError, match="speaker 2") as err:
        sglang_speech("<|speaker:0|>Hi. <|speaker:2|>Ho.", [REF])
    assert err.value.cause == "request"


@pytest.mark.parametrize("server", [("sglang", {"rate": 24_000})], indirect=True)
def test_a_pcm_stream_is_read_at_its_header_rate_and_resampled_to_44100(server):
    progress = []
    with client_for(server) as client:
        answer = client.speak(sglang_speech("Hi.", [], stream=True), progress.append)
    assert server.requests[0].body["response_format"] == "pcm"
    assert answer.audio.native_rate == 24_000 and answer.audio.native_samples == 12_000
    assert answer.audio.samples.size == SR // 2
    assert progress == sorted(progress) and progress[-1] == 12_000 and len(progress) > 1
    peak = np.abs(answer.audio.samples[1000:-1000]).max()
    assert 0.24 < peak < 0.26  # the tone kept its level through the resampling


def test_server_sent_events_without_event_lines_are_read(server):
    request = WireRequest(
        "sglang", "/v1/audio/speech", json={"input": "Hi.", "stream": True, "stream_format": "sse"}
    )
    with client_for(server) as client:
        answer = client.speak(request)
    np.testing.assert_allclose(answer.audio.samples, expected_tone(SR), atol=1e-6)


@pytest.mark.parametrize("server", [("vllm", {})], indirect=True)
def test_vllm_sends_ref_audio_and_sampling_and_reads_named_events(server):
    sampling = Sampling(seed=7, max_new_tokens=500)
    with client_for(server) as client:
        answer = client.speak(vllm_speech("Hi.", [REF], sampling, stream=True, stream_format="sse"))
    body = server.requests[0].body
    assert body["ref_audio"].startswith("data:audio/wav;base64,") and body["ref_text"] == REF.text
    assert body["extra_params"] == {"temperature": 1.0, "top_p": 0.9, "top_k": -1}
    assert (body["seed"], body["max_new_tokens"], body["response_format"]) == (7, 500, "pcm")
    np.testing.assert_allclose(answer.audio.samples, expected_tone(SR), atol=1e-6)


def test_vllm_takes_one_reference_only():
    with pytest.raises(ServerError, match="2 reference clips"):
        vllm_speech("Hi.", [REF, REF])


@pytest.mark.parametrize("server", [("llama", {})], indirect=True)
def test_llama_native_tts_sends_the_reference_as_a_multipart_file(server):
    with client_for(server) as client:
        answer = client.speak(llama_tts("Hi.", [REF], Sampling(temperature=0.8)))
        spoken = client.speak(llama_speech("Hi."))
    form = server.requests[0].body
    assert server.requests[0].path == "/tts"
    assert form["speaker_ref"] == REF.wav and form["ref_text"] == REF.text
    assert (form["input"], form["temperature"], form["top_k"]) == ("Hi.", "0.8", "0")
    assert answer.audio.native_samples == SR // 2
    assert server.requests[1].body["voice"] == "default" and spoken.audio.native_rate == SR


@pytest.mark.parametrize("server", [("fish", {})], indirect=True)
def test_fish_tts_sends_msgpack_with_inline_audio_and_the_model_header(server):
    with client_for(server, api_key=ApiKey(KEY, "$FISH_API_KEY")) as client:
        answer = client.speak(fish_tts("Hi.", [[REF]], Sampling()))
        client.speak(fish_tts("<|speaker:0|>A <|speaker:1|>B", [[REF], [REF, REF]]))
    first, second = server.requests
    assert first.path == "/v1/tts" and first.headers["model"] == "drama-3-preview"
    assert first.headers["authorization"] == f"Bearer {KEY}"
    assert first.body["references"] == [{"audio": REF.wav, "text": REF.text}]
    assert (first.body["temperature"], first.body["top_p"]) == (1.0, 0.9)
    assert [len(group) for group in second.body["references"]] == [1, 2]
    assert answer.model.id == "drama-3-preview"
    np.testing.assert_allclose(answer.audio.samples, expected_tone(SR), atol=1e-6)


@pytest.mark.parametrize("server", [("fish", {})], indirect=True)
def test_fish_infill_sends_the_drama3_header_and_the_spans(server):
    with client_for(server) as client:
        answer = client.speak(fish_infill(REF.wav, "The new words.", 1.5, 0.75))
    received = server.requests[0]
    assert received.path == "/v1/audio/infill" and received.headers["model"] == "drama-3"
    assert (received.body["prefix_seconds"], received.body["suffix_seconds"]) == (1.5, 0.75)
    assert received.body["audio"] == REF.wav and received.body["transcript"] == "The new words."
    assert answer.model.id == "drama-3"


@pytest.mark.parametrize("server", [("fish", {})], indirect=True)
def test_a_fish_take_voiced_by_another_model_is_refused(server):
    server.fail("model")
    with client_for(server) as client, pytest.raises(ServerError) as err:
        client.speak(fish_tts("Hi.", [[REF]]))
    assert err.value.cause == "model"
    assert str(err.value) == (
        f"{server.url} voiced the take with model s2.1-pro, not drama-3-preview; the take is refused"
    )


@pytest.mark.parametrize("server", [("vllm", {"report_model": False})], indirect=True)
def test_the_model_comes_from_the_model_list_when_answers_do_not_name_it(server):
    with client_for(server) as client:
        first = client.speak(vllm_speech("Hi.", []))
        second = client.speak(vllm_speech("Ho.", []))
    assert first.model == second.model
    assert (first.model.id, first.model.version) == ("drama-3", "fake-1.0")


# --- retries --------------------------------------------------------------------------------


def test_a_500_is_retried_with_exponential_backoff(server):
    server.fail("status", times=2, status=500)
    asked, sleep = sleeps()
    with SpeechClient(server.url, sleep=sleep, retry=RetryPolicy(backoff_s=0.5)) as client:
        answer = client.speak(sglang_speech("Hi.", []))
    assert asked == [0.5, 1.0] and answer.attempts == 3 and len(server.requests) == 3


def test_a_429_waits_the_seconds_retry_after_asks(server):
    server.fail("status", status=429, retry_after="7")
    asked, sleep = sleeps()
    with SpeechClient(server.url, sleep=sleep) as client:
        client.speak(sglang_speech("Hi.", []))
    assert asked == [7.0]


def test_a_503_waits_until_the_http_date_retry_after_gives(server):
    now = 1_800_000_000.0
    when = format_datetime(datetime.fromtimestamp(now + 12, UTC), usegmt=True)
    server.fail("status", status=503, retry_after=when)
    asked, sleep = sleeps()
    with SpeechClient(server.url, sleep=sleep, clock=lambda: now) as client:
        client.speak(sglang_speech("Hi.", []))
    assert asked == [12.0]


def test_retries_end_after_the_last_attempt_with_the_servers_message(server):
    server.fail("status", times=5, status=503, message="overloaded, try later")
    asked, sleep = sleeps()
    with SpeechClient(server.url, sleep=sleep, retry=RetryPolicy(attempts=3)) as client:
        with pytest.raises(ServerError) as err:
            client.speak(sglang_speech("Hi.", []))
    assert (
        str(err.value) == f"{server.url} answered HTTP 503 after 3 attempts: overloaded, try later"
    )
    assert (err.value.cause, err.value.status) == ("busy", 503)
    assert asked == [1.0, 2.0] and len(server.requests) == 3


def test_a_retry_after_longer_than_allowed_ends_the_retries_at_once(server):
    server.fail("status", status=429, retry_after="3600")
    asked, sleep = sleeps()
    with SpeechClient(server.url, sleep=sleep) as client, pytest.raises(ServerError) as err:
        client.speak(sglang_speech("Hi.", []))
    assert "asks to wait 3600 s" in str(err.value) and asked == []


# --- faults ---------------------------------------------------------------------------------


def test_a_server_that_is_down_is_one_line():
    with refusing_port() as url, SpeechClient(url) as client, pytest.raises(ServerError) as err:
        client.speak(sglang_speech("Hi.", []))
    assert str(err.value) == f"cannot reach {url} (connection refused)"
    assert err.value.cause == "unreachable"


def test_a_stalled_stream_hits_the_read_timeout(server):
    server.fail("stall")
    timeouts = Timeouts(connect_s=5, read_s=0.3)
    with client_for(server, timeouts=timeouts) as client, pytest.raises(ServerError) as err:
        client.speak(sglang_speech("Hi.", [], stream=True))
    assert server.stalled.is_set()
    assert str(err.value) == (
        f"{server.url} sent nothing for 0.3 s in the middle of its answer (read timeout)"
    )


@pytest.mark.parametrize(
    ("server", "stream", "said"),
    [
        (("sglang", {}), False, "WAV answer ended 22050 bytes short"),
        (("sglang", {}), True, "PCM16 stream ended inside a sample"),
        (("vllm", {}), True, "event stream ended without its done event"),
    ],
    indirect=["server"],
)
def test_a_truncated_answer_is_an_error_not_a_short_take(server, stream, said):
    server.fail("truncate")
    request = (
        vllm_speech("Hi.", [], stream=True, stream_format="sse")
        if server.style == "vllm"
        else sglang_speech("Hi.", [], stream=stream)
    )
    with client_for(server) as client, pytest.raises(ServerError) as err:
        client.speak(request)
    assert err.value.cause == "truncated" and said in str(err.value)
    assert str(err.value).startswith(f"{server.url}: ")


@pytest.mark.parametrize(
    ("stream", "shape", "said"),
    [
        (True, {}, "gives no sample rate (X-Sample-Rate missing)"),
        (True, {"rate": "fast"}, "sample rate is not a number (X-Sample-Rate 'fast')"),
        (True, {"rate": "12"}, "sample rate 12 Hz (X-Sample-Rate) is impossible"),
        (False, {"rate": "44100", "wav_rate": 22_050}, "X-Sample-Rate 44100 Hz disagrees"),
    ],
)
def test_a_missing_or_wrong_sample_rate_is_one_clear_error(server, stream, shape, said):
    server.fail("rate", **shape)
    with client_for(server) as client, pytest.raises(ServerError) as err:
        client.speak(sglang_speech("Hi.", [], stream=stream))
    assert err.value.cause == "format" and said in str(err.value)


def test_an_answer_that_is_not_audio_is_one_line(server):
    server.fail("content_type")
    with client_for(server) as client, pytest.raises(ServerError) as err:
        client.speak(sglang_speech("Hi.", []))
    assert str(err.value) == f"{server.url}: the answer is text/html; charset=utf-8, not audio"


@pytest.mark.parametrize(
    ("style", "status", "expected"),
    [
        ("openai", 400, "refused the request (HTTP 400: bad voice)"),
        ("fastapi", 404, "refused the request (HTTP 404: bad voice)"),
        ("fish", 402, "asks for payment (HTTP 402: bad voice)"),
        ("422", 422, "refused the request (HTTP 422: text: bad voice)"),
    ],
)
def test_each_error_envelope_becomes_its_message(server, style, status, expected):
    server.fail("status", status=status, style=style, message="bad voice")
    with client_for(server) as client, pytest.raises(ServerError) as err:
        client.speak(sglang_speech("Hi.", []))
    assert str(err.value) == f"{server.url} {expected}" and err.value.status == status


@pytest.mark.parametrize("server", [("fish", {"api_key": "the-right-key"})], indirect=True)
def test_a_refused_key_names_its_source_and_never_the_key(server):
    with client_for(server, api_key=ApiKey(KEY, "$FISH_API_KEY")) as client:
        with pytest.raises(ServerError) as err:
            client.speak(fish_tts("Hi.", [[REF]]))
    assert str(err.value) == (
        f"{server.url} refused the API key from $FISH_API_KEY "
        "(HTTP 401: invalid api key '[the key]')"
    )
    assert err.value.cause == "key"


def test_no_error_message_or_repr_holds_the_key(server):
    server.fail("status", status=401, message=f"bad key {KEY}")
    server.fail("status", status=403, style="fastapi", message=f"forbidden: {KEY}")
    server.fail("status", status=402, style="fish", message=f"pay for {KEY}")
    server.fail("status", status=503, message=f"busy {KEY}")
    server.fail("status", status=422, style="422", message=KEY)
    server.fail("content_type")
    server.fail("truncate")
    server.fail("rate", rate=KEY)
    key = ApiKey(KEY, "$SGLANG_API_KEY")
    retry = RetryPolicy(attempts=1)
    seen = []
    with client_for(server, api_key=key, retry=retry) as client:
        for _ in range(8):
            with pytest.raises(ServerError) as err:
                client.speak(sglang_speech("Hi.", [], stream=True))
            seen += [str(err.value), repr(err.value), *map(str, err.value.args)]
        seen += [repr(client), repr(key), str(key)]
    assert len(server.requests) == 8
    assert [text for text in seen if KEY in text] == []
    with pytest.raises(TypeError, match="never pickled"):
        pickle.dumps(key)


# --- keys -----------------------------------------------------------------------------------


def test_the_key_comes_from_the_environment_variable_named():
    key = find_api_key("FISH_API_KEY", environ={"FISH_API_KEY": f" {KEY} \n"})
    assert key.reveal() == KEY and repr(key) == "ApiKey(from $FISH_API_KEY)"
    assert find_api_key("FISH_API_KEY", environ={"FISH_API_KEY": "  "}) is None


def test_the_key_falls_back_to_a_keyring_entry(monkeypatch):
    stored = {("drama", "fish"): KEY}
    fake = types.SimpleNamespace(get_password=lambda service, user: stored.get((service, user)))
    monkeypatch.setitem(sys.modules, "keyring", fake)
    key = find_api_key("FISH_API_KEY", "fish", environ={})
    assert key.reveal() == KEY and key.source == "keyring drama/fish"
    assert find_api_key("FISH_API_KEY", "other", environ={}) is None


def test_without_the_keyring_package_there_is_no_key(monkeypatch):
    monkeypatch.setitem(sys.modules, "keyring", None)
    assert find_api_key("FISH_API_KEY", "fish", environ={}) is None


# --- in flight ------------------------------------------------------------------------------


@pytest.mark.parametrize("server", [("vllm", {"seconds": 0.05})], indirect=True)
def test_requests_run_side_by_side_up_to_the_pool_size(server):
    server.hold(3)
    with client_for(server, connections=3) as client:
        calls = [lambda n=n: client.speak(vllm_speech(f"Line {n}.", [])) for n in range(6)]
        finished = list(as_finished(calls, 3))
    assert sorted(done.ticket for done in finished) == list(range(6))
    assert [done.error for done in finished] == [None] * 6
    assert all(done.result.audio.native_samples == 2205 for done in finished)
    assert server.most_in_flight == 3


def test_a_failed_call_comes_back_with_its_error():
    def fail():
        raise ServerError("down", "unreachable")

    with RequestPool(2) as pool:
        tickets = [pool.submit(fail), pool.submit(lambda: 5)]
        done = sorted((pool.next_done() for _ in tickets), key=lambda f: f.ticket)
        assert pool.active() == 0
        with pytest.raises(LookupError):
            pool.next_done()
    assert isinstance(done[0].error, ServerError) and done[1].result == 5


# --- pieces ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b'{"error": {"message": "no such voice", "type": "x"}}', "no such voice"),
        (b'{"detail": "Not Found"}', "Not Found"),
        (
            b'{"detail": [{"loc": ["body", "input"], "msg": "field required"}]}',
            "input: field required",
        ),
        (b'{"status": 401, "message": "Invalid token", "reason": "x"}', "Invalid token"),
        (b"upstream timed out\nmore", "upstream timed out more"),
        (b"<html><body>502</body></html>", None),
        (b"", None),
    ],
)
def test_envelope_message_reads_each_style(body, expected):
    assert envelope_message(body, "application/json") == expected


def test_retry_after_reads_seconds_and_dates():
    now = 1_800_000_000.0
    date = format_datetime(datetime.fromtimestamp(now + 30, UTC), usegmt=True)
    assert retry_after_s("2.5", now) == 2.5
    assert retry_after_s(date, now) == 30.0
    assert retry_after_s(date, now + 60) == 0.0
    assert retry_after_s("soon", now) is None and retry_after_s(None, now) is None


def test_a_server_is_named_without_its_credentials_or_path():
    assert (
        server_label("https://user:pw@api.example.com:8443/v1?k=1")
        == "https://api.example.com:8443"
    )
    with pytest.raises(UsageError, match="not an http"):
        server_label("ftp://example.com")


def test_a_wav_stream_of_unknown_length_reads_to_its_end():
    samples = (tone(22_050, 0.2) * 32767).astype("<i2").tobytes()
    body = wav_header(22_050, 0xFFFFFFFF) + samples
    audio = read_wav([body[i : i + 7] for i in range(0, len(body), 7)])
    assert audio.native_rate == 22_050 and audio.native_samples == len(samples) // 2
    assert audio.samples.size == SR // 5


def test_an_error_event_stops_the_stream_with_its_message():
    events = [
        b'data: {"type": "speech.audio.delta", "audio": "AAAA"}\n\n',
        b'event: speech.audio.error\ndata: {"error": {"message": "out of memory"}}\n\n',
    ]
    with pytest.raises(ServerError, match="the server stopped: out of memory") as err:
        read_sse(events, 24_000)
    assert err.value.cause == "refused"


@pytest.mark.parametrize("url", ["http://[::1", "http://127.0.0.1:99999", "http://127.0.0.1:abc"])
def test_a_server_url_with_a_bad_host_or_port_is_a_usage_error(url):
    with pytest.raises(UsageError, match="not an http"):
        server_label(url)
