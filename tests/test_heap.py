"""sfpu_sim.heap: glibc keeps a chunk's freed pages for the next (only time changes)."""
from __future__ import annotations

import ctypes
import sys

import pytest

from sfpu_sim import heap


@pytest.fixture
def fresh():
    heap.keep_freed_memory.cache_clear()
    yield
    heap.keep_freed_memory.cache_clear()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt: Linux only")
def test_glibc_takes_both_thresholds(fresh):
    try:
        ctypes.CDLL(None).gnu_get_libc_version
    except AttributeError:
        pytest.skip("not glibc")
    assert heap.keep_freed_memory() is True


def test_elsewhere_it_does_nothing(fresh, monkeypatch):
    monkeypatch.setattr(sys, "platform", "darwin")
    assert heap.keep_freed_memory() is False
