"""The benchmark cases, by group: "core" (issue 2) and "loops" (issue 3) time gradients;
"forward" (issue 4, see ../forward.py) reuses the core functions for forward mode; "stats"
(issue 14) a log density written with scipy.stats."""

from . import gmm, gradbench, logsumexp, mlp, ode, rnn, rnn_nested, rosenbrock, softmax_dot, stats

GROUPS = {
    "core": (rosenbrock.CASE, logsumexp.CASE, softmax_dot.CASE, mlp.CASE),
    "loops": (ode.CASE, rnn.CASE, rnn_nested.CASE, gmm.CASE),
    "stats": (stats.CASE,),
    "gradbench": gradbench.CASES,
}
