"""What the fast tier keeps of the exhaustive sweeps: every known failure family, then seeded random pairs.

The exhaustive sweeps themselves are marked `slow` and run in CI (`pytest -m slow`, by `.ci/run`). A
sample always holds the families below, also those larger than its sweep's range, so a regression in
any of them fails the fast tier too:
- 26 -> 22, 224 -> 192, 720 -> 224: the float32 product of the compiled map is off by one;
- 7 -> 41 (output width 41): the compiled map's flattened index crosses a row boundary;
- 1, the largest size of the sweep, and neighbours that are coprime (47 <-> 48, 63 <-> 64);
- pairs whose products d * in cross 2^23, where the float32 map's error changes sign (chapter 1.1),
  are held by `ACROSS_2_23`; the 65,535 axis limit by `test_every_variant_at_the_axis_limit`."""
import numpy as np

FAMILIES = ((26, 22), (224, 192), (720, 224), (7, 41), (41, 7), (1, 1), (2, 3), (47, 48), (48, 47),
            (63, 64), (64, 63))
# (in, out) along one axis whose products d * in run from below 2^23 to above it
ACROSS_2_23 = ((4099, 4097), (4097, 2049), (2049, 4099))


def sample_pairs(top: int, count: int, seed: int) -> list:
    """Every family (also those past `top`), the corners (1, top), (top, 1) and (top, top), then
    `count` seeded random pairs in 1..top."""
    rng = np.random.default_rng(seed)
    pairs = list(FAMILIES) + [(1, top), (top, 1), (top, top)]
    pairs += [tuple(int(v) for v in rng.integers(1, top + 1, 2)) for _ in range(count)]
    return list(dict.fromkeys(pairs))
