"""Subcommands of the `ferrox` command; each has `add_arguments(parser)` and `execute(args)`."""
