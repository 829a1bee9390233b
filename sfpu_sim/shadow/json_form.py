"""The JSON form of a :class:`~sfpu_sim.shadow.locator.Located` (``sfpu-sim locate --json``).

Owns: the keys and their meaning (below). Knows nothing of terminals.

Top level: ``kernel``, ``function``, ``arch``, ``dest``, ``selection`` (which inputs),
``definitions`` (the text of every measure, :data:`DEFINITIONS`),
``lanes`` (one object per input, worst first for ``--worst``) and ``instructions`` (the
per-instruction table over those lanes).

A lane: ``input_bits`` / ``input``, ``reference_bits`` / ``reference`` (correctly rounded BF16,
rne, DAZ/FTZ), ``true_value`` (the function at 320 bits, a decimal string), ``output_bits`` /
``output`` (device BF16), ``kernel_fp32_bits`` / ``kernel_fp32`` (the LReg the last SFPSTORE
stores), ``shadow_final`` (its shadow, a decimal string) and ``shadow_exact`` (False if an
approximate instruction or a cap on the exact width made it approximate), ``device_ulp``
(daz-index; null if unmeasurable), ``split`` {``approximation``, ``datapath``, ``store``,
``total`` (signed daz-index steps; approximation + datapath + store = total), ``fractional``
{``approximation``, ``datapath``, ``store``} (BF16 ULP at the reference)} or null,
``located`` {``index``, ``mnemonic``, ``source``, ``why``} (index null when no instruction is
named), ``grows_most`` {``index``, ``mnemonic``, ``source``, ``growth``} or null,
``cancellation`` {``index``, ``mnemonic``, ``source``, ``kappa``, ``bits_lost``} or null, and
``steps``: every instruction that wrote in the lane, {``index`` (as ``kernel show`` numbers
it), ``mnemonic``, ``text``, ``source``, ``kind``, ``register`` (null for a store),
``device_bits``, ``device``, ``shadow`` (decimal string), ``shadow_exact``, ``error_rel``,
``error_ulp`` (FP32 ULP at the shadow), ``added_rel``, ``added_ulp``, ``growth``, ``kappa``,
``bits_lost``, ``on_path`` (the stored value depends on it)}.

An instruction row: ``index``, ``mnemonic``, ``text``, ``source``, ``lanes`` (lanes it wrote
in), ``located``, ``grows_most``, ``cancellation`` (in how many lanes it was that verdict),
``added_ulp_median`` / ``added_ulp_max`` (FP32 ULP it added by itself), ``growth_median`` /
``growth_max`` (relative, on the path to the result), ``bits_lost_max``.

Non-finite numbers are the strings "inf", "-inf", "nan" (as in sweep summaries).
"""
from __future__ import annotations

import math
import statistics

import mpmath

from sfpu_sim.asm import format_instruction
from sfpu_sim.isa import exact
from sfpu_sim.isa.exact_rules import KINDS
from sfpu_sim.jsonio import jsonable

DIGITS = 20

# The text of every measure; every output of locate carries it.
DEFINITIONS = {
    "error": "device value against the shadow (the kernel's arithmetic applied exactly): "
             "relative |d - s|/|s|, and in FP32 ULP at the shadow value",
    "added": "the instruction's device result against its exact result on the device's own "
             "operands (its own rounding or approximation), same units",
    "growth": "relative error of the result minus the largest relative error of its operands; "
              "'grows most': the largest positive growth among the instructions the stored "
              "value depends on",
    "cancellation": "condition number of an addition x + y at the shadow operands, "
                    "kappa = (|x| + |y|)/|x + y|: operand relative errors (approximation and "
                    "rounding alike) come out multiplied by kappa; log2(kappa) bits are lost",
    "split": "signed daz-index BF16 ULP steps adding up to the total: approximation = "
             "idx(rne(S)) - idx(R), datapath = idx(rne(K)) - idx(rne(S)), store/pack = "
             "idx(O) - idx(rne(K)), total = idx(O) - idx(R); R the correctly rounded "
             "reference, S the shadow of the stored value, K the device's FP32 value before "
             "the store, O the output, rne() to BF16 nearest even with FTZ; fractional: "
             "(S - f)/u, (K - S)/u, (O - K)/u with f the true value (320-bit mpmath), u the "
             "BF16 ULP at the reference",
    "located": "the dominant part of the split decides (ULP steps |datapath + store| against "
               "|approximation|; on a tie |O - S| against |S - f|): the device's error -> "
               "the instruction where the error grows most; the approximation -> the largest "
               "cancellation on the path to the result if it explains the error: it loses >= 4 "
               "bits (half of BF16's 8) and rho = |S - f|/|f| >= 2^-9 > rho/kappa (2^-9: the "
               "smallest relative error that can reach half a BF16 ULP); else none (the "
               "approximation's own error)",
    "kinds": KINDS,
}


