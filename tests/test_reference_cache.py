"""The reference layer's on-disk cache: written once and read back, damaged or stale entries
rebuilt and reported in one line, never a non-regular file read, the directory's precedence."""
from __future__ import annotations

import dataclasses
import fcntl
import json
import os
import signal
import stat
import threading
import time
import warnings

import numpy as np
import pytest

import sfpu_sim
from sfpu_sim import formats
from sfpu_sim import reference as R
from sfpu_sim.parity import golden as goldens
from sfpu_sim.reference import backends as ref_backends
from sfpu_sim.reference import cache as ref_cache
from sfpu_sim.reference import certify as ref_certify

BACKEND = ref_backends.backend(None).name                 # flint when python-flint is installed
ENTRY = f"sqrt.bf16.{BACKEND}.sfpuref"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    """Every test gets an empty cache directory and an empty in-memory table store."""
    monkeypatch.setenv("SFPU_SIM_CACHE", str(tmp_path / "cache"))
    R.clear_memory()
    yield tmp_path / "cache" / "references"
    R.clear_memory()

# --------------------------------------------------------------------------------------------
# The cache
# --------------------------------------------------------------------------------------------

def _count_evaluations(monkeypatch):
    calls = []
    original = ref_certify.evaluate

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(ref_cache, "evaluate", counting)
    return calls


def _stored(directory) -> list:
    """The files in a cache directory, but for the lock files that stay beside the tables (an
    empty file each: removing one while another process waits on it would let both evaluate)."""
    if not directory.exists():
        return []
    return sorted(f for f in directory.iterdir() if f.suffix != ".lock")


def _entry(directory):
    files = _stored(directory)
    assert [f.name for f in files] == [ENTRY]     # no temporary left over
    return files[0]


BITS = np.arange(0, 1 << 16, 7, dtype=np.uint32).astype(np.uint16)     # a table, not a few


def test_cache_is_written_once_and_read_back_without_recomputation(private_cache, monkeypatch):
    first = R.reference("sqrt", BITS)
    path = _entry(private_cache)
    header = json.loads(path.read_bytes().split(b"\n")[1])
    assert header["key"]["function"] == "sqrt" and header["key"]["backend"] == BACKEND
    assert set(header["key"]["versions"]) >= {"sfpu_sim", "mpmath"}
    assert header["key"]["definition"]["revision"] == 1
    R.clear_memory()
    calls = _count_evaluations(monkeypatch)
    second = R.reference("sqrt", BITS, "truncate")
    assert calls == []
    np.testing.assert_array_equal(first.value, second.value)


def test_a_table_another_process_evaluates_is_waited_for_then_read(private_cache, monkeypatch):
    """While the table's lock file is held (as by another process evaluating the table), a
    reference of it waits; the table written meanwhile is then read, not evaluated again."""
    first = R.reference("sqrt", BITS)
    table = _entry(private_cache)
    written = table.read_bytes()
    table.unlink()
    R.clear_memory()
    calls = _count_evaluations(monkeypatch)
    results = []
    with open(private_cache / f"{ENTRY}.lock", "a+b") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        waiting = threading.Thread(target=lambda: results.append(R.reference("sqrt", BITS)))
        waiting.start()
        time.sleep(0.5)
        assert waiting.is_alive() and results == []
        table.write_bytes(written)                # what the other process wrote
    waiting.join(60)
    assert calls == [] and len(results) == 1
    np.testing.assert_array_equal(results[0].bits, first.bits)


def test_a_few_inputs_use_a_table_at_hand_and_build_none(private_cache, monkeypatch):
    """Below SET_CACHE_MIN inputs only they are certified, and no table is written, unless the
    table is in memory or on disk: then it is used, with no evaluation."""
    few = BITS[:ref_cache.SET_CACHE_MIN - 1]
    calls = _count_evaluations(monkeypatch)
    alone = R.reference("sqrt", few)
    assert calls == [1] and not private_cache.exists()
    whole = R.reference("sqrt", BITS)
    assert calls == [1, 1] and _entry(private_cache)
    for memory in (True, False):
        if not memory:
            R.clear_memory()
        again = R.reference("sqrt", few)
        assert calls == [1, 1]
        np.testing.assert_array_equal(again.bits, alone.bits)
    np.testing.assert_array_equal(alone.bits, whole.bits[:few.size])


