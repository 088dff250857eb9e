# CPU backend sources (paths relative to backends/).
