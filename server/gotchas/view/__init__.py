"""``gotchas view``: the record, its corrections and its tasks on one static HTML page.

:mod:`~gotchas.view.gather` reads (the record, histories, proposals and their holds,
landings, findings, the hosting service), :mod:`~gotchas.view.model` is what the page
shows, :mod:`~gotchas.view.page` renders it with the sanitising text helpers of
:mod:`~gotchas.view.text` and the inline style and script of :mod:`~gotchas.view.assets`,
and :mod:`~gotchas.view.command` writes the one file.
"""
