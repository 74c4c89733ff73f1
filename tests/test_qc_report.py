"""`drama qc` on a scratch-rendered project whose selected takes were swapped for real audio
with known faults (another character's voice, a substituted run of words, noise): the rows
of the exception report, their sort order and reasons, the cache that makes a second run
measure nothing, the CSV, the escaping of the HTML page and the page in a real browser."""

from __future__ import annotations

import csv
import json
import shutil
import textwrap
from pathlib import Path

import numpy as np
import pytest

from drama_cli.backends.scratch import ScratchBackend
from drama_cli.cli import main
from drama_cli.qc.report import report_html
from drama_cli.takes.store import TakeStore

pytest.importorskip("resemblyzer")
pytest.importorskip("speechmos")

REFS = Path(__file__).resolve().parent.parent / "scripts_examples" / "refs"
LINES = {
    "hall-1": ("NARRATOR", "The house stood at the end of a long and quiet lane by the river."),
    "hall-2": ("MR BENNET", "I shall be in the library with my books if anyone needs me today."),
    "hall-3": ("NARRATOR", "She walked to the window and watched the rain fall on the garden."),
    "hall-4": ("NARRATOR", "Nobody in the village had ever seen such a carriage before that day."),
    "hall-5": (
        "MRS BENNET",
        "What a <slow>fine</slow> & pleasant evening this has turned out to be for us.",
    ),
}


def _script(folder: Path) -> Path:
    for name in ("narrator", "mr-bennet", "mrs-bennet"):
        shutil.copy(REFS / f"{name}.wav", folder / f"{name}.wav")
    cast = {
        "NARRATOR": ("narrator", "The house stood at the end of a long and quiet lane."),
        "MR BENNET": ("mr-bennet", "I shall be in the library if anyone needs me."),
        "MRS BENNET": ("mrs-bennet", "I have the most wonderful news for all of you."),
    }
    members = "".join(
        f"  {name}:\n    voice: {clip}.wav\n    voice_source: synthetic\n    transcript: {words}\n"
        for name, (clip, words) in cast.items()
    )
    lines = "".join(f"      - {speaker}: {json.dumps(text)}\n" for speaker, text in LINES.values())
    path = folder / "hall.yaml"
    path.write_text(
        textwrap.dedent("title: The Hall\ncast:\n")
        + members
        + "scenes:\n  - id: hall\n    lines:\n"
        + lines,
        encoding="utf-8",
    )
    return path


def _swap(store: TakeStore, line_id: str, audio: np.ndarray) -> None:
    """Store `audio` as a new take of `line_id` with the selected take's record and select it."""
    old = store.selected_take("hall", line_id)
    record = {
        k: v
        for k, v in old.record.to_json().items()
        if k not in ("take", "samples", "duration_s", "wav_sha256", "created")
    }
    store.select("hall", line_id, store.add_take("hall", line_id, audio, record), by="user")


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    folder = tmp_path_factory.mktemp("qc")
    script = _script(folder)
    assert main(["render", str(script), "--engine", "scratch"]) in (0, 3)
    store = TakeStore(folder / "hall.drama")
    scratch = ScratchBackend()
    # hall-2 voiced by Mrs Bennet's voice; hall-3 says other words from "and watched" on;
    # hall-4 under white noise at 5 dB SNR
    _swap(store, "hall-2", scratch.render_text(LINES["hall-2"][1], "MRS BENNET", seed=4))
    wrong = "She walked to the window, then sang loudly about seven purple elephants dancing."
    _swap(store, "hall-3", scratch.render_text(wrong, "NARRATOR"))
    clean = scratch.render_text(LINES["hall-4"][1], "NARRATOR")
    noise = np.random.default_rng(1).standard_normal(clean.size).astype(np.float32)
    noisy = clean + noise * np.float32(np.sqrt(np.mean(clean**2) / 10**0.5))
    _swap(store, "hall-4", np.clip(noisy, -1, 1))
    return script, store


