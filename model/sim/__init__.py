"""The simulation engine: SimPy components, the flow-sharing primitive and named random streams."""
