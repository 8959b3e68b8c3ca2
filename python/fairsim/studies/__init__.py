"""Studies: experiments that are more than one scenario (grids of generated scenarios)."""