def _qc(capsys, script: Path, *args: str) -> dict:
    capsys.readouterr()
    assert main(["qc", str(script), "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_report_lists_each_fault_with_its_reason_most_severe_first(project, capsys):
    pytest.importorskip("faster_whisper")
    script, store = project
    found = _qc(capsys, script, "--min-quality", "2.5", "--workers", "2")
    rows = {row["line"]: row for row in found["attention"]}
    assert set(rows) == {"hall-2", "hall-3", "hall-4"}, found["attention"]
    assert rows["hall-2"]["similarity"] < 0.8 and "voice: similarity" in rows["hall-2"]["reason"]
    assert rows["hall-3"]["wer"] > 0.25 and rows["hall-3"]["reason"].startswith("words: ")
    assert rows["hall-4"]["mos"] < 2.5 and "quality: naturalness" in rows["hall-4"]["reason"]
    assert all(row["severity"] == "review" for row in rows.values())
    assert found["measured"] == 20 and found["lines"] == 5
    # more failed checks first, then the lowest voice similarity
    order = [row["line"] for row in found["attention"]]
    ranked = sorted(rows.values(), key=lambda r: (-len(r["reason"].split("; ")), r["similarity"]))
    assert order == [row["line"] for row in ranked]
    clean = _qc(capsys, script, "--checks", "voice,quality", "--min-quality", "0")
    assert clean["measured"] == 0 and clean["cached"] == 10
    # no floor: the MOS is shown only; the noise also pulls the noisy take's voice under 0.80
    assert {row["line"] for row in clean["attention"]} == {"hall-2", "hall-4"}
    assert not any("quality" in row["reason"] for row in clean["attention"])
    assert all(row["mos"] is not None for row in clean["attention"])
    table = list(csv.DictReader((store.root / "qc-report.csv").open(encoding="utf-8")))
    assert [row["line"] for row in table] == [row["line"] for row in clean["attention"]]
    by_line = {row["line"]: row for row in table}
    assert float(by_line["hall-2"]["similarity"]) == pytest.approx(
        rows["hall-2"]["similarity"], abs=1e-4
    )


def test_a_second_run_measures_nothing_and_a_new_threshold_needs_no_measurement(project, capsys):
    script, _ = project
    first = _qc(capsys, script, "--checks", "signal,voice")
    again = _qc(capsys, script, "--checks", "signal,voice", "--min-similarity", "0.95")
    assert again["measured"] == 0 and again["cached"] == 10
    assert len(again["attention"]) > len(first["attention"])
    assert all(row["similarity"] < 0.95 for row in again["attention"])
    _qc(capsys, script, "--checks", "signal,voice", "--min-similarity", "0.8")  # the default


def test_the_limits_given_once_stay_with_the_project(project, capsys):
    script, store = project
    strict = _qc(capsys, script, "--checks", "voice", "--min-similarity", "0.95")
    assert store.project()["qc"] == {"min_similarity": 0.95}
    # later runs, and renders, use the project's limits until others are given
    again = _qc(capsys, script, "--checks", "voice")
    assert again["attention"] == strict["attention"]
    assert main(["render", str(script), "--engine", "scratch", "--json"]) in (0, 3)
    assert store.project()["qc"] == {"min_similarity": 0.95}
    _qc(capsys, script, "--checks", "voice", "--min-quality", "2")
    assert store.project()["qc"] == {"min_similarity": 0.95, "min_quality": 2.0}
    _qc(capsys, script, "--checks", "voice", "--min-similarity", "0.8")
    assert store.project()["qc"] == {"min_quality": 2.0}
    _qc(capsys, script, "--checks", "voice", "--min-quality", "0")  # no floor
    assert "qc" not in store.project()
    info = store.project()
    store.write_project({**info, "qc": {"min_similarity": "high"}})
    assert main(["qc", str(script), "--checks", "voice"]) == 2
    assert "saved qc settings: min_similarity is not a number" in capsys.readouterr().err
    store.write_project({key: value for key, value in info.items() if key != "qc"})


def test_bad_qc_options_are_one_line_and_exit_2(project, capsys):
    script, _ = project
    assert main(["qc", str(script), "--checks", "voice,smell"]) == 2
    assert "unknown check 'voice,smell'" in capsys.readouterr().err
    assert main(["qc", str(script), "--min-similarity", "2"]) == 2
    assert main(["qc", str(script), "--chapter", "9"]) == 2
    assert "no chapter 9 (chapters: " in capsys.readouterr().err


def test_the_page_escapes_the_scripts_text_and_links_the_take_and_reference(project, capsys):
    script, store = project
    _qc(capsys, script, "--checks", "voice", "--min-similarity", "0.99")
    page = (store.root / "qc-report.html").read_text(encoding="utf-8")
    assert "What a &lt;slow&gt;fine&lt;/slow&gt; &amp; pleasant" in page and "<slow>" not in page
    assert 'src="hall/hall-2/take-' in page and 'src="../mr-bennet.wav"' in page
    assert "#scene=hall&amp;line=hall-2" in page


def test_an_empty_report_says_every_line_passed(tmp_path):
    from drama_cli.qc.project_qc import QcRun

    page = report_html(QcRun([], ("voice",)), tmp_path, "QC: <none>")
    assert "Every line passed its checks." in page and "QC: &lt;none&gt;" in page


def test_the_report_page_opens_in_a_real_browser(project, capsys):
    chromium, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if chromium is None or driver_path is None:
        pytest.skip("needs Debian's chromium and chromium-driver")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    script, store = project
    _qc(capsys, script, "--checks", "signal,voice", "--min-similarity", "0.9")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(flag)
    browser = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        browser.get((store.root / "qc-report.html").as_uri())
        rows = browser.find_elements(By.CSS_SELECTOR, "#exceptions tbody tr")
        assert {row.get_attribute("data-line") for row in rows} >= {"hall-2", "hall-4"}
        sims = [float(r.find_elements(By.CSS_SELECTOR, "td.score")[0].text) for r in rows]
        assert sims == sorted(sims) and sims[-1] < 0.9
        duration = browser.execute_script(
            "const a = document.querySelector('#exceptions audio');"
            "return new Promise(done => { a.onloadedmetadata = () => done(a.duration);"
            " a.onerror = () => done(-1); a.load(); });"
        )
        assert duration > 1.0  # the take's player loads the take's file
        summary = browser.find_element(By.ID, "summary").text
        assert summary.startswith(f"{len(rows)} of 5 lines need attention")
    finally:
        browser.quit()
