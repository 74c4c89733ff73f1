"""`drama studio` on the command line: bad input is one line and exit 2; the server prints its
link, answers it, and Ctrl-C stops it with exit 130."""

import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from fakes import SHORT_SCRIPT, single_error_line

from drama_cli.cli import main
from drama_cli.studio.command import is_loopback, open_socket, page_url

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def script(tmp_path):
    path = tmp_path / "short.yaml"
    path.write_text(SHORT_SCRIPT, encoding="utf-8")
    return path


def test_the_studio_needs_a_script_file(capsys):
    assert main(["studio", "-", "--no-open"]) == 2
    assert "needs a script file" in single_error_line(capsys)


def test_a_port_out_of_range_is_refused(script, capsys):
    assert main(["studio", str(script), "--no-open", "--port", "70000"]) == 2
    assert "--port must be between 0 and 65535" in single_error_line(capsys)


def test_a_port_in_use_is_refused_in_one_line(script, capsys):
    taken = open_socket("127.0.0.1", 0)
    try:
        port = taken.getsockname()[1]
        assert main(["studio", str(script), "--no-open", "--port", str(port)]) == 2
        assert f"cannot serve on 127.0.0.1:{port}" in single_error_line(capsys)
    finally:
        taken.close()


def test_a_bad_script_is_reported_with_its_position(tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text("title: x\ncast:\n  A: {}\nscenes:\n  - id: s1\n    lines:\n      - C: Who?\n")
    assert main(["studio", str(path), "--no-open"]) == 2
    assert single_error_line(capsys).startswith(f"drama: {path}:7:")


def test_the_server_answers_its_link_and_stops_on_ctrl_c_with_exit_130(script):
    child = subprocess.Popen(
        [sys.executable, "-m", "drama_cli.cli", "studio", str(script), "--no-open"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        first = child.stdout.readline()
        assert first.startswith("drama studio: http://127.0.0.1:")
        url = first.split(": ", 1)[1].strip()
        with urllib.request.urlopen(url, timeout=10) as page:
            assert b"drama studio" in page.read()
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(url.split("?")[0] + "api/script", timeout=10)
        assert refused.value.code == 403
        child.send_signal(signal.SIGINT)
        assert child.wait(timeout=15) == 130
        assert "interrupted" in child.stderr.read()
    finally:
        if child.poll() is None:
            child.kill()


@pytest.mark.parametrize("when", ["at the link", "while serving"])
def test_ctrl_c_stops_the_studio_with_exit_130_even_when_it_started_with_sigint_ignored(
    script, when
):
    # A background job (or a test runner's worker) starts with SIGINT ignored; uvicorn hands the
    # signal back to the handler it found, so the exit once depended on how the process began.
    child = subprocess.Popen(
        [sys.executable, "-m", "drama_cli.cli", "studio", str(script), "--no-open"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    try:
        url = child.stdout.readline().split(": ", 1)[1].strip()
        if when == "while serving":  # the page answers: uvicorn holds SIGINT now
            with urllib.request.urlopen(url, timeout=10) as page:
                assert b"drama studio" in page.read()
        child.send_signal(signal.SIGINT)
        assert child.wait(timeout=15) == 130
        assert child.stderr.read().strip().splitlines()[-1] == (
            "drama: interrupted: every take and selection made in the studio is kept"
        )
    finally:
        if child.poll() is None:
            child.kill()


def test_an_empty_host_is_refused_rather_than_serving_every_interface(script, capsys):
    assert main(["studio", str(script), "--no-open", "--host", ""]) == 2
    assert "--host needs an address" in single_error_line(capsys)


@pytest.mark.parametrize(
    "host, url",
    [("127.0.0.1", "http://127.0.0.1:8765/?token=T"), ("::1", "http://[::1]:8765/?token=T")],
)
def test_the_printed_link_is_a_valid_url_for_ipv4_and_ipv6_hosts(host, url):
    assert page_url(host, 8765, "T") == url


def test_a_project_folder_that_cannot_be_made_is_refused_before_serving(
    script, tmp_path, capsys, monkeypatch
):
    monkeypatch.setattr(
        "drama_cli.studio.command.serve",
        lambda app, listener: pytest.fail("served a project it cannot write"),
    )
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    assert main(["studio", str(script), "--no-open", "--out", str(blocked / "project")]) == 2
    assert single_error_line(capsys) == (
        f"drama: cannot create project folder {blocked / 'project'}: Not a directory"
    )


@pytest.mark.parametrize(
    "host, local",
    [
        ("127.0.0.1", True),
        ("::1", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("192.168.1.5", False),
        ("studio.example", False),
    ],
)
def test_only_an_address_other_machines_can_reach_is_warned_about(host, local):
    assert is_loopback(host) is local