def _user_key(monkeypatch, built_in: dict, fn, origin: str = "") -> tuple:
    """(the user function "user_halved" registered from ``fn`` beside the built-ins alone, the
    key of its BF16 table)."""
    monkeypatch.setattr(R.definitions, "FUNCTIONS", dict(built_in))
    function = R.register_user_function("user_halved", fn, origin=origin)
    return function, ref_cache._table_place(function, "bf16", ref_backends.backend("mpmath"),
                                            None)[0]


def test_a_user_functions_table_is_keyed_on_its_text_and_values_not_its_file(private_cache,
                                                                            monkeypatch):
    """Where the function was given (a kernel file's path and line) is shown, not keyed: the
    same reference from a copied or moved file finds the table it built."""
    built_in = dict(R.definitions.FUNCTIONS)
    tables = []
    for origin in ("/one/place.py:12", "/another/place.py:30"):
        function, key = _user_key(monkeypatch, built_in, lambda x: x / 2, origin)
        assert function.description == f"user function ({origin})"
        tables.append(key)
    assert tables[0] == tables[1]


# One reference written into two different lines, and two references on one line.
HALVED_WITH_A_NOTE = (lambda x: x / 2, "provenance: one test file")
HALVED_ELSEWHERE = {"provenance": "another file, another line", "reference": lambda x: x / 2}
TWO_ON_ONE_LINE = (lambda x: x / 2, lambda x: x * 0.5)


def test_a_user_lambdas_key_is_its_own_text_not_the_lines_around_it(private_cache, monkeypatch):
    """A kernel file's provenance string or other arguments beside ``reference=lambda ...`` are
    no part of the function: editing them keeps the table. Another text keeps its own key,
    even where its values are the same and it shares the line."""
    built_in = dict(R.definitions.FUNCTIONS)
    keys = [_user_key(monkeypatch, built_in, fn)[1]
            for fn in (HALVED_WITH_A_NOTE[0], HALVED_ELSEWHERE["reference"], *TWO_ON_ONE_LINE)]
    assert keys[0] == keys[1] == keys[2]
    assert keys[3] != keys[0]


# Every 65,537th FP32 pattern (65,536 inputs of every sign and binade, NaNs and infinities too),
# and 4,095 positive normal ones: a large set and one just below SET_CACHE_MIN.
FP32_SET = np.arange(0, 1 << 32, 65537, dtype=np.uint64).astype(np.uint32)


def test_a_held_tables_lanes_are_rounded_once_per_policy_and_read_as_rounded_alone(
        private_cache, monkeypatch):
    """reference() on a held 65,536-input table rounds the whole table once per (policy,
    format, FTZ) and looks lanes up: every lane, a 0-d input included, is what rounding that
    lane alone gives."""
    rounded = []
    original = R._rounded
    monkeypatch.setattr(R, "_rounded", lambda *a: rounded.append(a[1:]) or original(*a))
    R.reference("tanh", BITS)                               # builds and holds the table
    lanes = np.array([[0x3F80, 0x0001], [0xBF00, 0x7FC0]], dtype=np.uint16)
    held = ref_cache.held_table(R.lookup("tanh"), "bf16", ref_backends.backend(None), None)
    for policy in R.POLICIES:
        for ftz in (True, False):
            got = R.reference("tanh", lanes, policy, ftz=ftz)
            alone = original(held.take(formats.daz(lanes, formats.BF16)), policy, formats.BF16,
                             ftz)
            np.testing.assert_array_equal(got.bits, alone[0])
            np.testing.assert_array_equal(got.value, alone[1])
            assert got.bits.shape == lanes.shape
    one = R.reference("tanh", np.array(0x3F80, dtype=np.uint16), "rne")
    assert one.bits.shape == () and one.value.shape == ()
    assert int(one.bits) == int(R.reference("tanh", lanes).bits[0, 0])     # lanes[0, 0]
    # the whole table rounded once per (policy, FTZ), whatever was asked after
    assert all(fmt is formats.BF16 for _, fmt, _ in rounded)
    assert sorted((p, f) for p, _, f in rounded) == \
        sorted((p, f) for p in R.POLICIES for f in (True, False))


