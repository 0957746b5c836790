"""ferrox doctor: not built yet."""

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", nargs="?")


def execute(args: argparse.Namespace) -> int:
    print("ferrox doctor: not built yet", file=sys.stderr)
    return 1
