"""The bounded iterative agent: route → retrieve → assess → (refine → retrieve)* → answer → verify/refuse."""
