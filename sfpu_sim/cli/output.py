"""How the ``sfpu-sim`` command writes: one policy for every command, applied here once.

Owns: standard output and standard error while a command runs, the console each command
prints with, the one-line error, warning and interruption messages, and what Ctrl-C does to
the process. Knows nothing of what the commands print.

- **Standard output** carries a command's result; under ``--json`` only the JSON (the console
  a command gets then writes to standard error).
- **Text is shown, never obeyed:** the console interprets no rich markup or emoji codes (a
  kernel's provenance ``[/]`` prints as written) and writes control characters as escapes
  (ESC as ``\\x1b``, :func:`sfpu_sim.display.printable`).
- **Width:** tables fit a terminal's width; written to a pipe or a file (no ``$COLUMNS``),
  every row prints whole on one line instead of folding at 80 columns.
- **Any encoding:** a character the stream's encoding lacks (``PYTHONIOENCODING=ascii``) is
  written as a JSON-style ``\\uXXXX`` escape: readable on a terminal, and the same string to a
  JSON reader.
- **A reader that goes away** (``sfpu-sim kernels | head -1``): the rest of the output is
  dropped, nothing is printed, the status is 0, as for any command cut short by ``head``.
- **Standard output that cannot be written** (closed, ``>&-``; a full disk, ``> /dev/full``;
  an I/O error): one line on standard error and status 2, as any other error; a closed one is
  refused before the command runs, as the result would be lost.
- **Ctrl-C:** status 130 and the line ``sfpu-sim: interrupted``. The command unwinds (a report
  index says what is missing); if it has not ended a second after the signal, because the main
  thread is in compiled code, a library's clean-up (a Dask cluster's) or a callback that
  swallowed the interrupt, the process ends then (:func:`end_promptly_on_ctrl_c`).
"""
from __future__ import annotations

import codecs
import contextlib
import os
import signal
import socket
import sys
import threading
import time

from rich.console import Console
from rich.rule import Rule

from sfpu_sim.display import printable
from sfpu_sim.errors import SfpuSimError

INTERRUPTED = 130                  # the shell's code for a run ended by Ctrl-C (128 + SIGINT)
GRACE_S = 1.0                      # how long an interrupted command may take to unwind
REDELIVER_S = 0.01                 # a swallowed Ctrl-C is raised again this much later
ESCAPE = "sfpu-sim-escape"         # the codec error handler for characters an encoding lacks
PLAIN_WIDTH = 1 << 16              # columns of output that is not a terminal: no table folds
RULE_WIDTH = 80                    # a rule's width there


class OutputError(SfpuSimError):
    """Standard output cannot be written (closed, full, an I/O error)."""


class ReaderGone(BaseException):
    """The reader of standard output went away (a broken pipe): the command ends, as a
    KeyboardInterrupt ends it, past any ``except Exception``. Not an OSError: rich's console
    handles BrokenPipeError itself (it exits 1) and must let this one through."""


