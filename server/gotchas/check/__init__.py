"""Finding lessons the repository has moved away from: cited paths, symbols and scripts
that existed when a lesson was written and are gone now, tasks reverted or abandoned,
duplicates. Read-only; a lesson found stale is retired through a gated proposal."""
