"""The phases of one deal, one module each, in the order a deal goes through them.

=============  =====================================================================
``setup``      deal setup and the cut: :func:`new_deal`, R-D2..R-D4
``auction``    the bidding, R-B1..R-B8 (the ladder itself is :mod:`app.rules.core.auction`)
``contract``   talon, discard, naming the contract, conceding, R-C1..R-C6
``defence``    whist, pass, half-whist, returned whist, open or closed play, R-W1..R-W6
``play``       trick play, pass-out talon leads, R-W7..R-W10, R-R1..R-R3
``claims``     claims and agreed results, R-W11
``outcome``    the end of a deal: the :class:`~app.rules.core.outcome.DealOutcome`, the reveal
=============  =====================================================================

Each module offers ``apply_*`` handlers and the ``*_options`` that ``legal_actions`` lists;
both use the same predicate, so one place decides what is legal. A later phase never imports
an earlier one (``outcome`` <- ``play`` <- ``claims``/``defence`` <- ``contract`` <- ``auction``
<- ``setup``), and none imports :mod:`app.rules.deal.dispatch`, which dispatches to them.
This package file imports nothing on purpose.
"""
