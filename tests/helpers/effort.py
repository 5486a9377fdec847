"""How hard the tests work: the one knob, as the test modules read it.

``conftest.py`` turns the knob (``--thorough`` or ``JSONSNAP_THOROUGH=1``, see there) before any
test module is imported, and loads the matching hypothesis profile. Nothing else scales a test.

* :func:`examples` gives a property test its ``max_examples`` from a weight: a weight of 100
  runs exactly the profile's ``max_examples``, 200 twice as many, 60 a bit over half. A slow
  test also gives the (smaller) weight it has in the default profile, ``examples(150,
  default=60)``: no property test takes much over a second there, and the thorough profile
  runs every test at its full weight.
* :func:`positions` gives an exhaustive loop (every prefix, every cut) the positions to visit:
  all of them for short inputs, and beyond that the first and last few plus a seeded sample. In
  the thorough profile every loop visits every position, as far as its ``thorough_limit``.
"""

from __future__ import annotations

import random
import zlib
from typing import Final

from hypothesis import settings

#: Environment variable that selects the thorough profile (any value but "", "0").
ENV: Final = "JSONSNAP_THOROUGH"
#: The hypothesis profiles conftest.py registers.
PROFILE: Final = "jsonsnap"
THOROUGH_PROFILE: Final = "jsonsnap-thorough"
#: max_examples of a weight-100 property test in each profile. The default, with the smaller
#: weights of the slow tests, keeps each property test near a second or less; the thorough
#: one is ten times the full weights.
EXAMPLES: Final = 50
THOROUGH_EXAMPLES: Final = 1000
#: Positions always visited at each end of a sampled range (the first and last tokens).
ENDS: Final = 4

_thorough = False


def set_thorough(on: bool) -> None:
    """Turn the knob: conftest.py calls this once, before the test modules are imported."""
    global _thorough
    _thorough = on
    settings.load_profile(THOROUGH_PROFILE if on else PROFILE)


def thorough() -> bool:
    """Whether the thorough profile is on."""
    return _thorough


def examples(weight: int, *, default: int | None = None) -> int:
    """``max_examples`` for a property test of this weight under the loaded profile.

    ``default``: the weight in the default profile of a slow test (one that would take over
    about a second here at its full weight), which runs its full ``weight`` when thorough.
    """
    profile = settings.default
    assert profile is not None
    if default is not None and not _thorough:
        weight = default
    return max(1, round(weight * profile.max_examples / 100))


def seed_of(data: str | bytes) -> int:
    """A seed that depends only on ``data``: the same sample for the same input, every run."""
    raw = data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass")
    return zlib.crc32(raw)


def positions(
    start: int, stop: int, *, limit: int, thorough_limit: int, sample: int, seed: int
) -> list[int]:
    """The positions of ``range(start, stop)`` an exhaustive loop visits, in order.

    Every one when there are at most ``limit`` of them (``thorough_limit`` in the thorough
    profile); otherwise the :data:`ENDS` first and last ones and ``sample`` more drawn by
    ``random.Random(seed)``, the same ones for the same seed.
    """
    count = stop - start
    if count <= (thorough_limit if _thorough else limit):
        return list(range(start, stop))
    ends = {*range(start, start + ENDS), *range(stop - ENDS, stop)}
    middle = range(start + ENDS, stop - ENDS)
    chosen = random.Random(seed).sample(middle, min(sample, len(middle)))
    return sorted(ends.union(chosen))