def test_a_large_fp32_set_is_certified_once_then_read_back(private_cache, monkeypatch):
    assert ref_cache.SET_CACHE_MIN == 4096
    first = R.reference("sqrt", FP32_SET, input_format="fp32", output_format="fp32",
                        keep_set=True)
    files = [f.name for f in _stored(private_cache)]
    assert len(files) == 1 and files[0].startswith(f"sqrt.fp32.{BACKEND}.")
    header = json.loads((private_cache / files[0]).read_bytes().split(b"\n")[1])
    assert header["key"]["inputs"] == np.unique(formats.daz(FP32_SET, formats.FP32)).size
    R.clear_memory()
    calls = _count_evaluations(monkeypatch)
    again = R.reference("sqrt", FP32_SET[::-1], input_format="fp32", output_format="fp32",
                        keep_set=True)
    assert calls == []
    np.testing.assert_array_equal(again.bits, first.bits[::-1])
    uncached = R.reference("sqrt", FP32_SET, input_format="fp32", output_format="fp32",
                           cache=False, keep_set=True)
    assert len(calls) == 1
    np.testing.assert_array_equal(uncached.bits, first.bits)


def test_a_small_fp32_set_or_one_not_to_keep_is_not_stored(private_cache):
    """A sweep's chunks are certified once each: only a caller's ``keep_set`` stores a set."""
    R.reference("sqrt", FP32_SET[1000:5095], input_format="fp32", output_format="fp32",
                keep_set=True)
    R.reference("sqrt", FP32_SET, input_format="fp32", output_format="fp32")
    assert _stored(private_cache) == []


def test_a_torch_goldens_inner_values_are_kept_where_the_cell_asks(private_cache, monkeypatch):
    """torch's FP32 GELU certifies erf at x * M_SQRT1_2 rounded to FP32. A cell's inputs (all
    16-bit patterns, the harness walk) give the same such set in every cell and process: kept
    where the caller says so, as the set of the inputs themselves is."""
    x = np.arange(0x3C00, 0x4C00, dtype=np.uint16)           # 4,096 BF16 inputs
    first = goldens.golden("torch_gelu_fp32", "gelu", x, "bf16", "bf16")
    assert _stored(private_cache) == []
    kept = goldens.golden("torch_gelu_fp32", "gelu", x, "bf16", "bf16", keep_set=True)
    files = [f.name for f in _stored(private_cache)]
    assert len(files) == 1 and files[0].startswith(f"erf.fp32.{BACKEND}.")
    R.clear_memory()
    calls = _count_evaluations(monkeypatch)
    again = goldens.golden("torch_gelu_fp32", "gelu", x, "bf16", "bf16", keep_set=True)
    assert calls == []
    np.testing.assert_array_equal(kept, first)
    np.testing.assert_array_equal(again, first)


@pytest.fixture(scope="module")
def good_entry(tmp_path_factory):
    """The bytes of an intact cache entry for sqrt (built once for the damage tests)."""
    directory = tmp_path_factory.mktemp("good")
    R.clear_memory()
    R.reference("sqrt", BITS, cache_dir=directory)
    R.clear_memory()
    return (directory / ENTRY).read_bytes()


DAMAGE_TEXT = {"flip a payload byte": "checksum mismatch",
               "bad header": "bad header",
               "bad magic": "not a reference table", "header sha256": "checksum mismatch",
               "wrong shape": "columns of the wrong shape or values"}


@pytest.mark.parametrize("damage", ["flip a payload byte", "truncate", "bad header",
                                    "bad magic", "header sha256", "wrong shape"])