def _escape_unencodable(error: UnicodeError):
    """``\\uXXXX`` (a surrogate pair beyond U+FFFF) for each character the encoding lacks."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    units = error.object[error.start:error.end].encode("utf-16-be")
    escaped = "".join(f"\\u{int.from_bytes(units[k:k + 2], 'big'):04x}"
                      for k in range(0, len(units), 2))
    return escaped, error.end


codecs.register_error(ESCAPE, _escape_unencodable)


class _CheckedStdout:
    """``sys.stdout`` while a command runs: a failed write becomes :class:`ReaderGone` or
    :class:`OutputError` wherever in the command it happens (print, rich, sys.stdout.write)."""

    def __init__(self, stream):
        self._stream = stream

    def _checked(self, operation, *args):
        try:
            return operation(*args)
        except BrokenPipeError:
            raise ReaderGone from None
        except OSError as error:
            raise OutputError(f"cannot write to standard output: "
                              f"{error.strerror or error}") from None
        except ValueError:                               # "I/O operation on closed file"
            raise OutputError("cannot write to standard output: it was closed") from None

    def write(self, text: str) -> int:
        return self._checked(self._stream.write, text)

    def writelines(self, lines) -> None:
        self._checked(self._stream.writelines, lines)

    def flush(self) -> None:
        self._checked(self._stream.flush)

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _escape_what_cannot_be_encoded(stream) -> None:
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        name = codecs.lookup(encoding).name
    except LookupError:
        name = ""
    if not name.startswith("utf") and hasattr(stream, "reconfigure"):
        with contextlib.suppress(OSError, ValueError):
            stream.reconfigure(errors=ESCAPE)


@contextlib.contextmanager
def command_streams():
    """Standard output and error as every command uses them (the module docstring); on a
    normal end, standard output is flushed and checked here."""
    _ctrl_c["announced"] = False                         # a new command (tests run many)
    if sys.stdout is None:                               # started with standard output closed
        raise OutputError("standard output is closed: the result would be lost (redirect it, "
                          "e.g. > FILE or > /dev/null)")
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            _escape_what_cannot_be_encoded(stream)
    original = sys.stdout
    sys.stdout = _CheckedStdout(original)
    try:
        yield
        sys.stdout.flush()
    finally:
        sys.stdout = original


class TerminalConsole(Console):
    """A rich console that shows every string as written: no markup, no emoji codes, control
    characters escaped. Every string a console renders (print's arguments, table cells and
    titles) passes through :meth:`render_str`.

    On a terminal, tables fit its width. Anywhere else (a pipe, a file) without ``$COLUMNS``,
    rich would assume 80 columns and fold every wider table into fragments: there the console
    is :data:`PLAIN_WIDTH` wide, so each row prints on one line, as wide as it is."""

    def __init__(self, **options):
        super().__init__(markup=False, emoji=False, **options)
        self.plain = ("width" not in options and not self.is_terminal
                      and not os.environ.get("COLUMNS", "").strip())
        if self.plain:
            self.width = PLAIN_WIDTH

    def rule(self, title="", **options) -> None:
        """A rule as wide as a terminal's (80 columns) where the console is plain."""
        if not self.plain:
            return super().rule(title, **options)

        self.print(Rule(title, **options), width=RULE_WIDTH)
        return None

    def render_str(self, text: str, **options):
        text = printable(text)
        if not self.encoding.startswith("utf"):     # escaped before layout: columns line up
            text = text.encode(self.encoding, ESCAPE).decode(self.encoding)
        return super().render_str(text, **options)


def console(json: bool = False) -> TerminalConsole:
    """The console a command prints its text with: standard error under ``--json``."""
    return TerminalConsole(stderr=json)


def _stderr_line(text: str) -> None:
    """One line on standard error; nothing to do if even that cannot be written."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        TerminalConsole(stderr=True).print(printable(text, newlines=False), highlight=False,
                                           soft_wrap=True)


def error(message: str) -> None:
    _stderr_line(f"sfpu-sim: error: {message}")


def deprecation(line: str) -> None:
    """An old spelling's one line (``sfpu-sim: --format is deprecated for report; use
    --files``)."""
    _stderr_line(line)


def show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """``warnings.showwarning``: one line on stderr, like errors, never with source lines."""
    _stderr_line(f"sfpu-sim: warning: {message}")


_announce_lock = threading.Lock()
_ctrl_c = {"seen": False, "announced": False}


def announce_interrupt(*, raw: bool = False) -> None:
    """``sfpu-sim: interrupted``, once, however many paths reach it; ``raw``: straight to file
    descriptor 2, past the stream (and its lock, which the main thread may hold)."""
    with _announce_lock:
        if _ctrl_c["announced"]:
            return
        _ctrl_c["announced"] = True
    if raw:
        with contextlib.suppress(OSError):
            os.write(2, b"sfpu-sim: interrupted\n")
    else:
        _stderr_line("sfpu-sim: interrupted")


def discard_stdout() -> None:
    """After a broken pipe or a write error, point standard output at /dev/null so that the
    interpreter's own flush at exit finds nothing to complain about (process level: the
    command's ``console_main`` only)."""
    try:
        sys.stdout.flush()
        return
    except (OSError, ValueError, AttributeError):
        pass
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        sys.stdout.flush()


