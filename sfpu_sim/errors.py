"""Errors users can cause. Each carries one line naming the place (file:line, field, range);
the CLI prints that line and exits non-zero, never a traceback."""


class SfpuSimError(Exception):
    """Base class of every error a user's input can cause."""

    exit_code = 2
