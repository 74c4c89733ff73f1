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
