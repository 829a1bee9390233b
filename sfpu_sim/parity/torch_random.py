"""torch's CPU random numbers, reproduced without torch: the stream ``torch.manual_seed(s)`` starts
and the values ``torch.rand(n, dtype=torch.float32)`` draws from it, so that the accuracy
harness's seeded stimuli can be rebuilt bit for bit.

Sources read (pytorch/pytorch):

* ``aten/src/ATen/core/MT19937RNGEngine.h`` @09584516 (index id 63056382): the default CPU
  generator is the 32-bit Mersenne Twister MT19937, seeded by ``init_with_uint32`` (Matsumoto
  and Nishimura's ``init_genrand``: ``state[0] = seed & 0xffffffff``, ``state[j] = 1812433253 *
  (state[j-1] ^ (state[j-1] >> 30)) + j``), with the reference twist and tempering;
  ``manual_seed`` builds a fresh engine from the seed.
* ``aten/src/ATen/core/TransformationHelper.h`` @171c2a1e (``uniform_real``) and
  ``aten/src/ATen/native/cpu/DistributionTemplates.h`` @1d8b3cca (``uniform_kernel``):
  a float32 ``uniform_`` (what ``torch.rand`` runs) takes one 32-bit draw per element, in element
  order (``cpu_serial_kernel``), and keeps its low 24 bits: ``(draw & (2**24 - 1)) * 2**-24``,
  exact in float32.

The C++ standard's check of ``std::mt19937`` (the 10,000th output of the default seed 5489 is
4123659995) holds here, and numpy's legacy ``RandomState(seed)``, also ``init_genrand``, gives the
same 32-bit outputs (tests/test_torch_random.py).
"""
from __future__ import annotations

import numpy as np

__all__ = ["TorchGenerator"]

_N, _M = 624, 397
_UPPER, _LOWER, _MATRIX_A = np.uint32(0x80000000), np.uint32(0x7FFFFFFF), np.uint32(0x9908B0DF)


def _twisted(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    mixed = (u & _UPPER) | (v & _LOWER)
    return (mixed >> np.uint32(1)) ^ np.where(v & np.uint32(1), _MATRIX_A, np.uint32(0))


def _next_state(s: np.ndarray) -> None:
    """The reference ``next_state`` in place, vectorised in the blocks its dependencies allow:
    word i reads word i + 397 before it is rewritten (i < 227), else the new word i - 227."""
    s[:227] = s[_M:] ^ _twisted(s[:227], s[1:228])
    s[227:454] = s[:227] ^ _twisted(s[227:454], s[228:455])
    s[454:623] = s[227:396] ^ _twisted(s[454:623], s[455:624])
    s[623] = s[396] ^ _twisted(s[623:624], s[0:1])[0]


def _tempered(y: np.ndarray) -> np.ndarray:
    y = y ^ (y >> np.uint32(11))
    y = y ^ ((y << np.uint32(7)) & np.uint32(0x9D2C5680))
    y = y ^ ((y << np.uint32(15)) & np.uint32(0xEFC60000))
    return y ^ (y >> np.uint32(18))


class TorchGenerator:
    """``torch.manual_seed(seed)``'s CPU generator: :meth:`random` its 32-bit draws, :meth:`rand`
    ``torch.rand(n)``'s float32 values; each call continues the stream."""

    def __init__(self, seed: int):
        state = np.zeros(_N, dtype=np.uint32)
        word = seed & 0xFFFFFFFF
        state[0] = word
        for j in range(1, _N):                  # the seeding recurrence, word by word
            word = (1812433253 * (word ^ (word >> 30)) + j) & 0xFFFFFFFF
            state[j] = word
        self._state, self._next = state, _N

    def random(self, count: int) -> np.ndarray:
        out = np.empty(count, dtype=np.uint32)
        done = 0
        while done < count:
            if self._next == _N:
                _next_state(self._state)
                self._next = 0
            take = min(count - done, _N - self._next)
            out[done:done + take] = _tempered(self._state[self._next:self._next + take])
            done += take
            self._next += take
        return out

    def rand(self, count: int) -> np.ndarray:
        """``torch.rand(count)``: float32 multiples of 2**-24 in [0, 1)."""
        return (self.random(count) & np.uint32(0xFFFFFF)).astype(np.float32) * \
            np.float32(2.0 ** -24)