def end_promptly_on_ctrl_c() -> None:
    """Process level (``console_main`` only): after Ctrl-C the command unwinds as a
    KeyboardInterrupt; if the process still runs :data:`GRACE_S` later, it ends there with
    status 130. A thread that wakes on the signal itself (``signal.set_wakeup_fd``) keeps that
    promise where Python's handler cannot run: while the main thread is in compiled code, or a
    library's clean-up, or after a callback swallowed the KeyboardInterrupt (numba's compiler
    calls back into Python through ctypes; ctypes reports the exception and carries on, which
    :func:`_after_an_interrupt` turns back into one). Nothing happens where SIGINT is ignored
    (a background job keeps ignoring it) or handled by someone else."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return
    # Ending by os._exit skips multiprocessing's finalizers (a Dask cluster's semaphores): its
    # resource tracker, a process started later with these options, removes them as it should
    # and need not warn about them on the user's terminal after the run has gone.
    sys.warnoptions.append("ignore::UserWarning:multiprocessing.resource_tracker")
    wake, woken = socket.socketpair()
    wake.setblocking(False)
    signal.set_wakeup_fd(wake.fileno(), warn_on_full_buffer=False)
    threading.Thread(target=_deadline, args=(woken, wake), daemon=True,
                     name="sfpu-sim-ctrl-c").start()      # holds ``wake`` open as long
    sys.unraisablehook = _after_an_interrupt


def end_child_processes() -> None:
    """After Ctrl-C: end the processes this one started through multiprocessing (a Dask
    cluster's workers) now, as a terminal's Ctrl-C reaches them too, rather than let them log
    their lost connections on the user's terminal until they notice their parent has gone."""
    if "multiprocessing" not in sys.modules:
        return
    try:                  # from the deadline thread too: the main thread may be changing them
        children = sys.modules["multiprocessing"].active_children()
    except Exception:                               # noqa: BLE001 - leaving, whatever happens
        return
    for child in children:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            child.kill()


def _deadline(woken: socket.socket, wake: socket.socket) -> None:
    while signal.SIGINT not in (signals := woken.recv(64)):
        if not signals:                      # the other end closed: no signal will come
            return
    _ctrl_c["seen"] = True
    time.sleep(GRACE_S)
    end_child_processes()
    announce_interrupt(raw=True)
    with contextlib.suppress(OSError):
        if os.isatty(2):
            os.write(2, b"\x1b[?25h")       # a progress display hid the cursor: show it again
    os._exit(INTERRUPTED)


def interrupt_seen() -> bool:
    """Whether Ctrl-C has reached this process (:func:`end_promptly_on_ctrl_c` watches for it).
    A library the interrupt cut short may then fail in its own way (numba, caching an object
    the swallowed interrupt left uncompiled, raises RuntimeError): that is the interrupt's
    consequence, not a fault to report."""
    return _ctrl_c["seen"]


def _after_an_interrupt(unraisable) -> None:
    """``sys.unraisablehook``: a KeyboardInterrupt that a callback or finalizer could not raise
    is delivered to the main thread again; after Ctrl-C, the complaints of objects the
    interrupt left half-built (llvmlite's, at garbage collection) are not the user's news."""
    if issubclass(unraisable.exc_type, KeyboardInterrupt):
        _ctrl_c["seen"] = True
        if not _ctrl_c["announced"]:            # from another thread: not into this callback
            threading.Timer(REDELIVER_S, signal.pthread_kill,
                            (threading.main_thread().ident, signal.SIGINT)).start()
        return
    if _ctrl_c["seen"] or _ctrl_c["announced"]:
        return
    sys.__unraisablehook__(unraisable)
