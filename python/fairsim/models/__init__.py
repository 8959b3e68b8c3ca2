"""Analytic models from the papers, as functions (each module cites its paper)."""
