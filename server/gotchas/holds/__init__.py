"""Holds: may a correction be written yet? The predicate grammar, the sources of task state
(one table of them in :mod:`gotchas.holds.registry`), the pure decision and the check that
gathers observations for it. Nothing is imported here, so naming one module stays cheap."""
