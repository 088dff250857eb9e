# pipeline sources (paths relative to src/).
