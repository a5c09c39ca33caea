"""Figures and the report, drawn from check results only."""
