# frontend sources (paths relative to src/).