def test_a_damaged_cache_entry_is_rebuilt_never_used(private_cache, monkeypatch, good_entry,
                                                     damage):
    path = private_cache / ENTRY
    private_cache.mkdir(parents=True)
    data = bytearray(good_entry)
    if damage == "flip a payload byte":
        data[-100] ^= 0x01
    elif damage == "truncate":
        data = data[: len(data) // 2]
    elif damage == "bad header":
        data[len(ref_cache._MAGIC) + 2] = ord("#")
    elif damage == "bad magic":
        data[0] ^= 0xFF
    elif damage == "header sha256":
        data = data.replace(b'"sha256": "', b'"sha256": "0', 1)
    if damage == "wrong shape":                 # intact file, checksum right, table too short
        key = ref_cache._cache_key(R.FUNCTIONS["sqrt"], "bf16", ref_backends.backend(None))
        ref_cache._write_table(path, key, ref_certify.evaluate(R.FUNCTIONS["sqrt"], np.ones(10),
                                                               ref_backends.backend(None)))
    else:
        path.write_bytes(bytes(data))
    calls = _count_evaluations(monkeypatch)
    with pytest.warns(ref_cache.CacheWarning) as said:
        again = R.reference("sqrt", BITS)
    header_end = good_entry.index(b"\n", len(ref_cache._MAGIC))
    payload = len(good_entry) - header_end - 1
    text = (f"truncated ({len(data) - header_end - 1} of {payload} bytes)"
            if damage == "truncate" else DAMAGE_TEXT[damage])
    assert [str(w.message) for w in said] == [
        f"reference cache {path} was damaged ({text}); recomputed and rewritten"]
    assert calls == [1]
    assert _entry(private_cache).read_bytes() == good_entry      # rewritten intact
    np.testing.assert_array_equal(again.bits, R.reference("sqrt", BITS, cache=False).bits)


@pytest.mark.parametrize("stale", ["sfpu-sim version", "definition revision"])
def test_a_stale_cache_entry_is_rebuilt(private_cache, monkeypatch, good_entry, stale):
    private_cache.mkdir(parents=True)
    (private_cache / ENTRY).write_bytes(good_entry)
    if stale == "sfpu-sim version":
        monkeypatch.setattr(sfpu_sim.version, "__version__", "0.0.0+stale-test")
    else:
        monkeypatch.setitem(R.FUNCTIONS, "sqrt",
                            dataclasses.replace(R.FUNCTIONS["sqrt"], revision=99))
    calls = _count_evaluations(monkeypatch)
    with warnings.catch_warnings():
        warnings.simplefilter("error")              # an outdated entry is replaced quietly
        R.reference("sqrt", BITS)
    assert calls == [1]
    header = json.loads(_entry(private_cache).read_bytes().split(b"\n")[1])
    assert header["key"] == ref_cache._cache_key(R.FUNCTIONS["sqrt"], "bf16",
                                                 ref_backends.backend(None))


def test_a_fifo_in_place_of_a_cache_file_is_never_read(private_cache, monkeypatch):
    private_cache.mkdir(parents=True)
    os.mkfifo(private_cache / ENTRY)
    previous = signal.signal(signal.SIGALRM, lambda *_: pytest.fail("read the FIFO: hung"))
    signal.alarm(20)
    try:
        with pytest.warns(ref_cache.CacheWarning, match="is not a regular file: not read, not "
                                                        "replaced"):
            got = R.reference("sqrt", BITS)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert stat.S_ISFIFO((private_cache / ENTRY).stat().st_mode)      # left in place
    np.testing.assert_array_equal(got.bits, R.reference("sqrt", BITS, cache=False).bits)


def test_cache_directory_comes_from_parameter_then_environment_then_home(tmp_path, monkeypatch):
    assert R.cache_directory(tmp_path / "x") == tmp_path / "x"
    monkeypatch.setenv("SFPU_SIM_CACHE", str(tmp_path / "env"))
    assert R.cache_directory() == tmp_path / "env" / "references"
    monkeypatch.delenv("SFPU_SIM_CACHE")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert R.cache_directory() == tmp_path / "home" / ".cache" / "sfpu-sim" / "references"
    R.reference("sqrt", BITS, cache_dir=tmp_path / "param")
    assert (tmp_path / "param" / ENTRY).exists()


def test_an_unwritable_cache_directory_costs_time_not_correctness(tmp_path):
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("")
    got = R.reference("sqrt", np.array([0x4080], np.uint16), cache_dir=blocker / "sub")
    assert got.bits.tolist() == [0x4000]                                 # sqrt(4) = 2
