"""One package per reproduced paper: its experiments, its claims (each declared beside its
check), its figures, and `PAPER` in its `__init__`. `fairsim.reproduce.papers()` finds every
package here; docs/reproductions.md says how to add one."""
