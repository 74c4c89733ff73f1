"""The studio in a real headless browser (Debian's chromium and chromium-driver, driven by
selenium) over a scratch-rendered project: the page loads, a take plays to its end, a revise
with a note makes a take that appears, the keyboard selects it and `drama takes` reports it,
and a line whose script text changed shows as stale, its text shown as text even where it
reads like HTML; a selection answering late draws over no line opened since, and a line
drawn again fetches no waveform twice; a line opened from the scene view plays its own takes
and takes are selected, revised and edited in the line view only; the dialog takes no longer
note or text than the server accepts, the keys work after the filter was clicked, and no
waveform is drawn again while nothing plays; a line of many takes loads only the waveforms in
view; a note refused by the server is kept for the next try; an older script view answering
last is not drawn; space in the scene view plays the mix and the A/B keys leave it shown;
keys move nothing behind the list of keys; a key pressed as the dialog closes, the focus still
in its text box, reaches the page. The Cast view auditions a designed voice, plays a candidate
and locks it into the cast file, and no line view answering late draws over it; the Attribution
view of an imported novel writes the speaker chosen into the script file, the line's id kept
and its candidates comment gone. One browser session for the module.

Set DRAMA_STUDIO_SCREENSHOT=FILE to keep the picture of the line view the test takes."""

import contextlib
import json
import os
import shutil
import threading
import time

import pytest
from fakes import REFS, SHORT_SCRIPT

from drama_cli.backends.registry import make_backend
from drama_cli.cli import main
from drama_cli.render.scheduler import render_script
from drama_cli.script.load import load_script
from drama_cli.studio.actions import MAX_NOTE_CHARS, MAX_TEXT_CHARS
from drama_cli.studio.app import Studio, make_app
from drama_cli.studio.command import open_socket
from drama_cli.studio.project import StudioProject
from drama_cli.takes.jobs import RenderSettings
from drama_cli.takes.store import TakeStore

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None,
    reason="needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)",
)
TOKEN = "browser-test-token"


@contextlib.contextmanager
def serving(path, scratch):
    """The project of the script `path` served by a studio on a free port, voiced by the
    backend `scratch`: its url."""
    import uvicorn

    studio = Studio(StudioProject(str(path), None, load_script), lambda: scratch)
    listener = open_socket("127.0.0.1", 0)
    server = uvicorn.Server(
        uvicorn.Config(make_app(studio, TOKEN), log_level="warning", lifespan="off")
    )
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(5)
        studio.close()


@pytest.fixture(scope="module")
def scratch():
    return make_backend(engine="scratch", model=None, device=None, gpu_memory=None)


@pytest.fixture(scope="module")
def served(tmp_path_factory, scratch):
    """A scratch-rendered two-line project served by a studio on a free port: (url, script
    path)."""
    folder = tmp_path_factory.mktemp("studio-browser")
    path = folder / "short.yaml"
    path.write_text(SHORT_SCRIPT, encoding="utf-8")
    render_script(
        load_script(str(path)), TakeStore(folder / "short.drama"), scratch, RenderSettings()
    )
    with serving(path, scratch) as url:
        yield url, path


@pytest.fixture(scope="module")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--autoplay-policy=no-user-gesture-required",
        "--window-size=1280,800",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    yield driver
    driver.quit()


def wait(browser, condition, what, timeout_s=20.0):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(browser, timeout_s, poll_frequency=0.05).until(
        lambda driver: condition(driver), message=what
    )


def press(browser, keys):
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(browser).send_keys(keys).perform()


def statuses(browser):
    return browser.execute_script(
        "return [...document.querySelectorAll('nav li')].map(li => [li.dataset.line, li.dataset.status])"
    )


