"""gotchas: keep a team's durable lessons file correct."""

__version__ = "0.1.0"
