"""The control and data flow of a program, for the sfpi style of :mod:`sfpu_sim.tt_llk_export`:
its predication blocks and which definitions of an LReg are one variable.

Owns: :func:`parse` (the CC instructions as the blocks sfpi's ``__vCCCtrl`` makes: ``SFPPUSHC``
opens a :class:`Chain`, ``SFPSETCC`` narrows the lanes of the segment it is in, ``SFPCOMPC``
starts the next segment, on the entry lanes the current one does not hold, ``SFPPOPC`` closes
it; tenstorrent/sfpi @0de2538 ``include/sfpi.h``: ``v_if`` = push + condition, ``v_elseif`` =
``SFPCOMPC`` + push + condition, ``v_else`` = ``SFPCOMPC``, ``v_endif`` pops) and
:class:`Values` (reaching definitions over those blocks; the definitions that reach one read
are one variable, so a write in a narrowed block keeps the variable's other lanes, as sfpi's
assignment inside ``v_if`` does). Knows nothing of sfpi's spellings.
"""
from __future__ import annotations

from dataclasses import dataclass

from sfpu_sim.tt_llk_export_forms import Form, refuse

# --------------------------------------------------------------------------------------------
# Structure: statements, narrowings and chains (PUSHC ... [COMPC ...] POPC)
# --------------------------------------------------------------------------------------------

@dataclass
class Chain:
    push: int
    segments: list            # item lists, separated by SFPCOMPC
    pop: int = -1
    flattened: bool = False   # rendered as v_elseif of its enclosing chain

    @property
    def span(self) -> tuple[int, int]:
        return self.push, self.pop


def span(item) -> tuple[int, int]:
    """The first and last instruction index of an item."""
    return item.span if isinstance(item, Chain) else (item[1], item[1])


def parse(forms: list[Form], start: int, end: int) -> list:
    """Items of ``forms[start:end]``: ("stmt", k), ("narrow", k) and :class:`Chain`. Statements
    between a push and its first lane change run in the lanes of before the push: they are
    moved before the chain (sfpi evaluates them before ``v_if``)."""
    items, _ = _parse(forms, start, end, 0)
    return items


def _parse(forms, position, end, depth):
    items = []
    while position < end:
        form = forms[position]
        mnemonic = form.ins.mnemonic
        if mnemonic == "SFPPUSHC":
            hoisted, chain, position = _chain(forms, position, end, depth)
            items += hoisted + [chain]
        elif mnemonic in ("SFPCOMPC", "SFPPOPC"):
            if depth == 0:
                raise refuse(position, form.ins, "there is no SFPPUSHC before it in this "
                             "function: sfpi's v_else / v_endif close a v_if")
            return items, position
        elif mnemonic == "SFPSETCC":
            if depth == 0:
                raise refuse(position, form.ins, "it narrows the lanes outside any "
                             "SFPPUSHC, for the rest of the program: sfpi narrows only inside "
                             "v_if / v_block")
            items.append(("narrow", position))
            position += 1
        else:
            items.append(("stmt", position))
            position += 1
    return items, position


def _chain(forms, push, end, depth):
    segments, position = [], push + 1
    while True:
        items, position = _parse(forms, position, end, depth + 1)
        segments.append(items)
        if position >= end:
            raise refuse(push, forms[push].ins, "no SFPPOPC closes it in this function")
        if forms[position].ins.mnemonic == "SFPCOMPC":
            position += 1
            continue
        first = segments[0]
        lead = next((n for n, item in enumerate(first)
                     if isinstance(item, Chain) or item[0] != "stmt"), len(first))
        segments[0] = first[lead:]
        return first[:lead], Chain(push, segments, position), position + 1


# --------------------------------------------------------------------------------------------
# Values: which definitions are one variable
# --------------------------------------------------------------------------------------------

class Values:
    """Reaching definitions over the structure, joined into variables (webs). A definition is
    ``(k, reg)``; ``(-1, reg)`` stands for the LReg's content before the program."""

    def __init__(self, forms: list[Form]):
        self.forms = forms
        self.parent: dict = {}
        self.uses: dict[tuple[int, str], tuple] = {}      # (k, role) -> a definition
        self.defs: list[tuple] = []
        self.predicated: list[tuple] = []                  # (definition, what it overwrote)

    def find(self, d):
        self.parent.setdefault(d, d)
        while self.parent[d] != d:
            self.parent[d] = self.parent[self.parent[d]]
            d = self.parent[d]
        return d

    def union(self, a, b) -> None:
        a, b = self.find(a), self.find(b)
        if a != b:
            self.parent[max(a, b)] = min(a, b)       # the earliest definition names the web

    def walk(self, items, reach: dict, depth: int = 0) -> tuple[dict, list]:
        """The definitions reaching the end of ``items`` (``depth``: chains around them), and
        the states of the lanes that left (failed a narrowing) on the way."""
        leaving = []
        for item in items:
            if isinstance(item, Chain):
                reach = self._chain(item, reach, depth + 1)
            elif item[0] == "narrow":
                self._use(item[1], "v", reach)
                leaving.append(dict(reach))
            else:
                reach = self._statement(item[1], reach, depth)
        return reach, leaving

    def _chain(self, chain: Chain, entry: dict, depth: int) -> dict:
        outside, reach = [], entry
        for n, segment in enumerate(chain.segments):
            end, leaving = self.walk(segment, reach, depth)
            if n + 1 < len(chain.segments):        # SFPCOMPC: the entry lanes not enabled now
                reach = _join(leaving + outside) if leaving or outside else end
                outside = [end]
            else:
                return _join([end] + leaving + outside)
        return entry

    def merge_predicated(self) -> None:
        """A predicated write to an LReg whose earlier value is read later (in the lanes the
        write skipped) is an assignment to that value's variable, as the register is: sfpi's
        ``y = ...`` inside ``v_if`` (and two variables there would need two registers)."""
        changed = True
        while changed:
            changed = False
            last_use: dict = {}
            for (k, _), d in self.uses.items():
                web = self.find(d)
                last_use[web] = max(last_use.get(web, -1), k)
            for d, earlier in self.predicated:
                for other in earlier:
                    if other[0] >= 0 and self.find(other) != self.find(d) and \
                            last_use.get(self.find(other), -1) > d[0]:
                        self.union(other, d)
                        changed = True

    def _use(self, k: int, role: str, reach: dict) -> None:
        register = self.forms[k].reads[role].reg
        if register >= 8:
            return
        reaching = sorted(reach.get(register, {(-1, register)}))
        if (-1, register) in reaching:
            raise refuse(k, self.forms[k].ins, f"it reads L{register} where no instruction of "
                         f"the kernel wrote it on every path: sfpi names values, not registers")
        for other in reaching[1:]:
            self.union(reaching[0], other)
        self.uses[(k, role)] = reaching[0]

    def _statement(self, k: int, reach: dict, depth: int) -> dict:
        form = self.forms[k]
        for role in form.reads:
            self._use(k, role, reach)
        reach = dict(reach)
        for register in form.writes:
            d = (k, register)
            self.find(d)
            self.defs.append(d)
            if form.in_place:                     # vec_swap / vec_min_max update variables
                role = next(r for r, read in form.reads.items() if read.reg == register)
                self.union(d, self.uses[(k, role)])
            if depth:
                self.predicated.append((d, frozenset(reach.get(register, ()))))
            reach[register] = {d}
        return reach


def _join(states: list[dict]) -> dict:
    joined: dict = {}
    for state in states:
        for register, defs in state.items():
            joined[register] = joined.get(register, frozenset()) | frozenset(defs)
    return joined
