"""Reference solutions ``x*`` of problem (P): sparse KKT solves, the minimum-norm minimiser and the interior-point method of the nonsmooth families."""
