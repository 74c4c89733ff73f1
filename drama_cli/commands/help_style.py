"""How `--help` reads: arguments in capitals (`Usage: drama render [OPTIONS] SCRIPT`), flags
without a type beside them, and help texts shown as written (rich markup in them is not
interpreted). `register_all` gives every command `TidyHelpCommand`; the app and its groups are
made with `cls=TidyHelpGroup`."""

from __future__ import annotations

from rich.markup import escape
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption


class _TidyHelp:
    """The shared part of `TidyHelpCommand` and `TidyHelpGroup`."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.help = self.help and escape(self.help)
        self.short_help = self.short_help and escape(self.short_help)
        for param in self.params:
            param.help = param.help and escape(param.help)
            _name_value(param)

    def get_help_option(self, ctx):
        option = super().get_help_option(ctx)
        if option is not None:
            _name_value(option)
        return option


VALUE_NAMES = {
    "str": "TEXT",
    "int": "INTEGER",
    "float": "NUMBER",
    "path": "PATH",
    "file": "FILE",
    "directory": "FOLDER",
}


def _name_value(param) -> None:
    """An argument's name in capitals with no type beside it; no value name for a flag; an
    option's value named as click names it (TEXT, INTEGER, NUMBER, PATH), a repeatable one
    by its element, one of several values each (`TEXT TEXT`), instead of Python's type
    (`<list[str]>`)."""
    if isinstance(param, TyperArgument):
        param.metavar = param.metavar or param.name.upper()
        param.display_type_rich = lambda ctx: None
    elif isinstance(param, TyperOption) and param.is_flag:
        param.metavar = param.metavar if param.metavar is not None else ""
    elif isinstance(param, TyperOption):
        typed = param.display_type

        def plain(ctx, typed=typed):
            label = typed(ctx).strip("<>")
            label = label[5:-1] if label.startswith("list[") else label
            return " ".join(VALUE_NAMES.get(part, part.upper()) for part in label.split(","))

        param.display_type_rich = plain


def usage_name(argument: TyperArgument) -> str:
    """An argument as the usage line shows it: `SCRIPT`, `[LINE]` when optional, `...` after
    one that takes several values."""
    name = argument.metavar or argument.name.upper()
    name = name if argument.required else f"[{name}]"
    return name + ("..." if argument.nargs != 1 else "")


class TidyHelpCommand(_TidyHelp, TyperCommand):
    """A command whose `--help` reads as described in this module."""

    def collect_usage_pieces(self, ctx) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            pieces += (
                [usage_name(param)]
                if isinstance(param, TyperArgument)
                else param.get_usage_pieces(ctx)
            )
        return pieces


class TidyHelpGroup(_TidyHelp, TyperGroup):
    """A command group whose `--help` reads as described in this module."""
