"""Numerical guards shared by every layer.

:data:`SCALE_FLOOR` is the floor of a scale that a difference is divided by or a relative tolerance is multiplied
by (``‖a − b‖ / max(‖b‖, SCALE_FLOOR)``, ``rtol · max(|x|, SCALE_FLOOR)``): a zero scale then gives a finite
quotient and an absolute comparison instead of a division by zero or a test that nothing passes.
"""

from __future__ import annotations

#: above the smallest normal double (2.2e-308), so that ``x / SCALE_FLOOR`` stays finite for every ``|x| <= 1e8``,
#: and below every scale the suite measures (its matrices and vectors have norms far above 1e-200): it changes no
#: quotient of a non-zero scale
SCALE_FLOOR = 1e-300
