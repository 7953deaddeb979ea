"""Feedback graph of paper 003 (Ghari & Shen, "Graph-Aided Online Multi-Kernel Learning").

* Algorithm 1 / eq. (11): node v_i (kernel kappa_i) gets a self-loop and edges to the M - 1
  other kernels with the smallest dissimilarity Delta(kappa_i, kappa_j) (eq. 7), so that
  |N_i^out| = M (gamma_i of eq. 11 is the M-th smallest Delta in row i).
* The dominating set D of the graph (section 5: "the greedy set cover algorithm by Chvatal
  (1979)"): the universe is the node set, node i covers N_i^out; repeatedly pick the node
  covering the most still-uncovered nodes (ties -> lowest index) until every node is covered.
  Chvatal's guarantee: |D| <= H(M) |D_min|, H the harmonic number.

Graphs are held as an (N, N) boolean adjacency matrix ``A`` with A[j, i] = True for the edge
j -> i (so q = p @ A is eq. 15: q_i = sum_{j in N_i^in} p_j), or as the (N, M) array of
out-neighbours returned by :func:`feedback_graph`.
"""
from __future__ import annotations

import numpy as np

from ..validation import check_int

__all__ = ["feedback_graph", "adjacency", "greedy_dominating_set", "is_dominating"]


def feedback_graph(delta, M: int) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 1 (eq. 11) and Chvatal's greedy dominating set.

    Parameters
    ----------
    delta : (N, N) array of dissimilarities Delta(kappa_i, kappa_j) (eq. 7), or their logs
        (only the order within each row matters).
    M : out-neighbours per node, self-loop included (1 <= M <= N; section 5: M = 5).

    Returns
    -------
    out_neighbours : (N, M) int array; row i = [i, then the M - 1 kernels j != i with the
        smallest Delta(kappa_i, kappa_j), ties broken by the lower index].
    dominating_set : sorted int array of the nodes chosen by the greedy set cover.
    """
    delta = np.asarray(delta, dtype=np.float64)
    if delta.ndim != 2 or delta.shape[0] != delta.shape[1]:
        raise ValueError(f"delta must be a square (N, N) array, got shape {delta.shape}")
    if np.any(np.isnan(delta)):
        raise ValueError("delta contains NaN")
    N = delta.shape[0]
    M = check_int(M, "M")
    if M > N:
        raise ValueError(f"M must be <= N = {N}, got {M}")
    masked = delta.copy()
    np.fill_diagonal(masked, np.inf)                           # the self-loop is added explicitly
    others = np.argsort(masked, axis=1, kind="stable")[:, : M - 1]   # eq. (11): M-1 most similar
    out = np.concatenate([np.arange(N)[:, None], others], axis=1)
    return out, greedy_dominating_set(adjacency(out, N))


def adjacency(out_neighbours, N: int | None = None) -> np.ndarray:
    """(N, N) boolean A with A[j, i] = True iff i is an out-neighbour of j."""
    out = np.asarray(out_neighbours)
    N = out.shape[0] if N is None else N
    A = np.zeros((N, N), dtype=bool)
    A[np.repeat(np.arange(out.shape[0]), out.shape[1]), out.ravel()] = True
    return A


def greedy_dominating_set(A) -> np.ndarray:
    """Chvatal's greedy set cover on the out-neighbourhoods of A (A[j, i]: edge j -> i)."""
    A = np.asarray(A, dtype=bool)
    N = A.shape[0]
    uncovered = np.ones(N, dtype=bool)
    chosen = []
    while uncovered.any():
        gain = (A & uncovered[None, :]).sum(axis=1)            # newly covered nodes per candidate
        j = int(np.argmax(gain))                               # first maximum -> lowest index
        if gain[j] == 0:
            raise ValueError("some node has no in-edge (no self-loop?), it cannot be dominated")
        chosen.append(j)
        uncovered &= ~A[j]
    return np.array(sorted(chosen), dtype=np.int64)


def is_dominating(A, D) -> bool:
    """Every node is an out-neighbour of some node of D (self-loops count)."""
    A = np.asarray(A, dtype=bool)
    D = np.asarray(D, dtype=np.int64)
    return bool(A[D].any(axis=0).all()) if D.size else A.shape[0] == 0
