"""Report figures kept by what they are drawn from, so that a report whose sweep has not changed
(``report --all`` over an unchanged tree) is not drawn again: matplotlib takes 0.6-1 s to draw
one, the sweep under it 0.07 s.

Owns: the key and the files. A figure's key is the sha256 of everything its drawing reads: the
drawing's name, the report model's JSON, the sweep's per-lane arrays (name, dtype, shape,
bytes), the source of :mod:`sfpu_sim.report.plots` and of every package module it imports
(:func:`sfpu_sim.import_closure.imported_files`), and the matplotlib and numpy versions; figures
are drawn in matplotlib's default style, whatever a ``matplotlibrc`` says
(:func:`sfpu_sim.report.plots.sweep_png`). The file is ``<key>.png`` in
``user_cache("figures")`` (:mod:`sfpu_sim.cache_dirs`), written through a temporary file and a
rename; one that does not hold a whole PNG is drawn again. The cache never fails a report: where
it cannot be read or written, the figure is drawn.
"""
from __future__ import annotations

import functools
import hashlib
from importlib import metadata
from pathlib import Path

import numpy as np

from sfpu_sim.cache_dirs import user_cache
from sfpu_sim.report import plots
from sfpu_sim.report.files import ReportError, atomic_write, json_text
from sfpu_sim.import_closure import imported_files

PNG_START = b"\x89PNG\r\n\x1a\n"
PNG_END = b"IEND\xaeB`\x82"          # the IEND chunk's type and CRC: a PNG's last 8 bytes


def drawn(draw, m: dict, arrays: dict | None = None, model_text: str | None = None) -> bytes:
    """``draw(m, arrays)`` (``draw(m)`` without arrays), or the bytes it gave before for the
    same key. ``model_text``: ``json_text(m)``, where the caller has it already (a report's
    model is some 0.5 MB of JSON: encoding it costs more than drawing is saved)."""
    path = user_cache("figures") / f"{figure_key(draw, m, arrays, model_text)}.png"
    try:
        kept = path.read_bytes()
    except OSError:
        kept = b""
    if kept.startswith(PNG_START) and kept.endswith(PNG_END):
        return kept
    data = draw(m, arrays) if arrays is not None else draw(m)
    _keep(path, data)
    return data


def figure_key(draw, m: dict, arrays: dict | None, model_text: str | None = None) -> str:
    h = hashlib.sha256()
    for part in (draw.__name__, json_text(m) if model_text is None else model_text,
                 _renderer()):
        h.update(part.encode() + b"\0")
    for name in sorted(arrays or {}):
        array = np.ascontiguousarray(arrays[name])
        h.update(f"{name} {array.dtype.str} {array.shape}\0".encode())
        h.update(array.tobytes())
    return h.hexdigest()[:32]


@functools.cache
def _renderer() -> str:
    """What draws: the plotting code's files and the libraries' versions."""
    h = hashlib.sha256()
    for path in imported_files((Path(plots.__file__),)):
        h.update(path.read_bytes())
    return (f"{h.hexdigest()} matplotlib {metadata.version('matplotlib')} "
            f"numpy {np.__version__}")


def _keep(path: Path, data: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, data)
    except (OSError, ReportError):          # the figure is drawn again next time
        pass
