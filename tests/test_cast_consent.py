"""Where a cast member's voice comes from: `consent:` and `voice_source:` in the cast, the
warnings of `drama check` for the drama3 engine, `--strict-consent`, and cache keys that
do not change with them."""

from __future__ import annotations

import json

import numpy as np
import soundfile as sf
from fakes import write_dedented

from drama_cli.cli import main
from drama_cli.compile.conversations import compile_scene
from drama_cli.script.document import Consent, VoiceSource
from drama_cli.script.load import load_script
from drama_cli.takes.jobs import RenderSettings, cache_key, job_from_plan
from drama_cli.takes.keys import ReferenceHasher

SCRIPT = """\
    cast:
      MARGOT:
        voice: margot.wav
        transcript: We leave at six.{margot}
      DESMOND:
        voice: desmond.wav
        transcript: Go on then.{desmond}
      LANE: {{}}
    scenes:
      - id: s1
        lines:
          - MARGOT: We leave at six.
          - DESMOND: Fine.
          - LANE: Yes, sir.
"""
CONSENT = "\n        consent: {by: Margot Reyes, on: 2026-11-02, note: signed release}"
SOURCE = "\n        voice_source: {kind: licensed, note: studio voice pack}"


def project(tmp_path, margot: str = "", desmond: str = ""):
    for name in ("margot", "desmond"):
        sf.write(tmp_path / f"{name}.wav", np.full(44_100, 0.1, np.float32), 44_100)
    return write_dedented(tmp_path, "play.yaml", SCRIPT.format(margot=margot, desmond=desmond))


def test_consent_and_voice_source_are_read_from_the_cast(tmp_path):
    script = load_script(project(tmp_path, CONSENT, "\n        voice_source: own"))
    assert script.cast["MARGOT"].consent == Consent("Margot Reyes", "2026-11-02", "signed release")
    assert script.cast["DESMOND"].voice_source == VoiceSource("own")
    assert script.cast["MARGOT"].voice_record() == {
        "consent": {"by": "Margot Reyes", "on": "2026-11-02", "note": "signed release"}
    }
    assert script.cast["LANE"].voice_record() is None


def test_check_warns_per_cloned_member_without_consent_or_source(tmp_path, capsys):
    path = project(tmp_path, CONSENT)
    assert main(["check", str(path)]) == 0
    out, err = capsys.readouterr()
    assert "margot.wav  (consent given by Margot Reyes on 2026-11-02 (signed release))" in out
    assert (
        "DESMOND's reference clip is cloned by drama3 with neither consent nor voice_source given"
        in err
    )
    assert "MARGOT's reference" not in err and "LANE's reference" not in err
    assert err.count("cloned by drama3") == 1


def test_strict_consent_makes_the_warning_an_error_at_the_member(tmp_path, capsys):
    path = project(tmp_path, CONSENT)
    assert main(["check", str(path), "--strict-consent"]) == 2
    err = capsys.readouterr().err
    assert (
        f"{path}:6:3: DESMOND's reference clip is cloned by drama3" in err
        and "Traceback" not in err
    )
    assert main(["check", str(project(tmp_path, CONSENT, SOURCE)), "--strict-consent"]) == 0


def test_the_scratch_engine_is_exempt(tmp_path, capsys):
    path = project(tmp_path)
    assert main(["check", str(path), "--engine", "scratch", "--strict-consent"]) == 0
    assert "cloned by drama3" not in capsys.readouterr().err


def test_check_json_lists_each_members_record(tmp_path, capsys):
    assert main(["check", str(project(tmp_path, CONSENT, SOURCE)), "--json"]) == 0
    cast = {m["name"]: m for m in json.loads(capsys.readouterr().out)["cast"]}
    assert cast["DESMOND"]["voice_source"] == {"kind": "licensed", "note": "studio voice pack"}
    assert cast["MARGOT"]["consent"]["on"] == "2026-11-02" and "consent" not in cast["LANE"]


def test_bad_consent_fields_are_one_line_errors_at_their_place(tmp_path, capsys):
    cases = [
        ("\n        consent: {by: Margot}", "consent of MARGOT needs 'on'"),
        (
            "\n        consent: {by: Margot, on: 2 Nov}",
            "consent date '2 Nov' of MARGOT is not a date",
        ),
        ("\n        consent: yes", "consent of MARGOT must be a mapping"),
        (
            "\n        voice_source: cloned",
            "voice_source 'cloned' of MARGOT is not one of own, licensed",
        ),
        ("\n        voice_source: {note: x}", "voice_source of MARGOT needs 'kind'"),
    ]
    for text, message in cases:
        assert main(["check", str(project(tmp_path, text))]) == 2, text
        err = capsys.readouterr().err
        assert message in err and f"{tmp_path / 'play.yaml'}:" in err and "Traceback" not in err


def test_consent_and_voice_source_are_not_in_any_cache_key(tmp_path):
    def keys(margot: str, desmond: str) -> list[str]:
        script = load_script(project(tmp_path, margot, desmond))
        settings = RenderSettings(mode="clone", seed=1)
        return [
            cache_key(
                job_from_plan(plan),
                {"engine": "drama3", "revision": "r"},
                settings,
                ReferenceHasher(),
            )
            for plan in compile_scene(script, "s1", "clone")
        ]

    assert keys("", "") == keys(CONSENT, SOURCE)


def test_takes_json_gives_each_take_its_provenance(tmp_path, capsys):
    from engine.files import file_sha256

    path = project(tmp_path, CONSENT)
    assert main(["render", str(path), "--engine", "scratch", "--line", "s1-1"]) in (
        0,
        1,
    )  # 1: lines left out of the mix
    capsys.readouterr()
    assert main(["takes", str(path), "--line", "s1-1", "--json"]) == 0
    provenance = json.loads(capsys.readouterr().out)[0]["takes"][0]["provenance"]
    assert provenance["engine"] == "scratch" and isinstance(provenance["seed"], int)
    assert provenance["references"] == [
        {"path": "margot.wav", "sha256": file_sha256(tmp_path / "margot.wav")}
    ]
    assert provenance["voice"]["consent"]["by"] == "Margot Reyes"
