from drama_cli.cli import main


def test_version_prints_and_exits_zero(capsys):
    assert main(["version"]) == 0
    assert capsys.readouterr().out.strip() == "0.1.0"


def test_unknown_command_is_a_usage_error():
    assert main(["no-such-verb"]) == 2
