"""The standard value classes, under the names a few reading modules still import from here.

New code imports ``dataclasses`` and ``typing`` itself. This module goes when the last of
those imports does.
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError, dataclass, field, replace
from typing import NamedTuple

__all__ = ["FrozenInstanceError", "NamedTuple", "dataclass", "field", "replace"]