def test_the_page_plays_revises_selects_by_keyboard_and_shows_stale_lines(served, browser, capsys):
    url, path = served
    browser.get(f"{url}/?token={TOKEN}")
    wait(
        browser, lambda d: statuses(d) == [["s1-1", "current"], ["s1-2", "current"]], "script view"
    )
    assert "token" not in browser.current_url  # kept in the cookie, not in the address bar
    wait(browser, lambda d: d.find_elements("css selector", "#take-1 canvas.wave"), "line view")

    press(browser, " ")  # play the selected take of the first line
    ended = (
        "const a = document.querySelector('audio[data-take=\"1\"]'); return [a.duration, a.ended]"
    )
    duration, _ = wait(browser, lambda d: (r := d.execute_script(ended))[1] and r, "take 1 ends")
    assert duration > 0.3

    press(browser, "r")
    wait(browser, lambda d: d.find_element("id", "action-text").is_displayed(), "revise dialog")
    browser.find_element("id", "action-text").send_keys("softer, almost a whisper")
    browser.find_element("id", "action-ok").click()
    wait(
        browser,
        lambda d: d.find_elements("id", "take-2"),
        "the revised take in the list",
        timeout_s=30,
    )
    assert "softer, almost a whisper" in browser.execute_script(
        "return document.getElementById('take-2').textContent"
    )
    if os.environ.get("DRAMA_STUDIO_SCREENSHOT"):
        browser.save_screenshot(os.environ["DRAMA_STUDIO_SCREENSHOT"])

    press(browser, "2")
    selected = "return document.getElementById('take-2').classList.contains('selected')"
    wait(browser, lambda d: d.execute_script(selected), "take 2 selected")
    capsys.readouterr()
    assert main(["takes", str(path), "--line", "s1-1", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)[0]["takes"]
    assert [take["take"] for take in listed if take["selected"]] == [2]

    changed = "We always said <img src=x onerror=alert(1)> goodbye."
    path.write_text(SHORT_SCRIPT.replace("We never said goodbye.", changed))
    os.utime(path, ns=(time.time_ns() + 10**9,) * 2)
    wait(
        browser,
        lambda d: statuses(d) == [["s1-1", "current"], ["s1-2", "stale"]],
        "the changed line shown as stale",
    )
    shown = (
        "return [document.querySelector('li[data-line=\"s1-2\"] .text').textContent, "
        "document.querySelectorAll('nav img').length]"
    )
    assert browser.execute_script(shown) == [changed, 0]  # the line's text as text, never HTML

    press(browser, "s")  # the scene view: one block per line on the mix timeline
    blocks = "return [...document.querySelectorAll('.block')].map(b => b.dataset.line)"
    wait(browser, lambda d: d.execute_script(blocks) == ["s1-1", "s1-2"], "the scene timeline")

    # the view asked for last is the one drawn, even when an earlier one answers later (a refresh
    # of the line view still loading must not cover the scene view asked for after it)
    browser.execute_script("""
        const realFetch = window.fetch;
        window.fetch = (url, ...rest) => new Promise((done) => setTimeout(done,
            String(url).startsWith('/api/line') ? 800 : 0)).then(() => realFetch(url, ...rest));
        showLine(state.current);""")
    press(browser, "s")
    wait(
        browser,
        lambda d: d.execute_script(blocks) == ["s1-1", "s1-2"],
        "the scene view asked for last",
    )
    time.sleep(1.2)  # the slow line view has answered by now
    assert browser.execute_script(blocks) == ["s1-1", "s1-2"]
    assert browser.execute_script("return state.view") == "scene"


def open_page(served, browser, ready="state.line !== null"):
    """The page of `served` loaded afresh, once `ready` (a JavaScript condition) holds."""
    browser.get(f"{served[0]}/?token={TOKEN}")
    wait(browser, lambda d: d.execute_script(f"return {ready}"), f"the page: {ready}")


def test_a_selection_answering_after_the_next_line_was_opened_does_not_draw_over_it(
    served, browser
):
    open_page(served, browser, "state.line && state.line.line.id === 's1-1'")
    browser.execute_script("""
        window.drawn = [];
        const realDraw = drawLine;
        drawLine = () => { drawn.push(state.line.line.id); realDraw(); };
        const realFetch = window.fetch;
        window.fetch = (url, ...rest) => !String(url).startsWith('/api/select') ?
            realFetch(url, ...rest) : new Promise((done) => setTimeout(done, 600))
                .then(() => realFetch(url, ...rest)).then((r) => { window.answered = true; return r; });
        select(1);
        showLine('s1-2');""")
    wait(
        browser, lambda d: d.execute_script("return window.answered"), "the slow selection's answer"
    )
    time.sleep(0.2)
    assert set(browser.execute_script("return drawn")) == {"s1-2"}
    sources = "return [...document.querySelectorAll('#line audio')].map(a => a.src.split('?')[1])"
    assert all("line=s1-2" in source for source in browser.execute_script(sources))


def test_a_line_drawn_again_fetches_no_waveform_it_already_has(served, browser):
    drawn = (
        "return document.querySelectorAll('#line canvas.wave').length > 0 && "
        "[...document.querySelectorAll('#line canvas.wave')].every(c => c.peaks)"
    )
    open_page(served, browser, drawn.removeprefix("return "))
    browser.execute_script("""
        window.asked = [];
        window.before = state.line;
        const realFetch = window.fetch;
        window.fetch = (url, ...rest) => { asked.push(String(url)); return realFetch(url, ...rest); };
        showLine(state.current);""")
    wait(
        browser, lambda d: d.execute_script("return state.line !== before"), "the line drawn again"
    )
    assert browser.execute_script(drawn)
    assert [u for u in browser.execute_script("return asked") if "/api/peaks" in u] == []


def test_a_line_opened_from_the_scene_view_plays_its_own_takes(served, browser):
    open_page(served, browser, "state.line && state.line.line.id === 's1-1'")
    sources = "return [...document.querySelectorAll('#line audio')].map(a => a.src.split('?')[1])"
    wait(browser, lambda d: any("line=s1-1" in s for s in d.execute_script(sources)), "line s1-1")
    press(browser, "s")
    block = 'document.querySelector(".block[data-line=\\"s1-2\\"]")'
    wait(browser, lambda d: d.execute_script(f"return {block} !== null"), "the scene timeline")
    browser.execute_script(f"{block}.click()")  # plays the mix from s1-2
    browser.execute_script("""
        window.asked = [];
        const realFetch = window.fetch;
        window.fetch = (url, ...rest) => { asked.push(String(url)); return realFetch(url, ...rest); };""")
    press(browser, "1")  # the takes listed are of another line: nothing is selected
    message = "return document.getElementById('message').textContent"
    wait(
        browser,
        lambda d: d.execute_script(message) == "select takes in the line view (s)",
        "selecting refused in the scene view",
    )
    assert not [url for url in browser.execute_script("return asked") if "/api/select" in url]
    press(browser, "e")  # an edit would be prefilled from the other line's words
    wait(
        browser,
        lambda d: d.execute_script(message) == "render, revise and edit in the line view (s)",
        "editing refused in the scene view",
    )
    assert not browser.find_element("id", "action").is_displayed()
    press(browser, "s")  # back to the line: the one clicked
    wait(
        browser,
        lambda d: d.execute_script("return state.view === 'line' && state.line.line.id") == "s1-2",
        "line s1-2",
    )
    shown = browser.execute_script(sources)
    assert shown and all("line=s1-2" in source for source in shown)


def test_the_action_dialog_takes_no_longer_text_than_the_server_accepts(served, browser):
    from selenium.webdriver.common.keys import Keys

    open_page(served, browser)
    longest = {}
    for key in ("r", "e"):
        press(browser, key)
        wait(browser, lambda d: d.find_element("id", "action").is_displayed(), "the dialog")
        longest[key] = browser.execute_script(
            "return document.getElementById('action-text').maxLength"
        )
        press(browser, Keys.ESCAPE)
        wait(
            browser,
            lambda d: not d.find_element("id", "action").is_displayed(),
            "the dialog closed",
        )
    assert longest == {"r": MAX_NOTE_CHARS, "e": MAX_TEXT_CHARS}


def test_the_keys_work_after_the_attention_filter_was_clicked(served, browser):
    open_page(served, browser, "state.line && state.line.line.id === 's1-1'")
    box = browser.find_element("id", "attention")
    box.click()
    box.click()  # filter off again; the focus stays on the checkbox
    press(browser, "j")
    wait(browser, lambda d: d.execute_script("return state.current") == "s1-2", "the next line")


def test_no_waveform_is_drawn_again_while_nothing_plays(served, browser):
    open_page(
        served,
        browser,
        "state.line !== null && "
        "[...document.querySelectorAll('#line canvas.wave')].every(c => c.peaks)",
    )
    browser.execute_script(
        "document.querySelectorAll('#line audio').forEach(a => { a.preload = 'metadata'; })"
    )
    wait(
        browser,
        lambda d: d.execute_script(
            "return [...document.querySelectorAll('#line audio')].every(a => a.duration > 0)"
        ),
        "durations",
    )
    browser.execute_script("""
        window.draws = 0;
        const realDrawWave = drawWave;
        drawWave = (...args) => { draws += 1; return realDrawWave(...args); };""")
    time.sleep(0.3)
    assert browser.execute_script("return draws") == 0


def test_a_line_of_many_takes_loads_only_the_waveforms_in_view_and_no_audio(served, browser):
    _, path = served
    folder = path.parent / "short.drama" / "s1" / "s1-2"
    record = json.loads((folder / "take-001.json").read_text())
    copies = []
    for number in range(2, 41):
        copies += [folder / f"take-{number:03d}.wav", folder / f"take-{number:03d}.json"]
        shutil.copy(folder / "take-001.wav", copies[-2])
        copies[-1].write_text(json.dumps({**record, "take": number, "slot": number - 1}))
    try:
        open_page(served, browser)
        browser.execute_script("showLine('s1-2')")
        wait(
            browser,
            lambda d: (
                d.execute_script("return document.querySelectorAll('#line canvas.wave').length")
                == 40
            ),
            "40 takes listed",
        )
        wait(
            browser,
            lambda d: d.execute_script("return state.peaks.size") > 0,
            "the first waveforms",
        )
        time.sleep(0.3)
        asked = browser.execute_script(
            "return performance.getEntriesByType('resource').map(r => r.name)"
            ".filter(n => n.includes('s1-2'))"
        )
        assert 0 < len([name for name in asked if "/api/peaks" in name]) < 15
        assert [name for name in asked if "/api/audio" in name] == []
    finally:
        for copy in copies:
            copy.unlink()


def test_a_note_refused_by_the_server_is_there_when_the_dialog_opens_again(served, browser):
    open_page(served, browser)
    browser.execute_script("""
        const realFetch = window.fetch;
        window.fetch = (url, ...rest) => !String(url).startsWith('/api/jobs') ? realFetch(url, ...rest) :
            Promise.resolve(new Response(JSON.stringify({error: 'project is in use'}), {status: 409}));""")
    press(browser, "r")
    wait(browser, lambda d: d.find_element("id", "action").is_displayed(), "the revise dialog")
    browser.find_element("id", "action-text").send_keys("warmer, with a smile")
    browser.find_element("id", "action-ok").click()
    message = "return document.getElementById('message').textContent"
    wait(browser, lambda d: d.execute_script(message) == "project is in use", "the refusal")
    press(browser, "r")
    wait(browser, lambda d: d.find_element("id", "action").is_displayed(), "the dialog again")
    assert (
        browser.find_element("id", "action-text").get_attribute("value") == "warmer, with a smile"
    )
    browser.find_element("css selector", "button[value=cancel]").click()


def test_an_older_script_view_answering_last_does_not_draw_over_a_newer_one(served, browser):
    open_page(served, browser, "state.script !== null")
    browser.execute_script("""
        const realFetch = window.fetch;
        let calls = 0;
        window.fetch = (url, ...rest) => {
            if (!String(url).startsWith('/api/script')) return realFetch(url, ...rest);
            const call = ++calls;
            return realFetch(url, ...rest).then((r) => r.json()).then((view) => new Promise((done) =>
                setTimeout(() => done(new Response(JSON.stringify({...view, title: `view ${call}`}))),
                           call === 1 ? 500 : 0)));
        };
        Promise.all([refreshScript(), refreshScript()]).then(() => { window.both = true; });""")
    wait(browser, lambda d: d.execute_script("return window.both === true"), "both answers")
    title = browser.find_element("id", "title").text
    assert title.startswith("view ") and title != "view 1"  # view 1: the older, answering last


def test_space_in_the_scene_view_plays_the_mix_not_a_take(served, browser):
    open_page(served, browser)
    press(browser, "s")
    wait(browser, lambda d: d.find_elements("id", "mix"), "the scene's mix")
    press(browser, " ")
    playing = (
        "return [!document.getElementById('mix').paused, "
        "[...state.audio.values()].some(a => !a.paused)]"
    )
    wait(browser, lambda d: d.execute_script(playing)[0], "the mix playing")
    assert browser.execute_script(playing) == [True, False]
    press(browser, " ")
    assert browser.execute_script(playing) == [False, False]


def test_the_a_b_keys_in_the_scene_view_leave_it_shown(served, browser):
    open_page(served, browser)
    browser.execute_script("state.playing = state.line.takes[0].take")  # a take played before
    press(browser, "s")
    wait(browser, lambda d: d.find_elements("css selector", ".block"), "the scene timeline")
    for key in ("a", "x"):
        press(browser, key)
        wait(
            browser,
            lambda d: (
                d.execute_script("return document.getElementById('message').textContent")
                == "A/B works in the line view (s)"
            ),
            "A/B refused in the scene view",
        )
        browser.execute_script("document.getElementById('message').textContent = ''")
    assert browser.find_elements("css selector", ".block")
    assert not browser.find_elements("css selector", "#line canvas.wave")


def test_keys_pressed_while_the_key_list_is_shown_move_nothing_behind_it(served, browser):
    open_page(served, browser, "state.line && state.line.line.id === 's1-1'")
    press(browser, "?")
    assert browser.find_element("id", "help").is_displayed()
    press(browser, "j")
    time.sleep(0.2)
    assert browser.execute_script("return state.current") == "s1-1"
    press(browser, "?")
    assert not browser.find_element("id", "help").is_displayed()


def test_a_key_pressed_as_the_action_dialog_closes_reaches_the_page(served, browser):
    open_page(served, browser)
    after = browser.execute_script("""
        openAction('revise');
        const dialog = document.getElementById('action');
        dialog.close();  // as Escape or Start close it, before the browser moves the focus out
        const focused = document.activeElement;
        focused.dispatchEvent(new KeyboardEvent('keydown', {key: 'e', bubbles: true}));
        return [focused.id, dialog.open, dialog.dataset.kind];""")
    assert after == ["action-text", True, "edit"]


HARBOUR = """title: Harbour
voice_library: lib
narrator: NARRATOR
cast:
  NARRATOR: {}
  CAPTAIN:
    # the old man
    design: "a gravelly old sea captain"
  BOY:
    gender: male
scenes:
  - id: quay
    lines:
      - action: The tide is turning.
      - CAPTAIN: Fetch the rope, lad, and be quick about it.
      - BOY: Aye, sir.
"""
NOVEL = """THE VISITORS

CHAPTER I

"Good evening," said Mr. Holmes.

"Good evening to you," said Mr. Watson.

"And to you both," said Mr. Lestrade.

The door opened, and the wind came in.

"Well?" he said.

"Shut the door," said Mrs. Hudson.

"Is it raining?" came a voice from the stairs.
"""


@pytest.fixture(scope="module")
def cast_served(tmp_path_factory, scratch):
    """An unrendered project with a designed voice and a library of two voices, served: (url,
    script path)."""
    folder = tmp_path_factory.mktemp("studio-cast")
    path = folder / "harbour.yaml"
    path.write_text(HARBOUR, encoding="utf-8")
    for name, clip, tags, words in [
        (
            "reader",
            "narrator",
            "calm, narrator",
            "The house stood at the end of a long and quiet lane.",
        ),
        (
            "lad",
            "algernon",
            "male, young",
            "The weather in town has been perfectly dreadful all week.",
        ),
    ]:
        args = ["voices", "add", str(REFS / f"{clip}.wav"), "--name", name, "--tags", tags]
        args += ["--transcript", words, "--source", "synthetic", "--library", str(folder / "lib")]
        assert main(args) == 0
    with serving(path, scratch) as url:
        yield url, path


@pytest.fixture(scope="module")
def novel_served(tmp_path_factory, scratch):
    """A short novel imported with its dialogue, two quotes without a sure speaker, served:
    (url, script path)."""
    folder = tmp_path_factory.mktemp("studio-attribution")
    novel = folder / "visitors.txt"
    novel.write_text(NOVEL, encoding="utf-8")
    path = folder / "visitors.yaml"
    assert main(["import", str(novel), "--dialogue", "-o", str(path)]) == 0
    with serving(path, scratch) as url:
        yield url, path


def cast_rows(browser):
    return browser.execute_script(
        "return [...document.querySelectorAll('table.cast tr[data-character]')]"
        ".map(tr => [tr.dataset.character, tr.classList.contains('current')])"
    )


def message(browser):
    return browser.execute_script("return document.getElementById('message').textContent")


def test_a_line_view_answering_after_the_cast_view_was_opened_does_not_draw_over_it(
    cast_served, browser
):
    open_page(cast_served, browser, "state.script !== null && state.line !== null")
    browser.execute_script("""
        window.lineDrawn = 0;
        const realDraw = drawLine;
        drawLine = () => { lineDrawn += 1; realDraw(); };
        const realFetch = window.fetch;
        window.fetch = (url, ...rest) => !String(url).startsWith('/api/line') ?
            realFetch(url, ...rest) : new Promise((done) => setTimeout(done, 600))
                .then(() => realFetch(url, ...rest));
        window.lineDone = false;
        showLine(state.current).then(() => { window.lineDone = true; });""")
    press(browser, "c")
    wait(browser, lambda d: len(cast_rows(d)) == 3, "the cast view")
    wait(browser, lambda d: d.execute_script("return window.lineDone"), "the slow line view")
    assert browser.execute_script("return [lineDrawn, state.view]") == [0, "cast"]
    assert len(cast_rows(browser)) == 3


def test_the_cast_view_auditions_plays_and_locks_a_designed_voice_into_the_cast_file(
    cast_served, browser
):
    _, path = cast_served
    open_page(cast_served, browser, "state.script !== null")
    press(browser, "c")
    wait(
        browser,
        lambda d: cast_rows(d) == [["NARRATOR", True], ["CAPTAIN", False], ["BOY", False]],
        "the cast view",
    )
    proposal = (
        "return document.querySelector('tr[data-character=\"BOY\"] td:nth-child(4)').textContent"
    )
    assert browser.execute_script(proposal) == "lad (male)"
    press(browser, "j")
    wait(browser, lambda d: ["CAPTAIN", True] in cast_rows(d), "CAPTAIN chosen")

    press(browser, "u")
    takes = "return [...document.querySelectorAll('tr.current audio[data-take]')].map(a => a.dataset.take)"
    wait(
        browser,
        lambda d: d.execute_script(takes) == ["1", "2", "3", "4"],
        "4 auditions",
        timeout_s=90,
    )
    assert message(browser) == "CAPTAIN: auditions made"
    folder = path.parent / "harbour.auditions" / "captain"
    assert sorted(p.name for p in folder.glob("take-*.wav")) == [
        f"take-{k}.wav" for k in range(1, 5)
    ]

    press(browser, "l")  # nothing played yet: nothing to lock
    wait(browser, lambda d: message(d) == "play an audition first (1 – 9)", "the lock refused")
    assert path.read_text(encoding="utf-8") == HARBOUR

    press(browser, "2")
    played = "const a = document.querySelector('tr.current audio[data-take=\"2\"]'); return a.currentTime > 0"
    wait(browser, lambda d: d.execute_script(played), "audition 2 playing")
    press(browser, "l")
    wait(browser, lambda d: message(d) == "CAPTAIN locked to take 2", "the lock")
    assert (
        "  CAPTAIN:\n    # the old man\n"
        '    voice: "refs/captain-designed.wav"\n'
        '    transcript: "Fetch the rope, lad, and be quick about it."\n'
        '    voice_source: {kind: synthetic, note: "designed from a description"}\n'
        '    design: "a gravelly old sea captain"\n'
    ) in path.read_text(encoding="utf-8")
    locked = path.parent / "refs" / "captain-designed.wav"
    assert locked.read_bytes() == (folder / "take-2.wav").read_bytes()
    assert (path.parent / "lib" / "harbour-captain.json").is_file()
    voice = "return document.querySelector('tr.current td:nth-child(3)').textContent"
    assert browser.execute_script(voice) == "clip: captain-designed.wav"


def test_the_attribution_view_writes_the_speaker_chosen_into_the_script_file(novel_served, browser):
    _, path = novel_served
    before = load_script(path)
    doubtful = [
        (line.id, line.text)
        for scene in before.scenes
        for line in scene.lines
        if line.speaker == "UNATTRIBUTED"
    ]
    assert [text for _, text in doubtful] == ["Well?", "Is it raining?"]
    source = path.read_text(encoding="utf-8")
    assert source.count("# candidates: ") == 2
    open_page(novel_served, browser, "state.script !== null")
    press(browser, "t")
    listed = (
        "return [...document.querySelectorAll('ol.attribution li')]"
        ".map(li => [li.dataset.line, li.classList.contains('current')])"
    )
    wait(
        browser,
        lambda d: d.execute_script(listed) == [[doubtful[0][0], True], [doubtful[1][0], False]],
        "the attribution view",
    )
    candidates = (
        "return [...document.querySelectorAll('li.current button')].map(b => b.dataset.candidate)"
    )
    press(browser, "j")
    wait(browser, lambda d: d.execute_script(listed)[1][1], "the second line chosen")
    first, _ = browser.execute_script(candidates)
    press(browser, "1")
    wait(
        browser,
        lambda d: d.execute_script(listed) == [[doubtful[0][0], True]],
        "the line given its speaker leaves the view; the one left is chosen",
    )
    after = load_script(path)
    spoken = {line.id: (line.speaker, line.text) for s in after.scenes for line in s.lines}
    assert spoken[doubtful[1][0]] == (first, "Is it raining?")
    row = f'          - {first}: "Is it raining?"\n'
    assert row in path.read_text(encoding="utf-8")
    assert path.read_text(encoding="utf-8").count("# candidates: ") == 1

    first, _ = browser.execute_script(candidates)
    press(browser, "1")
    wait(browser, lambda d: d.find_elements("css selector", "#line p.empty"), "every line spoken")
    spoken = {line.id: line.speaker for s in load_script(path).scenes for line in s.lines}
    assert spoken[doubtful[0][0]] == first
    assert "# candidates: " not in path.read_text(encoding="utf-8")
    assert [line.id for s in load_script(path).scenes for line in s.lines] == [
        line.id for s in before.scenes for line in s.lines
    ]
