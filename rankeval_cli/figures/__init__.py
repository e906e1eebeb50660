"""Figures of rankeval tables: reading them (data.py, no matplotlib) and drawing them (draw.py)."""
