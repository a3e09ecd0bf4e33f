"""Sweeps: a grid of design points run through papermill or in-process, locally or on Dask."""