def decimal(value) -> str:
    return mpmath.nstr(value, DIGITS, min_fixed=-4, max_fixed=6)


def _where(step) -> dict:
    ins = step.instruction
    return {"index": step.index, "mnemonic": ins.mnemonic, "source": ins.source or ""}


def step_json(step, on_path: bool) -> dict:
    return {**_where(step), "text": format_instruction(step.instruction), "kind": step.kind,
            "register": step.register, "device_bits": f"{step.device_bits:#010x}",
            "device": float(step.device), "shadow": decimal(step.shadow),
            "shadow_exact": not step.twin.approximate, "error_rel": step.error,
            "error_ulp": step.error_ulp, "added_rel": step.added, "added_ulp": step.added_ulp,
            "growth": step.growth, "kappa": step.kappa,
            "bits_lost": math.log2(step.kappa) if step.kappa > 1 else 0.0,
            "on_path": on_path}


def lane_json(lane) -> dict:
    split = lane.split
    located = lane.located
    out = {
        "input_bits": f"{lane.input_bits:#06x}", "input": lane.input,
        "reference_bits": f"{lane.reference_bits:#06x}",
        "reference": float(exact.bf16_value(lane.reference_bits)),
        "true_value": decimal(lane.true_value),
        "output_bits": f"{lane.output_bits:#06x}",
        "output": float(exact.bf16_value(lane.output_bits)),
        "kernel_fp32_bits": f"{lane.kernel_fp32_bits:#010x}",
        "kernel_fp32": float(exact.fp32_value(lane.kernel_fp32_bits)),
        "shadow_final": decimal(lane.shadow_final), "shadow_exact": not lane.shadow_approximate,
        "device_ulp": lane.device_ulp,
        "split": None if split is None else {
            "approximation": split.approximation, "datapath": split.datapath,
            "store": split.store, "total": split.total,
            "fractional": {"approximation": split.approximation_frac,
                           "datapath": split.datapath_frac, "store": split.store_frac}},
        "located": {**(_where(located.step) if located.step else
                       {"index": None, "mnemonic": None, "source": None}),
                    "why": located.why},
        "grows_most": None if lane.grows_most is None else {
            **_where(lane.grows_most), "growth": lane.grows_most.growth},
        "cancellation": None if lane.cancellation is None else {
            **_where(lane.cancellation), "kappa": lane.cancellation.kappa,
            "bits_lost": math.log2(lane.cancellation.kappa)},
        "steps": [step_json(step, step.index in lane.cone) for step in lane.steps],
    }
    return out


def median(values):
    return statistics.median(values) if values else None


def row_json(row) -> dict:
    return {"index": row.index, "mnemonic": row.mnemonic, "text": row.text,
            "source": row.source, "lanes": row.lanes, "located": row.located,
            "grows_most": row.grows_most, "cancellation": row.cancellation,
            "added_ulp_median": median(row.added_ulp),
            "added_ulp_max": max(row.added_ulp, default=None),
            "growth_median": median(row.growth), "growth_max": max(row.growth, default=None),
            "bits_lost_max": max(row.bits_lost, default=None)}


def located_json(located) -> dict:
    return jsonable({
        "kernel": located.kernel, "function": located.function, "arch": located.arch,
        "dest": located.dest, "selection": located.selection, "definitions": DEFINITIONS,
        "lanes": [lane_json(lane) for lane in located.lanes],
        "instructions": [row_json(row) for row in located.instructions()],
    })
