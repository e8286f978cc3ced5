"""Core: models, loaders, resolution, explain, matrix. No asyncio, no Jupyter."""
