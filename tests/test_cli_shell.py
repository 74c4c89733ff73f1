from drama_cli.cli import main


def test_version_prints_and_exits_zero(capsys):
    assert main(["version"]) == 0
    assert capsys.readouterr().out.strip() == "0.1.0"


def test_unknown_command_is_a_usage_error():
    assert main(["no-such-verb"]) == 2


def test_a_command_raising_exit_code_3_makes_main_return_3(monkeypatch):
    import typer

    import drama_cli.cli as cli

    app = typer.Typer(pretty_exceptions_enable=False)

    @app.command("degraded")
    def degraded() -> None:
        raise typer.Exit(3)

    @app.command("fine")
    def fine() -> None:
        pass

    monkeypatch.setattr(cli, "app", app)
    assert cli.main(["degraded"]) == 3
    assert cli.main(["fine"]) == 0


def test_version_flag_prints_the_version(capsys):
    from drama_cli import __version__

    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == __version__


def test_help_paragraphs_are_one_line_each_so_they_never_break_mid_sentence():
    import typer

    from drama_cli.commands import register_all

    app = typer.Typer()
    register_all(app)
    helps = {info.name: info.help for info in app.registered_commands}
    assert (
        helps["compile"]
        .split("\n\n")[1]
        .startswith(
            "Audio rows are estimated from reference durations at 44,100/2048 frames per second; the "
            "total cost per line sums both."
        )
    )
    for name, text in helps.items():
        assert text and all("\n" not in paragraph for paragraph in text.split("\n\n")), name


def test_main_called_many_times_registers_each_command_once(capsys):
    import drama_cli.cli as cli

    main(["version"])
    registered = len(cli.app.registered_commands)
    for _ in range(3):
        assert main(["version"]) == 0
    assert len(cli.app.registered_commands) == registered
    names = [info.name or info.callback.__name__ for info in cli.app.registered_commands]
    assert len(names) == len(set(names))


def test_version_takes_json_like_every_command_that_reports(capsys):
    import json

    from drama_cli import __version__

    assert main(["version", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"version": __version__}
