"""The search over a deal's positions: the solver, the whole-deal analysis and its passes,
the longest-runs pass, the review, the solver's statistics, and the daily challenge's deal
that they choose. Built on the rules (:mod:`app.engine.game`, :mod:`app.engine.deal`);
nothing in the rules imports it."""
