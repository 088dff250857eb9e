# reference sources (paths relative to src/).
